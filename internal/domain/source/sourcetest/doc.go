// Package sourcetest is the shared support of the source tests: package
// source's own (the shared suite, run on both engines) and each engine's
// (source/postgres, source/mysql). It opens sources and snapshots that
// close when the test ends, reads rows, compares decoded values with the
// canonical values a test expects, follows change streams, relays a
// connection that can fall silent, and holds the shared suite's table in
// each engine's SQL.
package sourcetest
