// Package gentest owns the tests every example's data generator shares:
// the committed data.sql is the generator's output (with -update to
// rewrite it), two runs give the same bytes, and bad -scale and -engine
// values are refused with their messages. Only the generators' tests
// import it.
package gentest
