package keyset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
)

// SpillBuckets is how many files a Spill splits its records into.
const SpillBuckets = 128

// Spill holds records on disk, each led by a 16-byte digest, in
// SpillBuckets files by the digest's first byte, so that two sides (the
// keys written and the keys in the table; the keys scanned and the keys
// claimed) can be compared one bucket at a time, with a bucket's digests
// sorted in memory (Probe: 16 bytes a key divided by SpillBuckets, and a
// bucket of more than Probe's limit split again). The files are created
// in a directory of their own and unlinked at once: they live on through
// their descriptors only, so a process killed with -9 leaves nothing on
// disk, and Close frees their space. Add is safe for concurrent use; the
// buckets are read once the adding is over.
//
// A spill made by NewCompressedSpill writes each bucket as an S2 stream
// (klauspost/compress/s2, in blocks of spillBlock bytes): for records
// that hold text (keys), which it shrinks at a small cost in CPU; bare
// digests do not shrink.
type Spill struct {
	what       string // what the records are, for errors
	compressed bool
	mu         sync.Mutex
	files      []*spillFile // nil until the first Add
	err        error        // the first failure to write
	n          int64        // records added
	at         int          // the digest byte that picks a record's bucket
	ways       int          // how many buckets: SpillBuckets unless NewCompressedSpillBy says
	counts     []int64      // records added, by bucket
}

type spillFile struct {
	f *os.File
	w spillWriter
}

// spillWriter is a bucket's buffered writer: a bufio.Writer, or an S2
// stream's writer.
type spillWriter interface {
	io.Writer
	Flush() error
}

// spillBlock is the block size of a compressed spill's S2 streams: each
// bucket's writer holds about twice this in memory.
const spillBlock = 16 << 10

// NewSpill is an empty spill of records described by what (for errors:
// "the digests of the keys written").
func NewSpill(what string) *Spill { return newSpill(what, false, 0, SpillBuckets) }

// NewCompressedSpill is NewSpill with its buckets compressed on disk.
func NewCompressedSpill(what string) *Spill { return newSpill(what, true, 0, SpillBuckets) }

// NewCompressedSpillBy is NewCompressedSpill of ways buckets (1 to
// SpillBuckets), whose records go to buckets by their digest's byte at (0
// to 15) instead of its first: the records of one bucket of a spill,
// added to one of these by the next byte, spread over its buckets again
// (a bucket too large to join in memory, split).
func NewCompressedSpillBy(what string, at, ways int) *Spill {
	return newSpill(what, true, at, min(max(ways, 1), SpillBuckets))
}

func newSpill(what string, compressed bool, at, ways int) *Spill {
	return &Spill{what: what, compressed: compressed, at: at, ways: ways, counts: make([]int64, ways)}
}

// Buckets is how many buckets the spill has.
func (s *Spill) Buckets() int { return s.ways }

// Add appends a record: the digest d, then rest as it is (the caller
// encodes it so that it can read it back). A failure is kept: Add and Err
// return it from then on.
func (s *Spill) Add(d [16]byte, rest []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.files == nil {
		if s.files, s.err = s.open(); s.err != nil {
			return s.err
		}
	}
	b := int(d[s.at]) % s.ways
	w := s.files[b].w
	s.n++
	s.counts[b]++
	w.Write(d[:])
	if _, err := w.Write(rest); err != nil {
		s.err = fmt.Errorf("writing %s: %w", s.what, err)
	}
	return s.err
}

// Len is how many records were added.
func (s *Spill) Len() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// BucketLen is how many records bucket i (below Buckets) holds.
func (s *Spill) BucketLen(i int) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[i]
}

// Err is the first failure to write, if any.
func (s *Spill) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Spill) open() ([]*spillFile, error) {
	dir, err := os.MkdirTemp("", "remodel-spill-*")
	if err != nil {
		return nil, fmt.Errorf("a directory for %s: %w", s.what, err)
	}
	defer os.RemoveAll(dir)
	fs := make([]*spillFile, s.ways)
	for i := range fs {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("bucket-%03d", i)))
		if err != nil {
			for _, b := range fs[:i] {
				b.f.Close()
			}
			return nil, fmt.Errorf("a file for %s: %w", s.what, err)
		}
		fs[i] = &spillFile{f: f, w: bufio.NewWriterSize(f, 4<<10)}
		if s.compressed {
			fs[i].w = s2.NewWriter(f, s2.WriterBlockSize(spillBlock), s2.WriterConcurrency(1))
		}
	}
	return fs, nil
}

// Bucket is a reader of bucket i's records (i below Buckets), in the
// order they were added; nil when nothing was added.
func (s *Spill) Bucket(i int) (*bufio.Reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.files == nil {
		return nil, s.err
	}
	b := s.files[i]
	if err := b.w.Flush(); err != nil {
		s.err = fmt.Errorf("writing %s: %w", s.what, err)
		return nil, s.err
	}
	st, err := b.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.what, err)
	}
	var r io.Reader = io.NewSectionReader(b.f, 0, st.Size())
	if s.compressed {
		r = s2.NewReader(r, s2.ReaderMaxBlockSize(spillBlock))
	}
	return bufio.NewReaderSize(r, 64<<10), nil
}

// Size is how many bytes the spill holds on disk (its buffers written
// out first).
func (s *Spill) Size() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	var n int64
	for _, b := range s.files {
		if err := b.w.Flush(); err != nil {
			s.err = fmt.Errorf("writing %s: %w", s.what, err)
			return 0, s.err
		}
		st, err := b.f.Stat()
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", s.what, err)
		}
		n += st.Size()
	}
	return n, nil
}

// Digests reads bucket i of a spill whose records are bare digests (Add
// with no rest), sorted.
func (s *Spill) Digests(i int) ([][16]byte, error) {
	r, err := s.Bucket(i)
	if r == nil || err != nil {
		return nil, err
	}
	var ds [][16]byte
	for {
		var d [16]byte
		if _, err := io.ReadFull(r, d[:]); err != nil {
			if err == io.EOF {
				break
			}
			return nil, fmt.Errorf("reading %s: %w", s.what, err)
		}
		ds = append(ds, d)
	}
	slices.SortFunc(ds, CompareDigests)
	return ds, nil
}

// CompareDigests orders digests as Digests sorts them.
func CompareDigests(a, b [16]byte) int { return bytes.Compare(a[:], b[:]) }

// Close closes the files, which frees their space.
func (s *Spill) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.files {
		b.f.Close()
	}
	s.files = nil
}
