// Package batchwrite is the sink into a DynamoDB table (sink.Sink): it
// writes each batch with BatchWriteItem and acknowledges every item
// DynamoDB wrote, rejects on their own the items DynamoDB refuses, and
// otherwise returns the error that kept an item from the table.
//
// The sink composes parts it is given (Config): the retry policy (package
// backoff), a Gate every writer waits at after a throttled answer and a
// RateLimit of write units per second (rate.go), an Adaptive number of
// requests in flight (adapt.go) and Lanes for the batches of one large
// item collection (lanes.go). A nil part is not used.
package batchwrite
