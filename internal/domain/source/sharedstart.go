package source

// The shards of a followed job (migrate --shard i/n --to … --follow) are
// separate processes, started at different moments, each reading its share
// in a snapshot of its own: no snapshot can be shared between them (an
// exported PostgreSQL snapshot lives only while the session that exported
// it does, and a MySQL snapshot is a session's). So each shard records
// where its own snapshot is in the source's history (StartShared), and the
// follower, once every shard is done, starts from the earliest of them
// (Earliest). The changes between the earliest position and a later
// shard's snapshot are applied again over rows that already hold them:
// the follower writes every item it applies from the row as the source
// holds it now (read again by its key), so a change applied twice leaves
// the item as once. What must never happen is a shard whose snapshot is
// earlier than the position the stream starts from: its rows' changes in
// between would be lost. StartShared keeps that order:
//
//   - PostgreSQL: the shards share one replication slot. The first shard
//     to start creates it with its exported snapshot, as StartFollow does;
//     a later shard finds it and takes a snapshot of its own, after the
//     slot was created, so after the slot's start. The shards take an
//     advisory lock (on the slot's name) around this, so that no shard
//     takes its snapshot while a sibling's slot is still being created
//     (a slot being created exists before its start is known).
//   - MySQL: nothing is created on the server; each shard's snapshot
//     position is read as StartFollow reads it, and the follower starts
//     from the earliest (the binlog must keep it until then).
