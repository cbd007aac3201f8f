// Package av owns the one encoding of DynamoDB attribute values: DynamoDB
// JSON byte for byte as the AWS SDK writes it (BatchWriteItem's bodies on
// the hot path, fuzzed against the SDK in internal/dynamo), the same with
// sorted names for output and files (preview, analyze, export, reports),
// the line ImportTable reads ({"Item":{…}}) and its strict reader
// (ParseImportLine, for verify --files and migrate --to's resume), the
// brief text reports show and the text of a key value.
package av
