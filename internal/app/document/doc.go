// Package document owns the modeling definition document: the review
// document of a mapping on real rows, rendered as Markdown and as one
// self-contained HTML file that works offline.
//
// Build gathers what the document says from a compiled plan and a preview
// of its first rows (package preview renders them through the same path as
// migrate): the source's ERD (as Mermaid, from introspect/erd, and as
// tables), the DynamoDB table and its indexes with keys, projections,
// billing and TTL, each entity's source, key patterns and attributes with
// their types, each access pattern's target, key condition, order, limit
// and the SQL it replaces, and the example items laid out as DynamoDB
// designers draw them: one grid per table and per index, items grouped by
// partition key and sorted by sort key, each labelled with its entity
// (NoSQL Workbench's aggregate view), and the files the application's
// data library reads the table through (library.go): those preview
// --export wrote with the document, linked by their paths relative to it,
// or the export command of each format.
//
// The HTML draws what reviewers would rather look at, as inline SVG
// written here (no script, no library, nothing fetched): the ERD as a
// diagram (erdsvg.go), each access pattern's Query on a previewed
// partition with the items it returns highlighted (patternsvg.go), and,
// with the analysis, the heaviest partitions of the table and each index
// on one 0–100 % scale, the item sizes and the cost per route
// (charts.go). The mapping file's comments (init's reasons: why this
// placement, why no index) are carried beside what they explain
// (notes.go). The example data is bounded (capGrid): a giant partition
// shows its first items and counts the rest. The style sheet's font stack
// lists each platform's CJK fonts, so Korean text renders.
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
