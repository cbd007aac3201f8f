// Package verify owns proving a migration: counts per entity against the
// source, an item-by-item comparison of what each source row should have
// become with what DynamoDB holds — and, independently of migrate's
// decoding and conversion, of every column attribute with the source
// engine's own JSON rendering of the row — and every access pattern run as
// a Query (every page) and compared with its SQL on the source for sampled
// parameter values bound as query parameters. It renders the result as a
// report for people and as JSON.
package verify
