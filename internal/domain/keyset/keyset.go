package keyset

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"slices"
	"sort"
	"unsafe"
)

// Options size a Set.
type Options struct {
	// Memory is the bytes the set holds in memory whatever the number of
	// keys, its filter and table together (the runs' sparse indexes come
	// on top: 1/32 of a byte a key); 0: DefaultMemory; at least MinMemory.
	Memory int64
	// Dir is where its files are made ("": os.TempDir()). They are removed
	// as soon as they are made and used through their descriptors, so a
	// process killed with -9 leaves none behind.
	Dir string
}

const (
	// DefaultMemory is Options.Memory when it is 0.
	DefaultMemory = 64 << 20
	// MinMemory is the least Options.Memory.
	MinMemory = 64 << 10

	fanIn       = 4   // runs of one level merged into one of the next
	pageEntries = 256 // run entries a page (the sparse index has one hash for each)
	entrySize   = 16  // a run entry: hash, log offset
	pageSize    = pageEntries * entrySize
)

// Stats describe a set.
type Stats struct {
	Keys        int64 // keys in the set
	MemoryBytes int64 // what it holds in memory: filter, table, sparse indexes
	DiskBytes   int64 // its files: the log and the runs
	Lookups     int64 // keys the filter could not clear, looked up in the table and the runs
	Runs        int   // runs on disk now
}

// Set is an exact set of byte strings in bounded memory (see the package
// comment). Keys come with their 64-bit hash: equal keys must have equal
// hashes, and a good hash (hash/maphash) keeps the filter's answers sharp.
type Set struct {
	dir string

	filter     []uint32     // the Bloom filter: blocks of 8 words
	freeFilter func() error // gives its memory back
	slots      []slot       // the table of the keys added last; a power of 2
	n          int          // slots in use; written out as a run at len(slots)/2
	freeSlots  func() error

	log    *os.File
	w      *bufio.Writer
	logLen int64 // bytes appended to the log, some maybe still in w

	runs []*run
	free []*os.File // files of merged runs, emptied when taken again
	page []byte     // scratch for reading a run's page
	rec  []byte     // scratch for reading a log record

	stats Stats
}

// slot is a table entry, and a run entry: a key's hash and its log offset
// plus 1 (0: a free slot).
type slot struct{ h, off uint64 }

// New returns an empty set.
func New(o Options) (*Set, error) {
	mem := o.Memory
	if mem == 0 {
		mem = DefaultMemory
	}
	mem = max(mem, MinMemory)
	// A quarter for the table (a power of 2 of 16-byte slots, at most
	// half full), the rest for the filter (32-byte blocks).
	slots := 1 << (63 - bits.LeadingZeros64(uint64(mem/4/16)))
	// The filter has all of its share from the start, so that what the
	// set holds in memory does not depend on how many keys it is given: a
	// trial on a part of the rows shows the memory of the whole run. (Its
	// pages are mapped as they are first written, 2 MiB at a time where
	// the system gives huge pages: a set of a few keys touches only some
	// of them.)
	s := &Set{dir: o.Dir}
	tb, free, err := alloc(slots * 16)
	if err != nil {
		return nil, err
	}
	s.slots, s.freeSlots = unsafe.Slice((*slot)(unsafe.Pointer(unsafe.SliceData(tb))), slots), free
	fb, freeFilter, err := alloc(int((mem - int64(slots)*16) / 32 * 32))
	if err != nil {
		free()
		return nil, err
	}
	s.filter, s.freeFilter = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(fb))), len(fb)/4), freeFilter
	return s, nil
}

// Add adds key (h its hash) and reports whether the set held it already;
// then it is not added again.
func (s *Set) Add(h uint64, key []byte) (bool, error) {
	if s.filterHas(h) {
		s.stats.Lookups++
		found, err := s.lookup(h, key)
		if err != nil || found {
			return found, err
		}
	}
	return false, s.Insert(h, key)
}

