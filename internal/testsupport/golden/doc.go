// Package golden owns the golden files of the tests: comparing an output
// with its file under the test package's testdata/, and rewriting the files
// when the tests run with -update. Only tests import it.
package golden
