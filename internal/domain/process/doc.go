// Package process owns naming a running process so that another process
// can later tell whether it still runs: its host, its pid and its start
// time. A pid alone is not enough: after a crash the pid may be taken by an
// unrelated program. migrate records a Self in its lock item and in its
// checkpoint, and a later run asks Running before it refuses to take
// either over.
package process
