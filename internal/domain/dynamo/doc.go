// Package dynamo owns remodel's DynamoDB client. API is the narrow set of
// calls remodel makes (the SDK's client has them; a test can stand in);
// Client is one value holding an API and, for migrate's BatchWriteItem
// (WriteBatch), the direct path Connect set up for it, with no registry
// beside it.
//
// Connect sets the client up: the standard AWS configuration chain with an
// optional profile, region and endpoint; a deadline on every attempt of
// every call; the SDK's own log lines handed to a slog.Logger at debug
// level instead of stderr; a check of every answer against its X-Amz-Crc32
// header that retries a damaged answer (crc32.go) in place of the SDK's,
// which only logged; and BatchWriteItem's request body written by
// internal/av instead of the SDK's generic serializer (batchwrite.go): the
// same JSON, for less CPU on migrate's hot path. WriteBatch (direct.go)
// sends migrate's batches without the SDK's per-call middleware stack once
// the SDK has sent one for the table: the SDK's own URL, headers, SigV4
// signer, credentials, clock skew and HTTP client, the SDK's deserializer
// for every answer but "all processed", and the SDK's error types.
package dynamo
