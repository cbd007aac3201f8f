package mapping

import (
	"strings"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping/parse"
)

// ColType is the type an entity's attributes.types gives the attribute of
// one column, in place of the default conversion of the column's kind.
type ColType string

// The types attributes.types accepts.
const (
	TypeN      ColType = "N"      // a number: integers, decimals, floats, text holding a number, PostgreSQL money
	TypeS      ColType = "S"      // text: any scalar as its text
	TypeBOOL   ColType = "BOOL"   // a boolean: booleans, 0/1 integers, yes/no-style text
	TypeB      ColType = "B"      // bytes: bytes, text as its bytes, spatial values as (E)WKB
	TypeSS     ColType = "SS"     // a string set: MySQL SET, text arrays
	TypeNS     ColType = "NS"     // a number set: number arrays
	TypeBS     ColType = "BS"     // a binary set: bytea arrays
	TypeL      ColType = "L"      // a list: arrays, MySQL SET, a JSON document that is an array
	TypeM      ColType = "M"      // a map: a JSON document that is an object, a spatial value as GeoJSON
	TypeJSON   ColType = "JSON"   // a JSON document kept as its text (S)
	TypeUnix   ColType = "unix"   // a date or timestamp as epoch seconds (N)
	TypeUnixMS ColType = "unixms" // a date or timestamp as epoch milliseconds (N)
	TypeISO    ColType = "iso"    // a date or timestamp as ISO-8601 UTC text with Z, as the iso formatter writes it (S)
)

// ColTypes lists the types attributes.types accepts, in the order the
// documentation gives them.
var ColTypes = []ColType{TypeN, TypeS, TypeBOOL, TypeB, TypeSS, TypeNS, TypeBS, TypeL, TypeM, TypeJSON, TypeUnix, TypeUnixMS, TypeISO}

// ParseColType reads a type name of attributes.types. Names are
// case-sensitive, as DynamoDB writes them; the parser checks them
// (parse.CheckColType, whose ColTypeNames are the names of ColTypes).
func ParseColType(s string) (ColType, error) {
	if err := parse.CheckColType(s); err != nil {
		return "", err
	}
	return ColType(s), nil
}

// Dynamo is the DynamoDB type of the attribute values t makes.
func (t ColType) Dynamo() string {
	switch t {
	case TypeJSON, TypeISO:
		return "S"
	case TypeUnix, TypeUnixMS:
		return "N"
	}
	return string(t)
}

// takes says which columns t can convert, for errors.
func (t ColType) takes() string {
	switch t {
	case TypeN:
		return "an integer, decimal, float or text column (PostgreSQL money included)"
	case TypeS:
		return "a scalar column (not an array, set or a JSON document; JSON keeps its text)"
	case TypeBOOL:
		return "a boolean, integer (0 or 1) or text column (true/false, t/f, yes/no, y/n, 1/0)"
	case TypeB:
		return "a bytes, text or spatial column"
	case TypeSS:
		return "a MySQL SET or an array of text"
	case TypeNS:
		return "an array of integers, decimals or floats"
	case TypeBS:
		return "an array of bytes"
	case TypeL:
		return "an array, a MySQL SET or a JSON column"
	case TypeM:
		return "a JSON column or a spatial column (as GeoJSON)"
	case TypeJSON:
		return "a JSON column"
	case TypeUnix, TypeUnixMS, TypeISO:
		return "a date or timestamp column"
	}
	return "nothing"
}

// fits reports whether t can convert the values of column c of engine.
func (t ColType) fits(engine introspect.Engine, c *introspect.Column) bool {
	k := c.Kind
	switch t {
	case TypeN:
		return engine.Dialect().IntegerBool(c) || k == introspect.KindInt || k == introspect.KindDecimal || k == introspect.KindFloat || k == introspect.KindString
	case TypeS:
		switch k {
		case introspect.KindArray, introspect.KindSet:
			return false
		}
		return true
	case TypeBOOL:
		return k == introspect.KindBool || k == introspect.KindInt || k == introspect.KindString
	case TypeB:
		return k == introspect.KindBytes || k == introspect.KindString || k == introspect.KindGeometry
	case TypeSS:
		return k == introspect.KindSet || k == introspect.KindArray && c.Elem == introspect.KindString
	case TypeNS:
		return k == introspect.KindArray && (c.Elem == introspect.KindInt || c.Elem == introspect.KindDecimal || c.Elem == introspect.KindFloat)
	case TypeBS:
		return k == introspect.KindArray && c.Elem == introspect.KindBytes
	case TypeL:
		return k == introspect.KindArray || k == introspect.KindSet || k == introspect.KindJSON
	case TypeM:
		return k == introspect.KindJSON || k == introspect.KindGeometry
	case TypeJSON:
		return k == introspect.KindJSON
	case TypeUnix, TypeUnixMS, TypeISO:
		return k == introspect.KindDate || k == introspect.KindTimestamp || k == introspect.KindTimestampTZ
	}
	return false
}

// readFor is the form (introspect.Column.Read) in which the source must
// read column c for t, or "" for the column's default.
func (t ColType) readFor(engine introspect.Engine, c *introspect.Column) string {
	switch {
	case t == TypeB && (c.Kind == introspect.KindString || c.Kind == introspect.KindGeometry):
		return introspect.ReadBytes
	case t == TypeM && c.Kind == introspect.KindGeometry:
		return introspect.ReadGeoJSON
	case t == TypeN && engine.Dialect().LocalisedMoney() && isMoney(c):
		return introspect.ReadNumeric
	case t == TypeN && engine.Dialect().IntegerBool(c):
		return introspect.ReadInteger
	}
	return ""
}

