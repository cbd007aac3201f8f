package analyze

import (
	"math/bits"
	"slices"
)

// hist is a histogram of item sizes in bytes with bounded memory: sizes
// below 1024 have a bucket each; above, each power of two is split into 64
// buckets, so a percentile read from it is at most 1/64 (1.6%) above the
// true size. The largest size is kept exactly.
type hist struct {
	small [1024]int64
	large map[int]int64 // bucket index above 1023 → count
	n     int64
	sum   int64
	max   int64
	near  int64 // sizes of nearItemLimit or more
}

const subBuckets = 64

// bucket maps a size of 1024 or more to its bucket: (exponent, sub-bucket).
func bucket(v int64) int {
	e := bits.Len64(uint64(v)) - 1 // 2^e <= v < 2^(e+1), e >= 10
	sub := int((v - int64(1)<<e) >> (e - 6))
	return e*subBuckets + sub
}

// bucketTop is the largest size in bucket b.
func bucketTop(b int) int64 {
	e, sub := b/subBuckets, int64(b%subBuckets)
	return int64(1)<<e + (sub+1)<<(e-6) - 1
}

func (h *hist) add(v int64) {
	h.n++
	h.sum += v
	h.max = max(h.max, v)
	if v >= nearItemLimit {
		h.near++
	}
	if v < int64(len(h.small)) {
		h.small[max(v, 0)]++
		return
	}
	if h.large == nil {
		h.large = map[int]int64{}
	}
	h.large[bucket(v)]++
}

// quantile is the smallest size s such that at least q of the sizes are
// at most s (never above the largest size seen).
func (h *hist) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n) + 0.999999999)
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, c := range h.small {
		seen += c
		if seen >= rank {
			return int64(i)
		}
	}
	keys := make([]int, 0, len(h.large))
	for b := range h.large {
		keys = append(keys, b)
	}
	slices.Sort(keys)
	for _, b := range keys {
		seen += h.large[b]
		if seen >= rank {
			return min(bucketTop(b), h.max)
		}
	}
	return h.max
}
