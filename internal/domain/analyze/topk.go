package analyze

import (
	"container/heap"
	"sort"
)

// topK keeps the heaviest keys of a weighted stream in bounded memory, by
// the Space-Saving algorithm (Metwally, Agrawal, El Abbadi 2005): it
// watches at most k keys; a new key when k are watched replaces the
// lightest, inheriting its weight as the new key's possible overcount
// (err). A watched key's true weight is between weight-err and weight.
// While at most k distinct keys are seen every weight is exact; otherwise a
// key heavier than total/k is always watched, and err ≤ total/k.
type topK struct {
	k     int
	h     ssHeap
	total int64
	rank  rank
}

type ssEntry struct {
	key         string
	weight, err int64
	entity      string // of the entities of the key's items (watched since), the first (rank)
	ents        uint64 // the entities of the key's items (watched since): rank.bit
}

// ssHeap is a min-heap by weight that keeps index (key → position) current.
type ssHeap struct {
	e     []*ssEntry
	index map[string]int
}

func (h *ssHeap) Len() int           { return len(h.e) }
func (h *ssHeap) Less(i, j int) bool { return h.e[i].weight < h.e[j].weight }
func (h *ssHeap) Swap(i, j int) {
	h.e[i], h.e[j] = h.e[j], h.e[i]
	h.index[h.e[i].key], h.index[h.e[j].key] = i, j
}
func (h *ssHeap) Push(x any) {
	h.e = append(h.e, x.(*ssEntry))
	h.index[x.(*ssEntry).key] = len(h.e) - 1
}
func (h *ssHeap) Pop() any { panic("analyze: topK never pops") }

func newTopK(k int, r rank) *topK { return &topK{k: k, h: ssHeap{index: map[string]int{}}, rank: r} }

// rank orders entity names: by their place in the mapping (the order the
// plan lists them), then, for names it does not hold, by name. The entity
// a partition or run is shown with is the first of its items' entities by
// rank, not the first read: with several readers the entities' items
// arrive interleaved in any order.
type rank map[string]int

// bit is the entity's bit in an entity set: its place in the mapping, the
// last bit standing for the entities past 63 and any other name.
func (r rank) bit(name string) uint64 {
	if i, ok := r[name]; ok && i < 63 {
		return 1 << i
	}
	return 1 << 63
}

// names lists the entities of set ents in the mapping's order ("…" for the
// last bit's).
func (r rank) names(ents uint64) []string {
	out := []string{}
	byPlace := make([]string, 63)
	for n, i := range r {
		if i < 63 {
			byPlace[i] = n
		}
	}
	for i := range 63 {
		if ents&(1<<i) != 0 && byPlace[i] != "" {
			out = append(out, byPlace[i])
		}
	}
	if ents&(1<<63) != 0 {
		out = append(out, "…")
	}
	return out
}

// first is the one of a and b that comes first.
func (r rank) first(a, b string) string {
	ra, oka := r[a]
	rb, okb := r[b]
	switch {
	case oka && okb && ra != rb:
		if ra < rb {
			return a
		}
		return b
	case oka != okb:
		if oka {
			return a
		}
		return b
	}
	return min(a, b)
}

func (t *topK) add(key, entity string, w int64) {
	t.total += w
	if i, ok := t.h.index[key]; ok {
		t.h.e[i].weight += w
		t.h.e[i].entity = t.rank.first(t.h.e[i].entity, entity)
		t.h.e[i].ents |= t.rank.bit(entity)
		heap.Fix(&t.h, i)
		return
	}
	if len(t.h.e) < t.k {
		heap.Push(&t.h, &ssEntry{key: key, weight: w, entity: entity, ents: t.rank.bit(entity)})
		return
	}
	low := t.h.e[0]
	delete(t.h.index, low.key)
	*low = ssEntry{key: key, weight: low.weight + w, err: low.weight, entity: entity, ents: t.rank.bit(entity)}
	t.h.index[key] = 0
	heap.Fix(&t.h, 0)
}

// partitionWeights are the items, bytes and write units per partition key
// of one index: exact while the index has at most exactPartitions keys,
// then three Space-Saving summaries of topKeys keys each, seeded with the
// heaviest exact weights (every key left out weighs no more than the
// lightest kept, as Space-Saving requires).
type partitionWeights struct {
	rank  rank
	exact map[string]*exactWeight // nil once over exactPartitions
	sums  [3]*topK                // items, bytes, write units: once exact is nil
	total [3]int64
}

type exactWeight struct {
	w      [3]int64
	entity string
	ents   uint64
}

const exactPartitions = 1 << 16

func newPartitionWeights(r rank) *partitionWeights {
	return &partitionWeights{rank: r, exact: map[string]*exactWeight{}}
}

func (p *partitionWeights) add(key, entity string, w [3]int64) {
	for i := range w {
		p.total[i] += w[i]
	}
	if p.exact != nil {
		e := p.exact[key]
		if e == nil {
			if len(p.exact) == exactPartitions {
				p.summarize()
				p.addSummaries(key, entity, w)
				return
			}
			e = &exactWeight{entity: entity}
			p.exact[key] = e
		}
		for i := range w {
			e.w[i] += w[i]
		}
		e.entity = p.rank.first(e.entity, entity) // not the first read: readers interleave entities in any order
		e.ents |= p.rank.bit(entity)
		return
	}
	p.addSummaries(key, entity, w)
}

func (p *partitionWeights) addSummaries(key, entity string, w [3]int64) {
	for i := range w {
		p.sums[i].add(key, entity, w[i])
	}
}

// summarize switches from exact weights to the summaries.
func (p *partitionWeights) summarize() {
	for i := range p.sums {
		t := newTopK(topKeys, p.rank)
		keys := make([]string, 0, len(p.exact))
		for k := range p.exact {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(a, b int) bool {
			wa, wb := p.exact[keys[a]].w[i], p.exact[keys[b]].w[i]
			if wa != wb {
				return wa > wb
			}
			return keys[a] < keys[b]
		})
		for _, k := range keys[:min(len(keys), topKeys)] {
			e := p.exact[k]
			heap.Push(&t.h, &ssEntry{key: k, weight: e.w[i], entity: e.entity, ents: e.ents})
		}
		p.sums[i] = t
	}
	p.exact = nil
}

// top returns the n heaviest partitions by weight i (0 items, 1 bytes, 2
// write units), heaviest first, ties by key.
func (p *partitionWeights) top(i, n int) []Partition {
	var es []ssEntry
	if p.exact != nil {
		for k, e := range p.exact {
			es = append(es, ssEntry{key: k, weight: e.w[i], entity: e.entity, ents: e.ents})
		}
	} else {
		for _, e := range p.sums[i].h.e {
			es = append(es, *e)
		}
	}
	sort.Slice(es, func(a, b int) bool {
		if es[a].weight != es[b].weight {
			return es[a].weight > es[b].weight
		}
		return es[a].key < es[b].key
	})
	out := []Partition{}
	for _, e := range es[:min(len(es), n)] {
		out = append(out, Partition{Key: e.key, Entity: e.entity, Entities: p.rank.names(e.ents), Weight: e.weight, Error: e.err, Share: ratio(e.weight, p.total[i])})
	}
	return out
}
