package postgres

import (
	"fmt"

	"github.com/remodel-dev/remodel/introspect"
)

// defaultTimePrecision is the fractional-second precision of time,
// timetz, timestamp and timestamptz when the type has no typmod: PostgreSQL
// stores microseconds.
const defaultTimePrecision = 6

// builtinKinds maps the names (pg_type.typname) of the built-in pg_catalog
// types that are not read as text to their Kind. Every other base type,
// enum, range, composite or pseudo type is KindString.
var builtinKinds = map[string]introspect.Kind{
	"int2":        introspect.KindInt,
	"int4":        introspect.KindInt,
	"int8":        introspect.KindInt,
	"numeric":     introspect.KindDecimal,
	"float4":      introspect.KindFloat,
	"float8":      introspect.KindFloat,
	"bool":        introspect.KindBool,
	"bytea":       introspect.KindBytes,
	"date":        introspect.KindDate,
	"time":        introspect.KindTime,
	"timetz":      introspect.KindTime,
	"timestamp":   introspect.KindTimestamp,
	"timestamptz": introspect.KindTimestampTZ,
	"json":        introspect.KindJSON,
	"jsonb":       introspect.KindJSON,
}

// spatialTypes are PostGIS's spatial base types. PostGIS may live in any
// schema (public by default), so they are recognised by name alone; a base
// type needs C input and output functions, which only a superuser can
// create, so a look-alike is not a practical concern.
var spatialTypes = map[string]bool{"geometry": true, "geography": true}

// builtinKind returns the Kind of the base type typname of schema nspname.
// Only types of pg_catalog are recognised by name, so a user type that
// happens to be called "int4" in another schema is not mistaken for one;
// PostGIS's geometry and geography, in any schema, are KindGeometry.
func builtinKind(nspname, typname string) introspect.Kind {
	if nspname == "pg_catalog" {
		if k, ok := builtinKinds[typname]; ok {
			return k
		}
	}
	if spatialTypes[typname] {
		return introspect.KindGeometry
	}
	return introspect.KindString
}

// timePrecision returns the fractional-second precision of a time,
// timetz, timestamp or timestamptz type with the given typmod. For these
// types the typmod is the precision itself, and -1 when none was declared.
func timePrecision(typmod int32) int {
	if typmod < 0 {
		return defaultTimePrecision
	}
	return int(typmod)
}

// pgType is the part of a pg_type row needed to resolve a column's Kind.
type pgType struct {
	oid      uint32
	name     string // typname
	nspname  string // schema of the type
	typtype  string // b base, c composite, d domain, e enum, p pseudo, r range, m multirange
	category string // typcategory; "A" for arrays
	basetype uint32 // typbasetype: the underlying type of a domain
	elem     uint32 // typelem: the element type of an array
	typmod   int32  // typtypmod: the typmod a domain applies to its base type
	notNull  bool   // typnotnull: a domain declared NOT NULL
	delim    string // typdelim: what separates elements of an array of this type
}

// typeSet holds the pg_type rows of the columns' types and of every type
// they lead to (domain base types, array element types).
type typeSet map[uint32]pgType

// resolved is a column type reduced to the model's terms.
type resolved struct {
	kind      introspect.Kind
	elem      introspect.Kind
	precision int
	// delim is the element delimiter of an array when it is not a comma
	// (box uses ';'): the typdelim of the array's element type, which is
	// what array_out writes.
	delim string
	// notNull is set when a domain on the way declares NOT NULL, which
	// makes the column non-nullable like attnotnull does (this is what
	// information_schema.columns.is_nullable reports too).
	notNull bool
	// enum is the oid of the enum type the column holds (through domains,
	// or as an array's elements); 0 for other types.
	enum uint32
}

// resolve reduces the type oid with modifier typmod (pg_attribute.atttypmod)
// to a Kind: a domain takes the kind of its base type (and its typmod, when
// it declares one), an array becomes KindArray with the element's kind in
// elem, and precision is set when the type, or an array's element type, is a
// time kind. A domain over an array carries its NOT NULL to the column; the
// NOT NULL of a domain used as an array's element type constrains elements,
// not the column, and is ignored.
func (ts typeSet) resolve(oid uint32, typmod int32) (resolved, error) {
	// Domains may be stacked; arrays cannot nest (the element type of an
	// array type is never an array type), but a domain over an array and an
	// array of a domain are both possible. The bound only guards against a
	// corrupt catalog.
	inArray, notNull := false, false
	delim := ""
	for depth := 0; depth < 64; depth++ {
		t, ok := ts[oid]
		if !ok {
			return resolved{}, fmt.Errorf("type %d is not in pg_type", oid)
		}
		switch {
		case t.typtype == "d":
			if t.typmod >= 0 {
				typmod = t.typmod
			}
			if !inArray && t.notNull {
				notNull = true
			}
			oid = t.basetype
			continue
		case t.category == "A" && t.elem != 0 && !inArray:
			inArray = true
			oid = t.elem
			// The element type's own delimiter, before any domain is
			// unwrapped: a domain copies its base type's typdelim.
			if e, ok := ts[oid]; ok && e.delim != "," {
				delim = e.delim
			}
			continue
		}
		k := introspect.KindString
		if t.typtype == "b" {
			k = builtinKind(t.nspname, t.name)
		}
		r := resolved{kind: k, notNull: notNull}
		if t.typtype == "e" {
			r.enum = t.oid
		}
		if k.HasFraction() {
			r.precision = timePrecision(typmod)
		}
		if inArray {
			r.kind, r.elem, r.delim = introspect.KindArray, k, delim
		}
		return r, nil
	}
	return resolved{}, fmt.Errorf("type %d: domains nested too deeply", oid)
}
