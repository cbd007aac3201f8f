// Package analyze owns the analysis over all rows behind `preview
// --analyze`: it reads every entity from one consistent snapshot (or a
// fixed share of its rows), renders each row through the mapping exactly as
// migrate does (so the rows it rejects are those migrate would reject,
// key collisions included), and measures what the table would hold: item
// sizes as DynamoDB counts them, partitions per table and per index and the
// largest of them, item collections where there is a local index, each
// index's write amplification, the write units and stored bytes, warnings
// about the data (hot partitions, low-cardinality index keys, large item
// collections and items, long runs of one partition key in the read
// order), and the cost of the load, of a month of storage and of a month
// of the access patterns' queries at rates the user gives, from a price
// table (package internal/pricing).
//
// Memory is bounded whatever the row count. The collision check is
// migrate's (internal/keyset): at most 16 MiB in memory, the keys in
// temporary files. Sizes go into a histogram of fixed buckets (exact below 1 KiB, under
// 1.6% above); partitions are counted exactly up to 2^18 distinct keys per
// index and estimated by a HyperLogLog (2^14 registers, about 0.8% error)
// beyond; the largest partitions are kept by the Space-Saving algorithm
// (a bounded top-K that is exact while an index has at most K partitions
// and otherwise overstates a count by at most total/K, which it reports).
//
// The Report is a plain struct, versioned in JSON (ReportVersion); package
// internal/report renders it.
package analyze
