// Package mysql is MySQL's and MariaDB's source: its Driver (which DSNs
// are its own, their identity), the reader and its consistent snapshots,
// the change stream over the row binlog (checked row image, GTIDs,
// heartbeats), the wait until a streamed transaction is visible to new
// snapshots (a locking read of a row it changed), and the write-back
// follow-back uses. It registers itself with package source through
// source/engines.
package mysql