// isMoney reports whether c is PostgreSQL's money, whose text depends on
// lc_monetary ("$1,234.56", "1.234,56 €").
func isMoney(c *introspect.Column) bool {
	return c.Kind == introspect.KindString && strings.EqualFold(c.Type, "money")
}

// typeKeyConflicts reports, without a schema, every attributes.types entry
// whose attribute (the column's name, or its rename) is a key of an index
// or the table's TTL attribute of another DynamoDB type, and every entry
// for a column that exclude leaves out. It returns the columns reported.
// Compile and Check both call it, so the messages are the same.
func (c *compiler) typeKeyConflicts(ed *EntityDef, path string) map[string]bool {
	bad := map[string]bool{}
	if len(ed.Types) == 0 {
		return bad
	}
	t := &c.plan.Table
	keyTypes := t.KeyTypes()
	if t.TTL != "" {
		keyTypes[t.TTL] = "N"
	}
	rename := map[string]string{}
	for _, kv := range ed.Rename {
		rename[kv.Key.Value] = kv.Value.Value
	}
	excluded := map[string]bool{}
	for _, s := range ed.Exclude {
		excluded[s.Value] = true
	}
	for _, kv := range ed.Types {
		typ, err := ParseColType(kv.Value.Value)
		if err != nil {
			bad[kv.Key.Value] = true
			continue // reported by the parser
		}
		fpath := path + ".attributes.types." + kv.Key.Value
		if excluded[kv.Key.Value] {
			c.errorf(kv.Key.Pos, fpath, "column %s is excluded (attributes.exclude), so it has no attribute to type", kv.Key.Value)
			bad[kv.Key.Value] = true
			continue
		}
		name := kv.Key.Value
		if r, ok := rename[name]; ok && r != "" {
			name = r
		}
		want, ok := keyTypes[name]
		if !ok {
			continue
		}
		if name == t.PK.Name || t.SK != nil && name == t.SK.Name {
			continue // a collision with the table key, reported as such
		}
		if typ.Dynamo() != want {
			what := "an index key"
			if name == t.TTL {
				what = "the table's TTL attribute"
			}
			c.errorf(kv.Value.Pos, fpath, "type %s makes attribute %s %s, but it is %s of type %s", typ, name, dynamoName(typ.Dynamo()), what, want)
			bad[kv.Key.Value] = true
		}
	}
	return bad
}

// dynamoName names a DynamoDB type in messages: "a string (S)".
func dynamoName(t string) string {
	switch t {
	case "S":
		return "a string (S)"
	case "N":
		return "a number (N)"
	case "B":
		return "binary (B)"
	case "BOOL":
		return "a boolean (BOOL)"
	case "SS", "NS", "BS":
		return "a set (" + t + ")"
	case "L":
		return "a list (L)"
	case "M":
		return "a map (M)"
	}
	return t
}

// columnTypes compiles an entity's attributes.types against its relation:
// each column must exist, be one of the entity's attributes (selected) and
// have values the type can convert. skip lists the columns
// typeKeyConflicts has already reported.
func (c *compiler) columnTypes(ed *EntityDef, tbl *introspect.Table, selected map[string]Pos, skip map[string]bool, path string) map[string]ColType {
	out := map[string]ColType{}
	for _, kv := range ed.Types {
		if skip[kv.Key.Value] {
			continue
		}
		fpath := path + ".attributes.types." + kv.Key.Value
		col := tbl.Column(kv.Key.Value)
		if col == nil {
			c.errorf(kv.Key.Pos, fpath, "%s", noColumn(tbl, kv.Key.Value))
			continue
		}
		if _, ok := selected[col.Name]; !ok {
			c.errorf(kv.Key.Pos, fpath, "column %s is not one of the entity's attributes", col.Name)
			continue
		}
		typ, err := ParseColType(kv.Value.Value)
		if err != nil {
			continue // reported by the parser
		}
		if !typ.fits(c.plan.Schema.Engine, col) {
			c.errorf(kv.Value.Pos, fpath, "type %s cannot hold column %s, which is %s: %s takes %s", typ, col.Name, typeName(col), typ, typ.takes())
			continue
		}
		out[col.Name] = typ
	}
	return out
}

// typedReads adds to cols, after everything already there, a column for
// each attribute whose type needs the source to read its column in another
// form (introspect.Column.Read), and points the attribute at it. The
// stored column stays where it is, for templates, keys and the TTL.
func typedReads(engine introspect.Engine, tbl *introspect.Table, attrs []attrRule, cols []*introspect.Column) []*introspect.Column {
	for i := range attrs {
		a := &attrs[i]
		read := a.typ.readFor(engine, a.col)
		if read == "" {
			continue
		}
		name := "remodel_" + read + "_" + a.col.Name
		for tbl.Column(name) != nil || hasColumn(cols, name) {
			name += "_"
		}
		rc := *a.col
		rc.Name, rc.Read, rc.From, rc.Nullable = name, read, a.col.Name, true
		switch read {
		case introspect.ReadNumeric:
			rc.Kind = introspect.KindDecimal
		case introspect.ReadInteger:
			rc.Kind = introspect.KindInt
		}
		a.idx, a.col = len(cols), &rc
		cols = append(cols, &rc)
	}
	return cols
}

func hasColumn(cols []*introspect.Column, name string) bool {
	for _, c := range cols {
		if c.Name == name {
			return true
		}
	}
	return false
}

// storedName is the name of the stored column a column reads: From for a
// column added by typedReads, else its own.
func storedName(c *introspect.Column) string {
	if c.From != "" {
		return c.From
	}
	return c.Name
}
