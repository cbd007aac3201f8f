// Package objects is the sink of ImportTable's objects: it writes the
// items as DYNAMODB_JSON lines into compressed objects under a prefix of
// S3 or a local directory (s3out.Store), one open object per writer, and
// uploads each once it is full. It acknowledges in two steps
// (sink.ObjectAcks): an item is placed when its line is in an open
// object, and stored when that object is uploaded. Objects an earlier run
// uploaded can be read back (ReadBack), so that a resumed run does not
// write their items again.
package objects
