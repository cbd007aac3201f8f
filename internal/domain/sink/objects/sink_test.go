package objects_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/internal/domain/sink/objects"
	"github.com/remodel-dev/remodel/mapping"
)

// batch is a test's batch; it names each item's row (sink.Rows).
type batch []sink.Item

func (b batch) Len() int             { return len(b) }
func (b batch) Item(i int) sink.Item { return b[i] }
func (b batch) Row(i int) string {
	return "row " + b[i].Value["PK"].(*types.AttributeValueMemberS).Value
}

// acks records what the sink tells, in order, and checks the contract as
// it is told: an item is placed once; no item of this run is placed in an
// object after it is uploaded.
type acks struct {
	t        *testing.T
	mu       sync.Mutex
	placed   map[string]uint64 // an item's PK: its object
	inObj    map[uint64]int    // items placed per object
	uploaded map[uint64]sink.ObjectInfo
	readBack map[uint64]bool // objects read back: placed in after their upload
}

func newAcks(t *testing.T) *acks {
	return &acks{t: t, placed: map[string]uint64{}, inObj: map[uint64]int{}, uploaded: map[uint64]sink.ObjectInfo{}, readBack: map[uint64]bool{}}
}

func (a *acks) Stored(sink.Batch, int, int) { a.t.Error("the objects sink called Stored") }
func (a *acks) Rejected(sink.Batch, int, string) error {
	a.t.Error("the objects sink rejected an item")
	return nil
}

func (a *acks) Placed(b sink.Batch, idx []int, obj uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, i := range idx {
		pk := b.Item(i).Value["PK"].(*types.AttributeValueMemberS).Value
		if o, dup := a.placed[pk]; dup {
			a.t.Errorf("%s placed twice, in %d and %d", pk, o, obj)
		}
		if _, up := a.uploaded[obj]; up && !a.readBack[obj] {
			a.t.Errorf("%s placed in object %d after its upload", pk, obj)
		}
		a.placed[pk] = obj
		a.inObj[obj]++
	}
}

func (a *acks) Uploaded(obj uint64, info sink.ObjectInfo) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, dup := a.uploaded[obj]; dup {
		a.t.Errorf("object %d uploaded twice", obj)
	}
	if int64(a.inObj[obj]) != info.Items {
		a.t.Errorf("object %d (%s) uploaded with %d items, %d placed in it", obj, info.Key, info.Items, a.inObj[obj])
	}
	a.uploaded[obj] = info
}

var table = &mapping.Table{PK: mapping.KeyAttr{Name: "PK", Type: "S"}}

