// Package introspecttest owns the test suite that every engine's inspector
// must pass (introspect/postgres, introspect/mysql): one schema, written in
// each engine's dialect, and one set of assertions on the Schema the
// inspector returns, so both engines are held to the same model. It also
// exports the small assertion helpers the engines' own tests use.
//
// Only tests import it.
package introspecttest
