// Package migrate owns writing a mapping's items into DynamoDB: creating the
// table (keys, secondary indexes, billing, TTL) and waiting until it is
// ACTIVE, refusing a non-empty table unless told, and the pipeline that
// streams rows from a consistent source snapshot through rendering and
// batching into a fixed pool of BatchWriteItem writers, retrying
// UnprocessedItems, throttling and 5xx with capped exponential backoff and
// jitter, recording rejected rows, and ending with a report. A batch
// DynamoDB refuses as invalid is split until the items it refuses are found
// alone; their rows are rejected with DynamoDB's message and the rest are
// written.
package migrate
