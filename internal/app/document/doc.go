// Package document owns the modeling definition document: the review
// document of a mapping on real rows, rendered as Markdown and as one
// self-contained HTML file that works offline.
//
// Build gathers what the document says from a compiled plan and a preview
// of its first rows (package preview renders them through the same path as
// migrate): the source's ERD (as Mermaid, from internal/domain/introspect/erd, and as
// tables), the DynamoDB table and its indexes with keys, projections,
// billing and TTL, each entity's source, key patterns and attributes with
// their types, each access pattern's target, key condition, order, limit
// and the SQL it replaces, and the example items laid out as DynamoDB
// designers draw them: one grid per table and per index, items grouped by
// partition key and sorted by sort key, each labelled with its entity
// (NoSQL Workbench's aggregate view).
//
// A Document is plain data; WriteMarkdown and WriteHTML render it. More
// sections are added as Sections: each brings its own Markdown and HTML
// body and is rendered after the built-in ones, listed in the table of
// contents. AddAnalysis adds package analyze's report of every row that
// way, as the sections Analysis (rejects, sizes, partitions, write
// amplification, warnings, totals) and Cost (the load, storage and the
// access patterns' traffic, with the price table's date, region and
// source), from the blocks of package internal/report, which renders the
// text report from the same blocks. Nothing here reads a database or talks
// to DynamoDB.
package document
