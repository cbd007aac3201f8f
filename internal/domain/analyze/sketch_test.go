package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHistQuantiles compares the histogram's percentiles with the exact
// ones of the same sizes: never below, at most 1/64 above.
func TestHistQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		gen  func() int64
	}{
		{"small", func() int64 { return 50 + rng.Int64N(900) }},
		{"wide", func() int64 { return int64(math.Exp(rng.Float64() * math.Log(400*1024))) }},
		{"one size", func() int64 { return 5000 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h hist
			var all []int64
			for range 20000 {
				v := tc.gen()
				h.add(v)
				all = append(all, v)
			}
			slices.Sort(all)
			for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 1} {
				want := all[int(math.Ceil(q*float64(len(all))))-1]
				got := h.quantile(q)
				if got < want || float64(got) > float64(want)*(1+1.0/64)+1 {
					t.Errorf("p%v = %d; exact %d (allowed %d to %d)", 100*q, got, want, want, int64(float64(want)*(1+1.0/64)+1))
				}
			}
			if h.max != all[len(all)-1] || h.n != int64(len(all)) {
				t.Errorf("max %d, n %d; want %d, %d", h.max, h.n, all[len(all)-1], len(all))
			}
		})
	}
	var h hist
	if h.quantile(0.5) != 0 {
		t.Error("an empty histogram's median is not 0")
	}
	h.add(nearItemLimit - 1)
	h.add(nearItemLimit)
	if h.near != 1 {
		t.Errorf("near the limit: %d; want 1", h.near)
	}
}

// TestBuckets checks that every size falls in a bucket whose top is at
// least the size and at most 1/64 above it.
func TestBuckets(t *testing.T) {
	for v := int64(1024); v < 1<<22; v += 1 + v/300 {
		top := bucketTop(bucket(v))
		if top < v || float64(top) > float64(v)*(1+1.0/64) {
			t.Fatalf("size %d: bucket top %d", v, top)
		}
	}
}

// TestPartitionWeightsExact: with few keys every weight is exact.
func TestPartitionWeightsExact(t *testing.T) {
	p := newPartitionWeights(nil)
	for i := range 100 {
		for range i + 1 {
			p.add(fmt.Sprintf("k%03d", i), "e", [3]int64{1, 10, 2})
		}
	}
	top := p.top(0, 3)
	want := []string{"k099", "k098", "k097"}
	for i, x := range top {
		if x.Key != want[i] || x.Weight != int64(100-i) || x.Error != 0 {
			t.Errorf("top[%d] = %+v; want %s with %d items, exact", i, x, want[i], 100-i)
		}
	}
	if b := p.top(1, 1)[0]; b.Weight != 1000 || math.Abs(b.Share-1000.0/50500) > 1e-12 {
		t.Errorf("by bytes %+v; want 1000 bytes, a share of 1000/50500", b)
	}
}

// TestPartitionWeightsSummary: past exactPartitions keys the summary still
// finds the heavy keys, and its bounds hold their true weights.
func TestPartitionWeightsSummary(t *testing.T) {
	p := newPartitionWeights(nil)
	truth := map[string]int64{}
	rng := rand.New(rand.NewPCG(3, 4))
	add := func(k string) {
		truth[k]++
		p.add(k, "e", [3]int64{1, 1, 1})
	}
	for i := range 3 * exactPartitions {
		add(fmt.Sprintf("cold%d", i))
		if rng.IntN(10) == 0 {
			add("hot")
		}
		if rng.IntN(40) == 0 {
			add("warm")
		}
	}
	if p.exact != nil {
		t.Fatal("still exact after 3×exactPartitions keys")
	}
	top := p.top(0, 2)
	if top[0].Key != "hot" || top[1].Key != "warm" {
		t.Fatalf("top two %+v; want hot and warm", top)
	}
	for _, x := range top {
		if tr := truth[x.Key]; tr < x.Weight-x.Error || tr > x.Weight {
			t.Errorf("%s: true weight %d outside [%d, %d]", x.Key, tr, x.Weight-x.Error, x.Weight)
		}
		if limit := p.total[0] / topKeys; x.Error > limit {
			t.Errorf("%s: error %d over total/k = %d", x.Key, x.Error, limit)
		}
	}
}

// TestDistinct: exact up to the limit, then within 3% of the truth.
func TestDistinct(t *testing.T) {
	d := newDistinct()
	for i := range 1000 {
		d.add(fmt.Sprint(i % 700))
	}
	if n, exact := d.count(); n != 700 || !exact {
		t.Errorf("count %d (exact %v); want exactly 700", n, exact)
	}
	for _, n := range []int{exactLimit + 10, 1_000_000} {
		d := newDistinct()
		for i := range n {
			d.add(fmt.Sprintf("USER#%d", i))
			d.add(fmt.Sprintf("USER#%d", i)) // twice: distinct keys count once
		}
		got, exact := d.count()
		if exact || math.Abs(float64(got-int64(n)))/float64(n) > 0.03 {
			t.Errorf("%d keys: count %d (exact %v); want an estimate within 3%%", n, got, exact)
		}
	}
}

// TestOrderFree: the entity named for a partition and the longest run of
// runs as long do not depend on the order readers deliver the entities'
// items in (with --readers above 1, any): the first entity in the mapping
// wins (here c, then a, then b), exact or summarized, and of runs as long
// the smallest key, then the first entity.
func TestOrderFree(t *testing.T) {
	for _, order := range [][]string{{"b", "a", "c"}, {"c", "b", "a"}, {"a", "c", "b"}} {
		p := newPartitionWeights(rank{"c": 0, "a": 1, "b": 2})
		for _, e := range order {
			p.add("shared", e, [3]int64{1, 10, 1})
			p.add("only-"+e, e, [3]int64{1, 10, 1})
		}
		if top := p.top(0, 1)[0]; top.Key != "shared" || top.Entity != "c" {
			t.Errorf("entities in order %v: the top partition %+v, want shared of entity c", order, top)
		}
		for i := range exactPartitions {
			p.add(fmt.Sprintf("cold%d", i), "z", [3]int64{1, 1, 1})
		}
		if p.exact != nil {
			t.Fatal("still exact")
		}
		for _, e := range order {
			p.add("shared", e, [3]int64{1, 10, 1})
			p.add("late", e, [3]int64{5, 10, 1}) // first seen in the summary
		}
		if top := p.top(0, 2); top[0].Key != "late" || top[0].Entity != "c" || top[1].Key != "shared" || top[1].Entity != "c" {
			t.Errorf("entities in order %v, summarized: the top partitions %+v, want late and shared of entity c", order, top)
		}

		a := &aggregate{longest: make([]run, 1), rank: rank{"c": 0, "a": 1, "b": 2}}
		for _, e := range order {
			a.endRun(0, &run{key: "P#1", entity: e, items: 3, wcu: 3, base: 3})
			a.endRun(0, &run{key: "P#2", entity: e, items: 3, wcu: 3, base: 3})
		}
		if l := a.longest[0]; l.key != "P#1" || l.entity != "c" {
			t.Errorf("runs in order %v: the longest %+v, want P#1 of entity c", order, l)
		}
	}
	// Names the rank does not hold come after those it does, by name.
	r := rank{"c": 0}
	for _, c := range [][3]string{{"x", "c", "c"}, {"c", "x", "c"}, {"y", "x", "x"}, {"x", "y", "x"}} {
		if got := r.first(c[0], c[1]); got != c[2] {
			t.Errorf("first(%s, %s) = %s, want %s", c[0], c[1], got, c[2])
		}
	}
}