func items(from, n int, v string) batch {
	var b batch
	for i := from; i < from+n; i++ {
		b = append(b, sink.Item{Entity: "e", Value: mapping.Item{"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("k%04d", i)}, "v": &types.AttributeValueMemberS{Value: v}}})
	}
	return b
}

func config(t *testing.T, dir string, run string) objects.Config {
	loc, err := s3out.Parse("file://" + dir + "/out/")
	if err != nil {
		t.Fatal(err)
	}
	return objects.Config{Store: s3out.Dir{}, Loc: loc, Comp: s3out.Gzip, Table: table, Run: run,
		Size: objects.MinSize, Items: 7, Slots: 3, Timeout: time.Minute, Grace: time.Minute}
}

// write writes the batches from several writers at once and closes the
// sink.
func write(t *testing.T, s *objects.Sink, flush bool, bs ...batch) error {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, len(bs))
	for _, b := range bs {
		wg.Go(func() { errs <- s.Write(ctx, b) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			s.Close(ctx, false)
			return err
		}
	}
	return s.Close(ctx, flush)
}

// TestObjectsSink: every item is placed once, in an object that is then
// uploaded holding exactly the items placed in it, and the objects under
// the prefix hold every item's line.
func TestObjectsSink(t *testing.T) {
	dir := t.TempDir()
	a := newAcks(t)
	s := objects.New(config(t, dir, "0000abcd"), a)
	if err := write(t, s, true, items(0, 40, "a"), items(40, 35, "a"), items(75, 5, "a")); err != nil {
		t.Fatal(err)
	}
	if len(a.placed) != 80 {
		t.Errorf("%d items placed, want 80", len(a.placed))
	}
	for pk, obj := range a.placed {
		if _, ok := a.uploaded[obj]; !ok {
			t.Errorf("%s is in object %d, never uploaded", pk, obj)
		}
	}
	if got := s.Begun(); got != uint64(len(a.uploaded)) || !s.StoredThrough(got) {
		t.Errorf("%d objects begun, %d uploaded, stored through: %v", got, len(a.uploaded), s.StoredThrough(got))
	}
	lines := 0
	listed, err := s3out.Dir{}.List(context.Background(), dir, "out/")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range listed {
		if !objects.IsName(strings.TrimPrefix(l.Key, "out/")) {
			t.Errorf("object %s has not the sink's name", l.Key)
		}
	}
	for _, info := range a.uploaded {
		if info.Items > 7 {
			t.Errorf("%s holds %d items, more than 7", info.Key, info.Items)
		}
		lines += int(info.Items)
	}
	if lines != 80 || len(listed) != len(a.uploaded) {
		t.Errorf("%d objects listed holding %d lines; %d uploaded", len(listed), lines, len(a.uploaded))
	}
}

// TestObjectsSinkDropped: without flush the open objects are dropped:
// their items are placed but never uploaded, and nothing is stored.
func TestObjectsSinkDropped(t *testing.T) {
	dir := t.TempDir()
	a := newAcks(t)
	s := objects.New(config(t, dir, "0000abcd"), a)
	if err := write(t, s, false, items(0, 5, "a")); err != nil {
		t.Fatal(err)
	}
	if len(a.placed) != 5 || len(a.uploaded) != 0 || s.StoredThrough(s.Begun()) {
		t.Errorf("dropped: %d placed, %d uploaded, stored through %d: %v", len(a.placed), len(a.uploaded), s.Begun(), s.StoredThrough(s.Begun()))
	}
	if listed, _ := (s3out.Dir{}).List(context.Background(), dir, "out/"); len(listed) != 0 {
		t.Errorf("dropped objects are stored: %v", listed)
	}
}

// TestObjectsSinkReadBack: a resumed run's sink reads an earlier run's
// objects back; an item they hold line for line is placed in its object
// again without being written, a changed one stops the run (naming its
// row), unless the run is followed (counted older).
func TestObjectsSinkReadBack(t *testing.T) {
	dir := t.TempDir()
	if err := write(t, objects.New(config(t, dir, "0000aaaa"), newAcks(t)), true, items(0, 20, "a")); err != nil {
		t.Fatal(err)
	}
	listed, err := s3out.Dir{}.List(context.Background(), dir, "out/")
	if err != nil {
		t.Fatal(err)
	}
	resumed := func(followed bool) (*objects.Sink, *acks) {
		cfg := config(t, dir, "0000bbbb")
		cfg.Followed = followed
		a := newAcks(t)
		s := objects.New(cfg, a)
		for _, l := range listed {
			id, info, err := s.ReadBack(context.Background(), l)
			if err != nil {
				t.Fatal(err)
			}
			a.readBack[id] = true
			a.Uploaded(id, sink.ObjectInfo{Key: info.Key, Items: 0})
			a.inObj[id] = -int(info.Items) // placed again: back to 0
		}
		return s, a
	}
	s, a := resumed(false)
	if err := write(t, s, true, items(0, 25, "a")); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Found != 20 || st.Kept != len(listed) || len(a.placed) != 25 {
		t.Errorf("resumed: found %d, kept %d, placed %d; want 20, %d, 25", st.Found, st.Kept, len(a.placed), len(listed))
	}
	for obj, n := range a.inObj {
		if a.readBack[obj] && n != 0 {
			t.Errorf("read-back object %d: %d of its items not placed in it again", obj, -n)
		}
	}
	s, _ = resumed(false)
	err = write(t, s, true, items(0, 3, "a"), items(3, 1, "changed"))
	if err == nil || !strings.Contains(err.Error(), "row k0003") || !strings.Contains(err.Error(), "is not what its row") {
		t.Errorf("a changed line: %v; want it to stop the run naming row k0003", err)
	}
	s, _ = resumed(true)
	if err := write(t, s, true, items(0, 3, "changed")); err != nil || s.Stats().Older != 3 {
		t.Errorf("followed: %v, older %d; want none, 3", err, s.Stats().Older)
	}
}

// TestObjectsSinkRefuses: a delete stops the run (objects hold items).
func TestObjectsSinkRefuses(t *testing.T) {
	s := objects.New(config(t, t.TempDir(), "0000abcd"), newAcks(t))
	b := items(0, 2, "a")
	b[1].Delete = true
	if err := write(t, s, true, b); err == nil || !strings.Contains(err.Error(), "not deletes") {
		t.Errorf("a delete: %v", err)
	}
}
