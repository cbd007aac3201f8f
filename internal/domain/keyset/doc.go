// Package keyset owns an exact set of byte strings (a table's item keys)
// whose memory does not grow with the number of keys: the key collision
// check of migrate and of preview --analyze asks it whether a key was seen
// before.
//
// Every key added is appended to a log file, exactly. In memory there are
// only a Bloom filter and a hash table of the keys added last, both
// outside the Go heap, within Options.Memory: the table a quarter of it,
// the filter the rest from the first key on, so that what the set holds
// does not depend on how many keys it is given. Its pages are taken as
// they are first written: past some tens of thousands of keys nearly
// every one is (a page holds 128 of the filter's blocks), and a trial
// run's memory is then what a run of a hundred million keys will hold
// (but for the sparse indexes below).
// The filter answers "certainly new" for almost every new key, at no cost
// but a memory read; the table, when half full, is written out as a run
// (a file of the keys' 64-bit hashes and log offsets, sorted by hash), and
// runs are merged four at a time so that there are few. A key the filter
// cannot clear is looked up in the table and in each run (one page read of
// each, found through a sparse index of 8 bytes for every 256 keys), and
// every entry with its hash is compared byte for byte with the log: never
// a false "seen", never a missed one.
//
// What grows with the keys is on disk (the log, about 9 bytes a key plus
// the key, and the runs, 16 bytes a key) and the runs' sparse indexes (in
// memory, 1/32 of a byte a key: 3 MB at 100 million keys). The price of a
// small Memory is time: the filter's false positives rise as the keys
// outgrow it (Stats.Lookups counts the keys it could not clear).
//
// A Set is used by one goroutine at a time.
//
// The package also owns the spills that compare two sides of many keys
// (the keys written with the table's, the table's with those the source
// claims): a Spill writes records led by a key's digest to temporary
// files in buckets by the digest, and Probe looks each record of one
// spill up in the bare digests of another, a bucket at a time, with at
// most DefaultProbeLimit digests in memory (a larger bucket is split again
// by the digest's next byte, on disk).
package keyset
