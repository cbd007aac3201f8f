// Package verify owns proving a migration. The entry point is Run: Options
// name the mapping.Plan, the source (migrate.OpenSource opens one), the
// DynamoDB client and the table, and Run returns a Report whose OK says
// whether every check passed (see the Example).
//
// What it checks: counts per entity against the
// source (less the rows migrate rejected, when its rejects file is given),
// stray items, an item-by-item comparison of what each source row should
// have become with what DynamoDB holds — and, independently of migrate's
// decoding and conversion, of every column attribute with the source
// engine's own JSON rendering of the row (oracle.go; the SQL of that
// rendering is the engine's introspect.Dialect's OracleRow), embedded child
// rows included (the engine's JSON aggregate of them, OracleChildRows,
// embed.go) — and every access
// pattern run as a Query (every page) and compared with its SQL on the
// source for sampled, seeded parameter values bound as query parameters
// (on an index that projects some attributes only, the projected ones
// compared with the rows too). Before any check, the table's own shape:
// its keys, TTL, billing, and each index's key and projection (table.go).
//
// The checks (counts.go, items.go, pattern.go, rejects.go, table.go) fill a
// Report of structured Problems (problem.go), with its table of checks
// (checks.go); package internal/app/report renders it as text, JSON, JUnit XML
// or Markdown. Each check reports its
// progress, counted where the report counts (progress.go).
//
// The check of migrate --to's objects instead of a table (files.go) holds
// neither the objects' items nor the rows in memory: both sides go to
// temporary files (internal/domain/keyset's Spill) and are joined one bucket at a
// time, 1/128 of the items in memory; the rest it holds is bounded by
// Options.MaxProblems (files_join.go).
package verify
