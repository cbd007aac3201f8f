package migrate

import (
	"testing"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestGatedTrack: a gated track (migrate --to) lets go of its rows once
// they are settled (their lines in open objects), but its checkpoint state
// counts them only from a save taken when every object begun by then was
// uploaded, and covers objects by that state's rows (savedSeq).
func TestGatedTrack(t *testing.T) {
	col := &introspect.Column{Name: "id", Type: "bigint", Kind: introspect.KindInt}
	e := &mapping.Entity{Name: "user", Table: &introspect.Table{Name: "users", Columns: []*introspect.Column{col}, PrimaryKey: []string{"id"}}, Columns: []*introspect.Column{col}}
	g := &testGate{uploaded: map[uint64]bool{}}
	tr := &tracker{engine: introspect.Postgres, byName: map[string][]*entityTrack{}}
	tr.gateOn(g)
	et, err := tr.newTrack([]*mapping.Entity{e}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	state := func() checkpointEntity {
		t.Helper()
		ce, err := et.state()
		if err != nil {
			t.Fatal(err)
		}
		return ce
	}
	// Rows 1-10 go into object 1, rows 11-20 into object 2; each row is
	// settled as soon as its line is written.
	obj1 := g.begin()
	for i := int64(1); i <= 10; i++ {
		et.mark([]any{i}).settle(true)
	}
	obj2 := g.begin()
	for i := int64(11); i <= 20; i++ {
		et.mark([]any{i}).settle(true)
	}
	if len(et.q) != 0 {
		t.Errorf("%d settled rows are still held", len(et.q))
	}
	if ce := state(); ce.Rows != 0 || ce.After != nil || et.savedSeq != 0 {
		t.Errorf("with no object uploaded the checkpoint counts %d rows, after %v (saved seq %d)", ce.Rows, ce.After, et.savedSeq)
	}
	g.markUploaded(obj1) // object 2, begun before the save above, is not
	if ce := state(); ce.Rows != 0 || et.savedSeq != 0 {
		t.Errorf("with object 2 not uploaded the checkpoint counts %d rows (saved seq %d)", ce.Rows, et.savedSeq)
	}
	g.markUploaded(obj2)
	// The state of the last save (rows 1-20, objects 1 and 2) is the one
	// now; row 21, in object 3, begun before this save, is not.
	obj3 := g.begin()
	et.mark([]any{int64(21)}).settle(true)
	ce := state()
	if ce.Rows != 20 || ce.Items != 20 || len(ce.After) != 1 || ce.After[0].V != "20" || et.savedSeq != 20 {
		t.Errorf("objects 1 and 2 uploaded: the checkpoint counts %d rows, %d items, after %v (saved seq %d); want 20, 20, 20, 20", ce.Rows, ce.Items, ce.After, et.savedSeq)
	}
	et.mark([]any{int64(22)}).settle(true)
	et.finished()
	if ce := state(); ce.Rows != 20 || ce.Done || et.savedSeq != 20 {
		t.Errorf("object 3 not uploaded: the checkpoint counts %d rows, done %v (saved seq %d)", ce.Rows, ce.Done, et.savedSeq)
	}
	if tr.ents = []*entityTrack{et}; tr.nothingSettled() {
		t.Error("nothingSettled with 20 rows in uploaded objects")
	}
	g.markUploaded(obj3)
	if ce := state(); !ce.Done || ce.Rows != 22 {
		t.Errorf("every object uploaded: the checkpoint counts %d rows, done %v", ce.Rows, ce.Done)
	}
}

// testGate numbers objects as the objects sink does (objectGate), told
// by the test which are uploaded.
type testGate struct {
	last     uint64
	uploaded map[uint64]bool
}

func (g *testGate) begin() uint64          { g.last++; return g.last }
func (g *testGate) markUploaded(id uint64) { g.uploaded[id] = true }
func (g *testGate) Begun() uint64          { return g.last }

func (g *testGate) StoredThrough(n uint64) bool {
	for id := uint64(1); id <= n; id++ {
		if !g.uploaded[id] {
			return false
		}
	}
	return true
}
