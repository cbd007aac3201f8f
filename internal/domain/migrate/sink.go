package migrate

import "context"

// sink is where the pipeline's writers send the rendered batches: DynamoDB
// (the writer itself: BatchWriteItem, writer.go) or S3 objects for
// ImportTable (s3Sink, s3sink.go). A sink acknowledges an item (counts it
// written and settles its row's mark, so that the checkpoint may move past
// it) only once the item is durably stored: for DynamoDB when BatchWriteItem
// says so, for S3 when the object holding it is uploaded. Rows it rejects
// are counted, recorded and settled as rejected.
type sink interface {
	// write takes one batch; it may return before the items are stored
	// (S3 buffers them into objects), and returns an error that stops
	// the run.
	write(ctx context.Context, batch []pending) error
	// close is called once every write has returned. With flush it stores
	// what it holds and waits until that is acknowledged; without (the run
	// failed or stops) it drops what is not stored yet, unacknowledged,
	// once the stores in flight have had their answer.
	close(ctx context.Context, flush bool) error
}

var (
	_ sink = (*writer)(nil)
	_ sink = (*s3Sink)(nil)
)

// sink is where w's pipeline sends its batches: w itself, or w.to.
func (w *writer) sink() sink {
	if w.to != nil {
		return w.to
	}
	return w
}

// close: every item write acknowledged was stored when it returned.
func (w *writer) close(context.Context, bool) error { return nil }
