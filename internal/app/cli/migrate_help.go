package cli

// migrateLong is migrate's --help text.
const migrateLong = `migrate reads every entity from one consistent snapshot of the source, renders
each row into its item, and writes the items with BatchWriteItem (25 per
request) from up to --writers requests in flight. UnprocessedItems, throttling and 5xx
answers are retried with capped exponential backoff and jitter for up to
--retry-for per batch; after that the run stops and names the items.
--readers source connections read the rows (--ranges splits each entity into
key ranges read in parallel) and hand them, 64 at a time, to --render-workers
goroutines that render the items, check their keys for collisions and fill
the writers' batches.

A row that cannot become an item (a NULL in a key, an item over 400 KB, a
row rendering the key of an earlier row, ...) is rejected: it is written to
--rejects (by default <table>.remodel-rejects.jsonl) with its entity, source
key and reason. More than --max-rejects
rejected rows stop the run (the default 0 stops at the first) with exit
status 1.

The key collision check runs unless the mapping (or, for a text column that
may hold the separator after it, the snapshot's data) proves that no two rows
render one key; --key-check always runs it anyway. It holds at most
--key-check-memory MiB whatever the number of rows: the keys go to temporary
files in $TMPDIR, a filter in memory clears almost every new key at once, and
the report says how many keys it had to look up on disk.

migrate refuses to write into a table that already holds items unless
--allow-non-empty is given; then it reports how many items were there and,
after a successful run, how many it did not write (stray items, named);
--delete-stale deletes those. While it writes, a lock item in the table
(key #remodel#lock) keeps a second migrate out: that one is refused, naming
the run that holds the lock, unless the lock's heartbeat is older than 2
minutes (its run died), when it is taken over. The lock is removed however
the run ends.

Every request to DynamoDB has --request-timeout to be answered, and is
retried like any other failure when it is not. --rate-limit caps the writes
at N write units per second (one unit per started KB of each item); a
throttled answer pauses every writer, not only the one it answered.

How many requests are in flight adapts to throttling (AIMD): it starts at 4,
grows by one after as many answers without throttling as are in flight, and
halves on a throttled answer or one leaving items unprocessed, never above
--writers: the writers keep the table as busy as its capacity allows without
a pile of refused requests. A throttled batch whose items share one
partition key (a large item collection: DynamoDB takes 1 000 write units a
second for one key) goes on in a lane of its own while the writers take the
next batches. --create-table --warm-throughput WRITES[,READS]
creates the table warm, able to take that many units a second at once
(CreateTable's WarmThroughput; DynamoDB Local takes it and enforces nothing).

On SIGINT or SIGTERM, or when the run fails, the writers wait for the
answers to their requests in flight (a few seconds at most) and the report
counts exactly the items DynamoDB acknowledged; it says the table is
partial. The exit status is then 130 (interrupted) or 1 or 3.

It shows progress on stderr (--progress: a bar per entity with percent and
ETA on a terminal, a line every --progress-interval otherwise, or JSON
lines), with totals from the source's row estimates, or exact ones with
--exact-counts, and prints a summary to stdout; the exit status is 0 only if
every row was written or, within --max-rejects, rejected.

Resume: while it writes, migrate keeps a checkpoint (--checkpoint, by
default <table>.remodel-checkpoint.json), saved every 2 seconds and when the
run stops: per entity, the source key up to which every row's item is
acknowledged by DynamoDB or the row rejected. A run that succeeds removes
it. After a crash, kill -9, SIGINT or a failure, migrate --resume (same
mapping, source and table; refused otherwise) takes over the interrupted
run's lock, reads a new snapshot, and writes only the rows after each
entity's checkpoint key; it appends to the interrupted run's rejects file
without listing a row twice, and its report counts the whole job. It reads
the settled rows' keys again (nothing is written for them) for the
collision check and to report, or with --delete-stale delete, the items no
source row has any more. Rows changed before the checkpoint key since the
interrupted run are not rewritten: verify finds them.

Follow: with --follow, migrate starts the copy at a point of the source's
history (PostgreSQL: a publication of the mapped tables and a logical
replication slot, --slot and --publication, whose exported snapshot the copy
reads; MySQL/MariaDB: the snapshot's row-binlog position, saved in the
checkpoint), and after the copy applies every change committed
since, in batches of whole transactions (each touched row read again by key
and rendered as the copy renders it; stale item keys deleted), until SIGINT or
SIGTERM, which stop it cleanly with exit status 0 and a cutover report. Its
lag (source and applied positions, seconds behind, changes/s) is a live line
under the bars, or a line (--progress plain) or the "follow" object of a JSON
line (--progress json) every --progress-interval. --follow --resume goes on from the slot
after any stop; remodel follow-cleanup drops the slot when the migration is
over. PostgreSQL needs wal_level=logical, the REPLICATION privilege and
REPLICA IDENTITY FULL on tables whose item keys read columns outside their
primary key; MySQL a ROW binlog with full row images and the replication
privileges. Entities from views and queries are synchronised by a diff pass
when the follower stops (docs/cutover.md).

S3 import (--to s3://bucket/prefix/): instead of writing into a table,
migrate writes every item as a line of ImportTable's DYNAMODB_JSON format
into gzip (or --compression zstd) objects of at most --object-size MiB of
JSON and --object-items items under the prefix, uploaded through the S3
transfer manager, the items of each batch dealt over one open object per
writer; then a manifest beside the prefix (orders/ has
orders.remodel-manifest.json): the objects with
their items, sizes and SHA-256, and the table definition. The key
collision check always runs (ImportTable silently keeps one of two items
with one key); no table, no lock item; the prefix must be empty (but for
sibling shards' objects: --shard). The
checkpoint moves only past uploaded objects: --resume keeps every object
uploaded and writes no item twice. --import then has DynamoDB create the
table from the objects (keys, global indexes, billing), waits with
progress, and enables TTL; refused when the table exists. A mapping with a
local index is refused (ImportTable cannot create one). S3 is reached
through the standard AWS chain (--profile, --region, AWS_ENDPOINT_URL_S3
with path-style addressing for S3-compatible servers); every request has
--request-timeout. --to file:///abs/dir/prefix/ (an absolute path) writes
the same objects and manifest into a local directory instead
(/abs/dir/prefix/ and /abs/dir/prefix.remodel-manifest.json; /abs/dir must
exist), each file written whole or not at all, with the same prefix check
and --resume; --import is refused (ImportTable reads S3: copy the directory
with its manifest to an S3 prefix first), and so are a checkpoint or
rejects file under the prefix.

Null sink (--to null:): migrate reads every row of the snapshot, renders
it, checks its key (the collision check runs as into a table) and counts its
item, but writes it nowhere: no DynamoDB connection, no table, lock,
checkpoint or follower. The report says so. --follow, --resume, --checkpoint,
the table's flags, --rate-limit, --shard and the S3 flags are refused, each
with its reason. It measures remodel's own cost without a store's (make
bench's null sink), or tries a mapping on every row of the source.

Sharded runs (--shard i/n, 1-based: 1/3, 2/3, 3/3): n processes on any
machines write one table at once. Each splits every entity into the same
--ranges key ranges and reads only its own share of them: the first shard
records the split (every range's boundaries) in the table's split plan
item, and the others read the recorded ranges even if the source changed
since; a shard given another --ranges, mapping, n or --job is refused
(exit status 3) while the plan is in use, and the last shard to finish
removes it. Give the shards of a job one --job NAME (the Kubernetes Job's
uid, the AWS Batch array job's id), so that none adopts a plan another job
left behind. Each shard has its own lock item, its default
checkpoint and rejects file name the shard
(<table>.shard-2-of-3.remodel-checkpoint.json), and --resume continues
that shard alone. --create-table
from several shards at once: one creates the table, the others wait for it
and check its keys and indexes. A shard neither refuses a table holding
items nor looks for stray items: run verify once every shard is done. With
a Kubernetes Indexed Job: --shard $((JOB_COMPLETION_INDEX+1))/n; an AWS
Batch array job: --shard $((AWS_BATCH_JOB_ARRAY_INDEX+1))/n
(examples/sharding). remodel status --checkpoint 'GLOB' shows every
shard's progress. With --to, each shard writes its own objects
(shard-2-of-3-...) under the one prefix and its own manifest beside it
(orders.shard-2-of-3.remodel-manifest.json); a new shard accepts only its
siblings' objects there, and its manifest names its split plan's digest;
--import is refused in a shard: once all are done, verify --files checks
every shard's objects (duplicate keys across shards and manifests of
different splits included), and migrate --to URL --import --shards-done n
imports them, refusing manifests of different splits. With --to and
--follow, each shard keeps the changes from its own snapshot (one slot
for the job on PostgreSQL) and names its start in its manifest; the last
shard given --import (or migrate --to URL --import --shards-done n
--follow) imports and follows from the earliest start. Not with
--delete-stale, nor with --follow into a table.

Unless GOGC or GOMEMLIMIT is set, migrate collects its heap when it
reaches a soft memory limit (GOGC=off) of 144 MiB less --key-check-memory
(80 MiB by default; at least 64 MiB): its peak memory is then about the
same at a million rows as at a hundred million (about 100 MiB; 165 MiB
with the key collision check, which holds --key-check-memory from the
start).`

// migrateExamples are the examples migrate's --help shows.
const migrateExamples = `  remodel migrate --source $DSN -m mapping.yaml --create-table
  remodel migrate --source $DSN -m mapping.yaml --resume          # after a crash or Ctrl-C
  remodel migrate --source $DSN -m mapping.yaml --table orders_v2 --allow-non-empty --delete-stale
  remodel migrate --source $DSN -m mapping.yaml --create-table --follow   # then follow-cleanup
  remodel migrate --source $DSN -m mapping.yaml --to s3://bucket/orders/ --import
  remodel migrate --source $DSN -m mapping.yaml --to null:         # every row rendered and checked, nothing written
  remodel migrate --source $DSN -m mapping.yaml --shard 2/3 --job nightly-42
  remodel migrate --source $DSN -m mapping.yaml --output json --output-file markdown=report.md`
