package migrate

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// MaxShards is the largest n of --shard i/n.
const MaxShards = 10000

// Shard is one of the Count processes of a sharded job (migrate --shard
// i/n): Index is 1-based, 1 <= Index <= Count. The zero Shard is an
// unsharded run.
//
// Every shard splits every entity (or shared read) into the same key
// ranges (--ranges, from the source's keys: source's KeyBoundaries; the
// job's split plan, splitplan.go, makes them one across the shards'
// snapshots) and reads only the ranges it owns (owns):
// range j of the read named r belongs to shard (fnv32a(r)+j) mod Count + 1,
// so that the ranges of every read are dealt round-robin over the shards
// and the first ranges of different entities start at different shards.
// Each shard has its own lock item (mapping.Table.ShardLockKey), checkpoint
// and rejects file.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" (1 <= i <= n <= MaxShards).
func ParseShard(s string) (Shard, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, fmt.Errorf("%q is not i/n (shard i of n, 1-based: 1/3, 2/3, 3/3)", s)
	}
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	switch {
	case err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("%q is not i/n with two whole numbers (shard i of n, 1-based: 1/3, 2/3, 3/3)", s)
	case n < 1 || n > MaxShards:
		return Shard{}, fmt.Errorf("%q: the number of shards must be from 1 to %d", s, MaxShards)
	case i < 1 || i > n:
		return Shard{}, fmt.Errorf("%q: the shard must be from 1 to %d (shards are numbered from 1; JOB_COMPLETION_INDEX and AWS_BATCH_JOB_ARRAY_INDEX count from 0: add 1)", s, n)
	}
	return Shard{Index: i, Count: n}, nil
}

// Sharded says whether the run is one shard of a sharded job.
func (s Shard) Sharded() bool { return s.Count > 0 }

func (s Shard) String() string {
	if !s.Sharded() {
		return ""
	}
	return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count)
}

// FileSuffix is the part of a shard's default file names that tells the
// shards apart: "shard-2-of-3".
func (s Shard) FileSuffix() string {
	return "shard-" + strconv.Itoa(s.Index) + "-of-" + strconv.Itoa(s.Count)
}

// owns says whether range j (0-based, in key order) of the read named
// read belongs to this shard; every range belongs to exactly one shard of
// the job, and an unsharded run owns them all.
func (s Shard) owns(read string, j int) bool {
	if !s.Sharded() {
		return true
	}
	return shardOf(read, j, s.Count) == s.Index
}

// shardOf is the shard (1-based) of range j of the read named read among n.
func shardOf(read string, j, n int) int {
	h := fnv.New32a()
	h.Write([]byte(read))
	return int((uint64(h.Sum32())+uint64(j))%uint64(n)) + 1
}
