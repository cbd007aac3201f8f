// Package postgres is PostgreSQL's source: its Driver (which DSNs are its
// own, their identity), the reader and its snapshots (exported and
// imported, renewable for the follower), the change stream over logical
// replication (pgoutput: slots, publications, relation changes, silence),
// the wait until a streamed transaction is visible to new snapshots, and
// the write-back follow-back uses. It registers itself with package source
// through source/engines.
package postgres
