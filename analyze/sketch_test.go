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
	p := newPartitionWeights()
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
	p := newPartitionWeights()
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
