// Package dynamo sets up the DynamoDB client the commands share: the
// standard AWS configuration chain with an optional profile, region and
// endpoint; the SDK's own log lines handed to a slog.Logger at debug level
// instead of stderr; a check of every answer against its X-Amz-Crc32
// header that retries a damaged answer (crc32.go) in place of the SDK's,
// which only logged; and BatchWriteItem's request body written directly
// instead of by the SDK's generic serializer (batchwrite.go): the same
// JSON, for less CPU on migrate's hot path. BatchWriteItem (direct.go)
// sends migrate's batches without the SDK's per-call middleware stack once
// the SDK has sent one for the table: the SDK's own URL, headers, SigV4
// signer, credentials, clock skew and HTTP client, the SDK's deserializer
// for every answer but "all processed", and the SDK's error types.
package dynamo
