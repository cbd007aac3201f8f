package objects

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/mapping"
)

// An object an interrupted run uploaded, and its checkpoint does not list,
// is kept, never rewritten: ReadBack reads it, and an item the resumed run
// renders again that such an object holds, line for line, is placed in
// it without being written again. An item whose row renders another line
// now (the row changed since) stops the run, unless Config.Followed:
// ImportTable would keep either of the two.

// line is an item of a read-back object: the SHA-256 of its line (the
// first 16 bytes) and its object's number and key.
type line struct {
	sum [16]byte
	obj uint64
	key string
}

// ReadBack downloads the object l of an earlier run, records its items by
// key, and numbers it (uploaded already): it returns its number and what
// it holds. Call it before the first Write.
func (s *Sink) ReadBack(ctx context.Context, l s3out.Listed) (uint64, sink.ObjectInfo, error) {
	url := s.cfg.Loc.URL(l.Key)
	f, err := os.CreateTemp("", "remodel-readback-*")
	if err != nil {
		return 0, sink.ObjectInfo{}, fmt.Errorf("objects: %w", err)
	}
	os.Remove(f.Name())
	defer f.Close()
	n, err := s.cfg.Store.Download(ctx, s.cfg.Loc.Bucket, l.Key, f)
	if err != nil {
		return 0, sink.ObjectInfo{}, fmt.Errorf("objects: reading back %s: %w", url, err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, n)); err != nil {
		return 0, sink.ObjectInfo{}, fmt.Errorf("objects: reading back %s: %w", url, err)
	}
	info := sink.ObjectInfo{Key: l.Key, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil)), ETag: l.ETag}
	id := s.begin()
	if err := s.index(io.NewSectionReader(f, 0, n), id, &info); err != nil {
		return 0, sink.ObjectInfo{}, err
	}
	s.markUploaded(id)
	s.mu.Lock()
	s.readBack++
	s.mu.Unlock()
	return id, info, nil
}

// index records the lines of object id, read from r, by their items' keys.
func (s *Sink) index(r io.Reader, id uint64, info *sink.ObjectInfo) error {
	url := s.cfg.Loc.URL(info.Key)
	zr, err := s.cfg.Comp.NewReader(r)
	if err != nil {
		return fmt.Errorf("objects: reading back %s: %w", url, err)
	}
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	t := s.cfg.Table
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lines == nil {
		s.lines = map[[16]byte]line{}
	}
	for sc.Scan() {
		text := append(sc.Bytes(), '\n')
		item, err := av.ParseImportLine(text)
		if err != nil {
			return fmt.Errorf("objects: reading back %s, line %d: %w", url, info.Items+1, err)
		}
		if _, ok := item[t.PK.Name]; !ok {
			return fmt.Errorf("objects: reading back %s, line %d: no %s", url, info.Items+1, t.PK.Name)
		}
		key := s.digest(item)
		if _, dup := s.lines[key]; dup {
			return fmt.Errorf("objects: the objects under %s hold the key %s twice", s.cfg.Loc, t.KeyString(item))
		}
		sum := sha256.Sum256(text)
		s.lines[key] = line{sum: [16]byte(sum[:16]), obj: id, key: info.Key}
		info.Items++
		info.Uncompressed += int64(len(text))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("objects: reading back %s: %w", url, err)
	}
	return nil
}

// digest is the digest of an item's table key.
func (s *Sink) digest(item map[string]types.AttributeValue) [16]byte {
	sk := ""
	if s.cfg.Table.SK != nil {
		sk = s.cfg.Table.SK.Name
	}
	return av.KeyDigest(item, s.cfg.Table.PK.Name, sk)
}

// fresh places the items of b that a read-back object holds in it, and
// returns the indexes of the others. It stops the run at an item whose key
// such an object holds with another line, unless Config.Followed (the
// object's line is kept; the follower brings it up to date).
func (s *Sink) fresh(b sink.Batch) ([]int, error) {
	idx := make([]int, 0, b.Len())
	s.mu.Lock()
	readBack := len(s.lines) > 0 // the items of read-back objects not met yet
	s.mu.Unlock()
	if !readBack {
		for i := range b.Len() {
			idx = append(idx, i)
		}
		return idx, nil
	}
	for i := range b.Len() {
		it := b.Item(i)
		d := s.digest(it.Value)
		s.mu.Lock()
		st, ok := s.lines[d]
		if ok {
			delete(s.lines, d)
		}
		s.mu.Unlock()
		if !ok {
			idx = append(idx, i)
			continue
		}
		text, _ := av.AppendImportLine(nil, it.Value)
		if sum := sha256.Sum256(text); [16]byte(sum[:16]) != st.sum {
			if !s.cfg.Followed {
				return nil, fmt.Errorf("objects: --resume: the item with key %s in %s, which the interrupted run uploaded, is not what its row (entity %s, %s) renders now: the row changed since, and ImportTable would keep either version; start over: delete the objects under %s and migrate without --resume",
					s.cfg.Table.KeyString(it.Value), s.cfg.Loc.URL(st.key), it.Entity, rowOf(b, i, s.cfg.Table, it), s.cfg.Loc)
			}
			s.older.Add(1) // kept: the follower applies the row's changes since
		}
		s.found.Add(1)
		s.acks.Placed(b, []int{i}, st.obj)
	}
	return idx, nil
}

// rowOf names item i's row: by the batch when it can (sink.Rows), else by
// the item's key.
func rowOf(b sink.Batch, i int, t *mapping.Table, it sink.Item) string {
	if r, ok := b.(sink.Rows); ok {
		return r.Row(i)
	}
	return t.KeyString(it.Value)
}
