package analyze

import (
	"hash/fnv"
	"math"
	"math/bits"
)

// distinct counts distinct keys: exactly (a set of 64-bit hashes) up to
// exactLimit keys, then by a HyperLogLog of 2^hllP registers (standard
// error 1.04/sqrt(2^14), about 0.8%), which is filled from the start so
// that the switch loses nothing.
type distinct struct {
	set  map[uint64]struct{} // nil once over exactLimit
	regs [1 << hllP]uint8
}

const (
	hllP       = 14
	exactLimit = 1 << 18
)

func newDistinct() *distinct { return &distinct{set: map[uint64]struct{}{}} }

// hash64 is FNV-1a, finished with splitmix64's mixer so that every bit
// depends on every input byte (HyperLogLog reads the top and bottom bits).
func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (d *distinct) add(key string) {
	x := hash64(key)
	if d.set != nil {
		d.set[x] = struct{}{}
		if len(d.set) > exactLimit {
			d.set = nil
		}
	}
	i := x >> (64 - hllP)
	rho := uint8(bits.LeadingZeros64(x<<hllP|1<<(hllP-1)) + 1)
	d.regs[i] = max(d.regs[i], rho)
}

// count returns the number of distinct keys and whether it is exact.
func (d *distinct) count() (int64, bool) {
	if d.set != nil {
		return int64(len(d.set)), true
	}
	m := float64(len(d.regs))
	sum, zeros := 0.0, 0
	for _, r := range d.regs {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	est := 0.7213 / (1 + 1.079/m) * m * m / sum
	if est <= 2.5*m && zeros > 0 {
		est = m * math.Log(m/float64(zeros)) // linear counting for small cardinalities
	}
	return int64(math.Round(est)), false
}
