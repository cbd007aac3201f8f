package analyze

import (
	"fmt"
	"hash/maphash"
	"regexp"

	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/mapping"
)

// maxRejectKinds bounds the reject groups kept per entity; further kinds
// are counted together.
const maxRejectKinds = 20

// aggregate takes every record, in one goroutine.
type aggregate struct {
	o        Options
	entities []*entityAgg
	indexes  []*indexAgg       // 0: the table
	colls    *partitionWeights // item collections (bytes), with a local index
	keys     *keyset.Set       // the table keys of the items, for the collision check
	hash     maphash.Seed
	all      hist
	imports  int64
	// runs are, per entity and per table/index, the current run of
	// consecutive items with one partition key value in the read order;
	// longest the longest finished run per table/index.
	runs    [][]run
	longest []run
	rank    rank // the entities' order in the plan
}

// run is consecutive items of one entity, in the order migrate reads them,
// with one partition key value in the table or an index.
type run struct {
	key        string
	entity     string
	items, wcu int64
	base       int64 // the write units of its items' puts into the table
}

type entityAgg struct {
	rows, sampled, items, rejected, wcu int64
	sizes                               hist
	groups                              []*RejectGroup
	other                               *RejectGroup
}

type indexAgg struct {
	items, bytes, wcu int64
	parts             *distinct
	weights           *partitionWeights
}

// keyCheckMemory is what the collision check of an analysis holds in
// memory at most, whatever the rows (internal/keyset).
const keyCheckMemory = 16 << 20

func newAggregate(o Options) (*aggregate, error) {
	keys, err := keyset.New(keyset.Options{Memory: keyCheckMemory})
	if err != nil {
		return nil, fmt.Errorf("analyze: the key collision check: %w", err)
	}
	a := &aggregate{o: o, keys: keys, hash: maphash.MakeSeed(), rank: rank{}}
	for i, e := range o.Plan.Entities {
		a.entities = append(a.entities, &entityAgg{})
		a.rank[e.Name] = i
	}
	local := false
	for i := 0; i <= len(o.Plan.Table.Indexes); i++ {
		a.indexes = append(a.indexes, &indexAgg{parts: newDistinct(), weights: newPartitionWeights(a.rank)})
		if i > 0 && o.Plan.Table.Indexes[i-1].Local {
			local = true
		}
	}
	if local {
		a.colls = newPartitionWeights(a.rank)
	}
	a.runs = make([][]run, len(o.Plan.Entities))
	for i := range a.runs {
		a.runs[i] = make([]run, len(a.indexes))
	}
	a.longest = make([]run, len(a.indexes))
	return a, nil
}

// close gives back the collision check's memory and files.
func (a *aggregate) close() error { return a.keys.Close() }

func (a *aggregate) add(rec record) error {
	if rec.entity < 0 { // read, not in the sample
		a.entities[-1-rec.entity].rows++
		return nil
	}
	ea := a.entities[rec.entity]
	name := a.o.Plan.Entities[rec.entity].Name
	ea.rows++
	ea.sampled++
	if rec.reject != nil {
		ea.reject(rec.src, rec.reject.Reason)
		return nil
	}
	if rec.lock {
		ea.reject(rec.src, fmt.Sprintf("the key %s is reserved for remodel's lock item", rec.key))
		return nil
	}
	// The collision check, as migrate's render workers do it: a row rendering
	// the key of an earlier one is rejected.
	dup, err := a.keys.Add(maphash.String(a.hash, rec.key), []byte(rec.key))
	if err != nil {
		return fmt.Errorf("analyze: the key collision check: %w", err)
	}
	if dup {
		ea.reject(rec.src, fmt.Sprintf("key collision: renders the same key %s as an earlier row", rec.key))
		return nil
	}
	ea.items++
	wcu := int64(mapping.WriteUnits(int(rec.size)))
	ea.wcu += wcu
	ea.sizes.add(rec.size)
	a.all.add(rec.size)
	a.imports += rec.json
	// A local index's entries live in the table's partitions: what a table
	// partition takes includes the item's local index writes.
	// Each index's write units are of the item as it holds it (its keys
	// and projected attributes).
	units := make([]int64, len(rec.pks))
	var coll, partitionWCU int64 = 0, wcu
	for i, pk := range rec.pks {
		if pk == "" {
			continue
		}
		units[i] = int64(mapping.WriteUnits(int(rec.sizes[i])))
		if i > 0 && a.o.Plan.Table.Indexes[i-1].Local {
			partitionWCU += units[i]
		}
	}
	for i, pk := range rec.pks {
		if pk == "" {
			continue
		}
		ia := a.indexes[i]
		ia.items++
		ia.bytes += rec.sizes[i]
		ia.wcu += units[i]
		ia.parts.add(pk)
		w := units[i]
		if i == 0 {
			w = partitionWCU
		}
		ia.weights.add(pk, name, [3]int64{1, rec.sizes[i], w})
		if r := &a.runs[rec.entity][i]; r.key == pk && r.items > 0 {
			r.items++
			r.wcu += w
			r.base += wcu
		} else {
			a.endRun(i, r)
			*r = run{key: pk, entity: name, items: 1, wcu: w, base: wcu}
		}
		if i == 0 || a.o.Plan.Table.Indexes[i-1].Local {
			coll += rec.sizes[i] + ItemOverhead
		}
	}
	if a.colls != nil {
		a.colls.add(rec.pks[0], name, [3]int64{0, coll, 0})
	}
	return nil
}

// endRun keeps r if it is index i's longest run (by write units; of runs
// as long, the one of the smallest key, then the first entity by rank,
// whatever order the readers' runs end in).
func (a *aggregate) endRun(i int, r *run) {
	if l := &a.longest[i]; r.wcu > l.wcu || (r.wcu == l.wcu && r.items > 0 && (l.items == 0 || r.key < l.key || (r.key == l.key && r.entity != l.entity && a.rank.first(r.entity, l.entity) == r.entity))) {
		*l = *r
	}
}

// endRuns ends every run (the entities are read).
func (a *aggregate) endRuns() {
	for _, rs := range a.runs {
		for i := range rs {
			a.endRun(i, &rs[i])
		}
	}
}

var digits = regexp.MustCompile(`[0-9]+`)

// reject counts a rejected row under its kind of reason.
func (ea *entityAgg) reject(src, reason string) {
	ea.rejected++
	kind := digits.ReplaceAllString(reason, "N")
	if len(kind) > 15 && kind[:15] == "key collision: " {
		kind = "key collision: renders the same key as another row"
	}
	var g *RejectGroup
	for _, x := range ea.groups {
		if x.Kind == kind {
			g = x
			break
		}
	}
	if g == nil {
		if len(ea.groups) < maxRejectKinds {
			g = &RejectGroup{Kind: kind, Reason: reason}
			ea.groups = append(ea.groups, g)
		} else {
			if ea.other == nil {
				ea.other = &RejectGroup{Kind: "other reasons", Reason: reason}
			}
			g = ea.other
		}
	}
	g.Rows++
	if len(g.Examples) < 3 {
		g.Examples = append(g.Examples, src)
	}
}

func sizes(h *hist) Sizes {
	s := Sizes{Items: h.n, Bytes: h.sum, P50: h.quantile(0.5), P99: h.quantile(0.99), Max: h.max}
	if h.n > 0 {
		s.Mean = float64(h.sum) / float64(h.n)
	}
	s.NearLimit = h.near
	return s
}

// nearItemLimit is 90% of DynamoDB's 400 KB item limit.
const nearItemLimit = mapping.MaxItemSize * 9 / 10
