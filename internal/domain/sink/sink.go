// Package sink is the contract between migrate's pipeline and the places
// its items go: a DynamoDB table (package batchwrite), ImportTable's
// objects in S3 or a local directory (package objects), or nowhere
// (package null). The pipeline renders rows into
// items, checks their keys and hands them to one Sink in batches; the sink
// tells the pipeline, through the Acks it was made with, which items it
// stored and which it refused.
package sink

import (
	"context"

	"github.com/remodel-dev/remodel/mapping"
)

// Item is one item as a sink sees it: a rendered item to store, or (Delete)
// the key of an item to delete.
type Item struct {
	// Value is the item's attributes, or with Delete its key.
	Value mapping.Item
	// Entity names the mapping's entity the item is of.
	Entity string
	Delete bool
	// Size is the item's bytes as DynamoDB counts them (mapping.ItemSize).
	Size int
}

// Batch is the items of one write, read by index. The pipeline's own batch
// implements it: beside each item it keeps what a sink does not see (its
// row, the row's place in the checkpoint), so that a batch reaches a sink
// as it is, and the sink names the items it acknowledges by their index.
type Batch interface {
	Len() int
	Item(i int) Item
}

// Rows is a batch that can name the source row of each item, for a sink's
// messages: the pipeline's batch implements it. It is optional: a sink
// names an item by its key when the batch does not.
type Rows interface {
	Row(i int) string
}

// Acks is what a sink tells the pipeline of the items it was given. It is
// passed to the sink when the sink is made; its methods may be called from
// any goroutine, and only after the Write that gave the items began.
type Acks interface {
	// Stored says that items from to to-1 of b are stored (a delete: done):
	// the pipeline counts them written and may move its checkpoint past
	// their rows. A sink calls it once per item, never for an item it
	// also rejects.
	Stored(b Batch, from, to int)
	// Rejected says that the store refused item i of b on its own, for
	// reason: the pipeline records its row as rejected. An error (too many
	// rejected rows, the rejects file) stops the run: the sink's Write
	// returns it.
	Rejected(b Batch, i int, reason string) error
}

// ObjectAcks is what a sink that stores items in objects (package objects)
// tells the pipeline: the Acks of a sink that acknowledges in two steps.
// Objects are numbered from 1, in the order they are begun.
type ObjectAcks interface {
	Acks
	// Placed says that items idx of b are in object obj, which is not
	// stored yet unless Uploaded told so: the pipeline may let go of
	// their rows (their lines are in the object) but counts them stored,
	// and moves a checkpoint past them, only once obj is uploaded. A sink
	// calls it once per item, before obj's Uploaded, or (an object stored
	// by an earlier run, read back) after it: such an item is stored at
	// once.
	Placed(b Batch, idx []int, obj uint64)
	// Uploaded says that object obj is stored, with every item Placed in
	// it so far; none is placed in it after, unless it is an earlier
	// run's object read back. info describes the object.
	Uploaded(obj uint64, info ObjectInfo)
}

// ObjectInfo describes a stored object: its key, its items, its size
// (stored, compressed) and the bytes of its lines before compression,
// the SHA-256 of the stored bytes, and the ETag the store gave it. It is
// what a checkpoint and a manifest record of the object.
type ObjectInfo struct {
	Key          string `json:"key"`
	Items        int64  `json:"items"`
	Bytes        int64  `json:"bytes"`
	Uncompressed int64  `json:"uncompressed_bytes"`
	SHA256       string `json:"sha256"`
	ETag         string `json:"etag,omitempty"`
}

// Sink is where the pipeline's writers send the rendered batches. Several
// writers call Write at once.
//
// Acknowledged means stored: a sink calls Acks.Stored for an item only once
// the item is durably where the sink puts it (DynamoDB answered that it
// wrote it; the null sink, which stores nothing, at once; a sink of
// objects acknowledges in two steps instead, ObjectAcks.Placed when the
// item's line is in an open object and Uploaded once that object is
// stored), so that the pipeline's counts and checkpoint never
// pass an item that a crash would lose. An item that is neither stored nor
// rejected when the run ends is not acknowledged: a resumed run writes it
// again.
type Sink interface {
	// Write takes one batch. It may return before the items are stored
	// (a sink that buffers them, into objects), but not before it holds
	// them: the caller may reuse nothing of b but may drop its own
	// reference. An error stops the run; once ctx is done a sink takes
	// nothing new, though a store in flight may still be answered.
	Write(ctx context.Context, b Batch) error
	// Close is called once, after every Write has returned. With flush
	// (the run succeeded so far) it stores what it holds and returns once
	// every item it was given is acknowledged or rejected, or with the
	// error that kept one from it. Without flush (the run failed or
	// stops) it drops what is not stored yet, unacknowledged, once the
	// stores in flight have had their answer.
	Close(ctx context.Context, flush bool) error
}
