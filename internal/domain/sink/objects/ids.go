package objects

import "sync"

// ids numbers the objects begun, from 1, and knows which of them are not
// uploaded yet: what a checkpoint waits for (Begun, StoredThrough). Safe
// for concurrent use.
type ids struct {
	idMu     sync.Mutex
	last     uint64
	unstored map[uint64]struct{}
}

// begin numbers a new object.
func (g *ids) begin() uint64 {
	g.idMu.Lock()
	defer g.idMu.Unlock()
	if g.unstored == nil {
		g.unstored = map[uint64]struct{}{}
	}
	g.last++
	g.unstored[g.last] = struct{}{}
	return g.last
}

// markUploaded records that object id is uploaded.
func (g *ids) markUploaded(id uint64) {
	g.idMu.Lock()
	defer g.idMu.Unlock()
	delete(g.unstored, id)
}

// Begun is the number of the last object begun (0: none).
func (g *ids) Begun() uint64 {
	g.idMu.Lock()
	defer g.idMu.Unlock()
	return g.last
}

// StoredThrough says whether every object numbered up to n is uploaded.
func (g *ids) StoredThrough(n uint64) bool {
	g.idMu.Lock()
	defer g.idMu.Unlock()
	for id := range g.unstored {
		if id <= n {
			return false
		}
	}
	return true
}
