// Package mapping owns the mapping file: strict parsing with file:line:col
// errors (Parse, ParseFile; package parse), validation against the introspected schema
// (Compile, which returns the Plan migrate and verify run), key
// templates and their formatters, the conversion of canonical source values
// to DynamoDB attribute values, and rendering one source row into the item it
// becomes, with the rows of child tables embedded in it (embed.go; the merge
// of parent and child rows read side by side, embed_stream.go), and what a
// secondary index holds of an item (its key attributes and projection) and
// what DynamoDB charges to put it (units.go).
//
// Canonical source values (what the source package decodes a column into,
// chosen by the column's introspect.Kind):
//
//	nil                                 SQL NULL
//	int64, or string beyond int64       KindInt
//	string (exact decimal text)         KindDecimal (may be "NaN", "Infinity")
//	float64                             KindFloat
//	bool                                KindBool
//	string                              KindString, KindTime
//	string (WKT, "SRID=n;" first if n≠0) KindGeometry
//	[]byte                              KindBytes
//	time.Time                           KindDate, KindTimestamp (wall clock in UTC), KindTimestampTZ (UTC)
//	[]byte (JSON text)                  KindJSON
//	[]any of element values             KindArray
//	[]string                            KindSet
//	error                               a value the source could not decode (the row is rejected;
//	                                    one with a KeyText() string method names its row's key)
//
// An attribute whose column the entity types (attributes.types, a ColType)
// is converted by ConvertAs instead of Convert. A type that needs the
// column in another form (text or a spatial value as bytes, a spatial
// value as GeoJSON, PostgreSQL money as numeric) adds a column to
// Entity.Columns that reads the stored one in that form
// (introspect.Column.Read and From): []byte (GeoJSON as JSON text), or
// decimal text for money. An embed's attributes.types (embed_types.go) converts its
// child columns by ConvertAs too, but reads them as they are stored, so it
// refuses the types that need another form.
//
// The package reads in three stages: parse, package parse (the file as
// written, with positions: File, Parse, ParseFile, the Error and ErrorList
// of its problems; its names stay here as aliases, parse.go), compile
// (compile.go, entity.go, embed.go, accesspattern.go, template.go: the
// Plan checked against the schema; check.go: the checks that need no
// schema) and render (convert.go, coltype*.go, embed_stream.go, stream.go,
// units.go: rows into items), with the inverse for follow-back
// (inverse*.go). Two packages beside it read it and change nothing: the
// proof that the table keys are distinct is package keyproof, which reads
// the compiled Plan through read-only views (Entity.KeyParts,
// Entity.RowKey, Template.Parts); the design warnings, which read the
// parsed file only, are package warn.
//
// The entry point: Parse (or ParseFile) a mapping file, choose its blocks
// for the source's engine (File.ForEngine), Compile it against the
// introspect.Schema of the source, and render a row with the Plan's
// Entity.Render (see the Example).
package mapping
