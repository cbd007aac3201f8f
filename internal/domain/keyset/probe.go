package keyset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
)

// DefaultProbeLimit is how many digests Probe holds in memory at once, at
// most: 256 Ki of them, 4 MiB. A bucket of the spills holds
// 1/SpillBuckets of the digests, so what is held stops growing from about
// 33 million of them.
const DefaultProbeLimit = 1 << 18

// probeLevels is how many digest bytes may pick a bucket: a bucket is split
// at most twice, each time into buckets of half the limit on average (up
// to SpillBuckets of them), enough for 10^12 digests. A bucket past the
// limit at the last level (one digest many times over) is held as it is.
const probeLevels = 3

// A RecordReader reads one record of a spill from r: its digest, and the
// rest exactly as Add was given it (valid until the next read). It returns
// io.EOF at the end of the records, and only there.
type RecordReader func(r *bufio.Reader) (d [16]byte, rest []byte, err error)

// Probe calls fn for every record of recs with whether its digest is one
// of those in keys, a spill of bare digests (Add with no rest). Both
// spills must have been made alike (NewSpill or NewCompressedSpill). It
// goes bucket by bucket, with the bucket's digests of keys sorted in
// memory, and holds at most limit of them (DefaultProbeLimit when limit is
// 0 or less): a bucket of more is split first by the digests' next byte,
// both sides written to spills of their own. The records of one digest
// are given in the order they were added; records of different digests
// may come in another order once a bucket is split.
func Probe(keys, recs *Spill, read RecordReader, limit int64, fn func(d [16]byte, rest []byte, found bool) error) (ProbeStats, error) {
	if limit <= 0 {
		limit = DefaultProbeLimit
	}
	for _, s := range []*Spill{keys, recs} {
		if err := s.Err(); err != nil {
			return ProbeStats{}, err
		}
	}
	if keys.at != recs.at || keys.ways != recs.ways {
		return ProbeStats{}, fmt.Errorf("probing %s with %s: the spills' buckets differ", recs.what, keys.what)
	}
	p := &prober{read: read, limit: limit, fn: fn}
	for i := range keys.ways {
		if err := p.bucket(keys, recs, i); err != nil {
			return p.ProbeStats, err
		}
	}
	return p.ProbeStats, nil
}

// ProbeStats is what a Probe held and split.
type ProbeStats struct {
	Held   int64 // the most digests held at once
	Split  int   // buckets split
	Levels int   // digest bytes that picked the buckets last held (1: none split)
}

type prober struct {
	read  RecordReader
	limit int64
	fn    func(d [16]byte, rest []byte, found bool) error
	ProbeStats
}

// bucket probes bucket i of recs with bucket i of keys, split first when
// it holds more digests than the limit.
func (p *prober) bucket(keys, recs *Spill, i int) error {
	if n := keys.BucketLen(i); n > p.limit && keys.at+1 < probeLevels {
		return p.split(keys, recs, i, n)
	}
	ds, err := keys.Digests(i)
	if err != nil {
		return err
	}
	p.Held, p.Levels = max(p.Held, int64(len(ds))), max(p.Levels, keys.at+1)
	return each(recs, i, p.read, func(d [16]byte, rest []byte) error {
		_, found := slices.BinarySearchFunc(ds, d, CompareDigests)
		return p.fn(d, rest, found)
	})
}

// split writes bucket i of both spills to two spills of their own by the
// next digest byte, in as many buckets as make each hold half the limit,
// and probes their buckets one by one.
func (p *prober) split(keys, recs *Spill, i int, n int64) error {
	at, ways := keys.at+1, int(min((2*n+p.limit-1)/p.limit, SpillBuckets))
	p.Split++
	subKeys := newSpill(keys.what, keys.compressed, at, ways)
	defer subKeys.Close()
	if err := each(keys, i, readDigest, func(d [16]byte, _ []byte) error { return subKeys.Add(d, nil) }); err != nil {
		return err
	}
	subRecs := newSpill(recs.what, recs.compressed, at, ways)
	defer subRecs.Close()
	if err := each(recs, i, p.read, func(d [16]byte, rest []byte) error { return subRecs.Add(d, rest) }); err != nil {
		return err
	}
	for b := range ways {
		if err := p.bucket(subKeys, subRecs, b); err != nil {
			return err
		}
	}
	return nil
}

// readDigest reads a record of a spill of bare digests.
func readDigest(r *bufio.Reader) (d [16]byte, _ []byte, err error) {
	_, err = io.ReadFull(r, d[:])
	return d, nil, err
}

// each calls fn for every record of bucket i of s, read by read.
func each(s *Spill, i int, read RecordReader, fn func(d [16]byte, rest []byte) error) error {
	r, err := s.Bucket(i)
	if err != nil || r == nil {
		return err
	}
	for {
		d, rest, err := read(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading %s: %w", s.what, err)
		}
		if err := fn(d, rest); err != nil {
			return err
		}
	}
}