// Insert adds key (h its hash) without asking whether the set holds it:
// for a key known to be new, or known to be in (a second copy changes no
// answer).
func (s *Set) Insert(h uint64, key []byte) error {
	if s.log == nil {
		f, err := s.tempFile("remodel-keys-*")
		if err != nil {
			return err
		}
		s.log, s.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	off := s.logLen
	var head [8 + binary.MaxVarintLen64]byte
	binary.LittleEndian.PutUint64(head[:8], h)
	n := 8 + binary.PutUvarint(head[8:], uint64(len(key)))
	if _, err := s.w.Write(head[:n]); err != nil {
		return fmt.Errorf("keyset: writing the key log: %w", err)
	}
	if _, err := s.w.Write(key); err != nil {
		return fmt.Errorf("keyset: writing the key log: %w", err)
	}
	s.logLen += int64(n + len(key))
	s.filterAdd(h)
	s.tableInsert(h, uint64(off)+1)
	s.stats.Keys++
	if s.n >= len(s.slots)/2 {
		return s.writeRun()
	}
	return nil
}

// Stats returns the set's figures now.
func (s *Set) Stats() Stats {
	st := s.stats
	st.MemoryBytes = int64(len(s.filter))*4 + int64(len(s.slots))*16 + int64(cap(s.page)) + int64(cap(s.rec))
	st.MemoryBytes += s.sparse()
	st.DiskBytes = s.logLen
	for _, r := range s.runs {
		st.DiskBytes += r.n * entrySize
	}
	st.Runs = len(s.runs)
	return st
}

// sparse is the memory the runs' sparse indexes hold.
func (s *Set) sparse() int64 {
	var n int64
	for _, r := range s.runs {
		n += int64(cap(r.first)) * 8
	}
	return n
}

// Close gives back the set's memory and closes its files (removed when
// made), freeing their space. The set may not be used after.
func (s *Set) Close() error {
	var errs []error
	if s.log != nil {
		errs = append(errs, s.log.Close())
		s.log = nil
	}
	for _, r := range s.runs {
		errs = append(errs, r.f.Close())
	}
	for _, f := range s.free {
		errs = append(errs, f.Close())
	}
	s.runs, s.free = nil, nil
	for _, f := range []func() error{s.freeFilter, s.freeSlots} {
		if f != nil {
			errs = append(errs, f())
		}
	}
	s.freeFilter, s.freeSlots, s.filter, s.slots = nil, nil, nil, nil
	return errors.Join(errs...)
}

func (s *Set) tempFile(pattern string) (*os.File, error) {
	f, err := os.CreateTemp(s.dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("keyset: making a file: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("keyset: making a file: %w", err)
	}
	return f, nil
}

// The filter: a split block Bloom filter (as Parquet's): a key sets one
// bit in each of the 8 words of one 32-byte block, so a question costs one
// cache line. Its hash is the key's, mixed, so that bits the caller used
// (to pick a shard, say) still spread keys over the blocks.

var salts = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

func (s *Set) block(h uint64) ([]uint32, uint32) {
	m := mix(h)
	blocks := uint64(len(s.filter) / 8)
	i := (m >> 32) * blocks >> 32
	return s.filter[i*8 : i*8+8 : i*8+8], uint32(m)
}

func (s *Set) filterAdd(h uint64) {
	b, x := s.block(h)
	for i := range 8 {
		b[i] |= 1 << (x * salts[i] >> 27)
	}
}

func (s *Set) filterHas(h uint64) bool {
	b, x := s.block(h)
	for i := range 8 {
		if b[i]&(1<<(x*salts[i]>>27)) == 0 {
			return false
		}
	}
	return true
}

// The table: open addressing, linear probing, at most half full.

func (s *Set) tableInsert(h, off uint64) {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if s.slots[i].off == 0 {
			s.slots[i] = slot{h, off}
			s.n++
			return
		}
	}
}

// lookup reports whether the log holds key at an offset the table or a run
// gives for h.
func (s *Set) lookup(h uint64, key []byte) (bool, error) {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; s.slots[i].off != 0; i = (i + 1) & mask {
		if s.slots[i].h == h {
			if eq, err := s.logHas(s.slots[i].off-1, h, key); eq || err != nil {
				return eq, err
			}
		}
	}
	for _, r := range s.runs {
		found, err := s.runHas(r, h, key)
		if found || err != nil {
			return found, err
		}
	}
	return false, nil
}

// logHas reports whether the log's record at off is key's (hash h).
func (s *Set) logHas(off uint64, h uint64, key []byte) (bool, error) {
	var lenBuf [binary.MaxVarintLen64]byte
	need := 8 + binary.PutUvarint(lenBuf[:], uint64(len(key))) + len(key)
	end := int64(off) + int64(need)
	if end > s.logLen {
		return false, nil // a record of key's length would end past the log
	}
	if end > s.logLen-int64(s.w.Buffered()) {
		if err := s.w.Flush(); err != nil {
			return false, fmt.Errorf("keyset: writing the key log: %w", err)
		}
	}
	if cap(s.rec) < need {
		s.rec = make([]byte, need)
	}
	rec := s.rec[:need]
	if _, err := s.log.ReadAt(rec, int64(off)); err != nil {
		return false, fmt.Errorf("keyset: reading the key log: %w", err)
	}
	if binary.LittleEndian.Uint64(rec) != h {
		return false, nil
	}
	n, w := binary.Uvarint(rec[8:])
	if w <= 0 || n != uint64(len(key)) {
		return false, nil
	}
	return bytes.Equal(rec[8+w:], key), nil
}

// A run: the table written out, sorted by hash, with the first hash of
// each page in memory.
type run struct {
	f     *os.File
	n     int64 // entries
	first []uint64
	level int
}

// runHas looks key up in a run: the pages whose hashes may include h (one,
// but for equal hashes across a page boundary), then the log.
func (s *Set) runHas(r *run, h uint64, key []byte) (bool, error) {
	end := sort.Search(len(r.first), func(i int) bool { return r.first[i] > h })
	if end == 0 {
		return false, nil
	}
	start := sort.Search(len(r.first), func(i int) bool { return r.first[i] >= h })
	if start > 0 {
		start--
	}
	if s.page == nil {
		s.page = make([]byte, pageSize)
	}
	for p := start; p < end; p++ {
		n := min(int64(pageEntries), r.n-int64(p)*pageEntries)
		page := s.page[:n*entrySize]
		if _, err := r.f.ReadAt(page, int64(p)*pageSize); err != nil {
			return false, fmt.Errorf("keyset: reading a run: %w", err)
		}
		at := func(i int) slot { return decodeEntry(page[i*entrySize:]) }
		for i := sort.Search(int(n), func(i int) bool { return at(i).h >= h }); i < int(n) && at(i).h == h; i++ {
			if eq, err := s.logHas(at(i).off-1, h, key); eq || err != nil {
				return eq, err
			}
		}
	}
	return false, nil
}

// writeRun writes the table out as a run (its entries gathered at its
// start and sorted there: no other memory), empties it, and merges the
// runs of the lowest level when there are fanIn of them.
func (s *Set) writeRun() error {
	j := 0
	for _, x := range s.slots {
		if x.off != 0 {
			s.slots[j] = x
			j++
		}
	}
	es := s.slots[:j]
	slices.SortFunc(es, func(a, b slot) int { return cmp.Compare(a.h, b.h) })
	defer func() {
		clear(s.slots)
		s.n = 0
	}()
	r, err := s.newRun(0, func(put func(slot) error) error {
		for _, e := range es {
			if err := put(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.runs = append(s.runs, r)
	for {
		k := len(s.runs)
		if k < fanIn || s.runs[k-fanIn].level != s.runs[k-1].level {
			return nil
		}
		merged, err := s.merge(s.runs[k-fanIn:])
		if err != nil {
			return err
		}
		s.runs = append(s.runs[:k-fanIn], merged)
	}
}

// newRun writes a run of the entries fill puts, in order, into a file
// merged runs left (emptied), or a new one.
func (s *Set) newRun(level int, fill func(put func(slot) error) error) (*run, error) {
	var f *os.File
	if n := len(s.free); n > 0 {
		f, s.free = s.free[n-1], s.free[:n-1]
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, fmt.Errorf("keyset: emptying a run's file: %w", err)
		}
	} else {
		nf, err := s.tempFile("remodel-keyrun-*")
		if err != nil {
			return nil, err
		}
		f = nf
	}
	r := &run{f: f, level: level}
	w := bufio.NewWriterSize(io.NewOffsetWriter(f, 0), 64<<10)
	var e [entrySize]byte
	err := fill(func(x slot) error {
		if r.n%pageEntries == 0 {
			r.first = append(r.first, x.h)
		}
		encodeEntry(e[:], x)
		r.n++
		_, err := w.Write(e[:])
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("keyset: writing a run: %w", err)
	}
	r.first = slices.Clip(r.first)
	return r, nil
}

// A run entry on disk: the hash, then the log offset plus 1, little-endian.
func encodeEntry(b []byte, x slot) {
	binary.LittleEndian.PutUint64(b, x.h)
	binary.LittleEndian.PutUint64(b[8:], x.off)
}

func decodeEntry(b []byte) slot {
	return slot{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}
}

// runReader reads a run's entries in order (merges).
type runReader struct {
	br *bufio.Reader
	e  [entrySize]byte
}

func (r *run) reader() *runReader {
	return &runReader{br: bufio.NewReaderSize(io.NewSectionReader(r.f, 0, r.n*entrySize), 64<<10)}
}

// next returns the next entry; false at the end.
func (rr *runReader) next() (slot, bool, error) {
	if _, err := io.ReadFull(rr.br, rr.e[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return slot{}, false, nil
		}
		return slot{}, false, fmt.Errorf("keyset: reading a run: %w", err)
	}
	return decodeEntry(rr.e[:]), true, nil
}

// merge merges runs into one of the next level and closes them.
func (s *Set) merge(runs []*run) (*run, error) {
	type cursor struct {
		rr  *runReader
		cur slot
		ok  bool
	}
	cs := make([]*cursor, len(runs))
	next := func(c *cursor) (err error) {
		c.cur, c.ok, err = c.rr.next()
		return err
	}
	for i, r := range runs {
		cs[i] = &cursor{rr: r.reader()}
		if err := next(cs[i]); err != nil {
			return nil, err
		}
	}
	m, err := s.newRun(runs[0].level+1, func(put func(slot) error) error {
		for {
			var min *cursor
			for _, c := range cs {
				if c.ok && (min == nil || c.cur.h < min.cur.h) {
					min = c
				}
			}
			if min == nil {
				return nil
			}
			if err := put(min.cur); err != nil {
				return err
			}
			if err := next(min); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		s.free = append(s.free, r.f)
	}
	return m, nil
}
