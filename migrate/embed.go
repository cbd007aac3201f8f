package migrate

import (
	"github.com/remodel-dev/remodel/internal/embedread"
)

// Embedded rows are read beside their parent's rows, each embed by a
// reader of its own in the same snapshot (mapping.Entity.StreamEmbedded).
// Those readers come from a pool shared by the entity readers: enough for
// every entity reader to read an entity with the most embeds at once.
// Package embedread owns the pool and the stream (analyze reads the same
// way); these are its names here.

// readerPool holds the readers of embedded rows.
type readerPool = embedread.Pool

var (
	embedReaders  = embedread.Readers // how many readers the pool needs
	newReaderPool = embedread.NewPool
	// streamRows streams the rows of one entity from r, with their child
	// rows read by readers from the pool.
	streamRows = embedread.Stream
)
