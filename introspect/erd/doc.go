// Package erd owns rendering a source's ERD (an introspect.Schema) for
// people: the text that remodel introspect prints, and an entity-relationship
// diagram in Mermaid's erDiagram syntax. It also derives the relationships
// that foreign keys make, with their cardinality, which other renderings of
// the ERD (the modeling document, remodel init) share.
//
// Relationships: a foreign key makes its table the child and the referenced
// table the parent. The child side is "zero or one" when the foreign key's
// columns are unique in the child (they include its primary key or a unique
// key: a one-to-one relationship), "zero or more" otherwise (one-to-many).
// The parent side is "exactly one" when every foreign key column is NOT
// NULL, "zero or one" when one may be NULL (a row with a NULL there
// references nothing). A relationship is identifying when the foreign key's
// columns are all part of the child's primary key.
//
// Nothing here talks to a database.
package erd
