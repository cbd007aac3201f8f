package postgres

import (
	"testing"

	"github.com/remodel-dev/remodel/introspect"
)

func TestBuiltinKind(t *testing.T) {
	for _, tc := range []struct {
		nsp, name string
		want      introspect.Kind
	}{
		{"pg_catalog", "int2", introspect.KindInt},
		{"pg_catalog", "int4", introspect.KindInt},
		{"pg_catalog", "int8", introspect.KindInt},
		{"pg_catalog", "numeric", introspect.KindDecimal},
		{"pg_catalog", "float4", introspect.KindFloat},
		{"pg_catalog", "float8", introspect.KindFloat},
		{"pg_catalog", "bool", introspect.KindBool},
		{"pg_catalog", "bytea", introspect.KindBytes},
		{"pg_catalog", "date", introspect.KindDate},
		{"pg_catalog", "time", introspect.KindTime},
		{"pg_catalog", "timetz", introspect.KindTime},
		{"pg_catalog", "timestamp", introspect.KindTimestamp},
		{"pg_catalog", "timestamptz", introspect.KindTimestampTZ},
		{"pg_catalog", "json", introspect.KindJSON},
		{"pg_catalog", "jsonb", introspect.KindJSON},
		{"pg_catalog", "text", introspect.KindString},
		{"pg_catalog", "varchar", introspect.KindString},
		{"pg_catalog", "uuid", introspect.KindString},
		{"pg_catalog", "interval", introspect.KindString},
		{"pg_catalog", "money", introspect.KindString},
		{"pg_catalog", "oid", introspect.KindString},
		// A user type that borrows a built-in name is not the built-in.
		{"public", "int4", introspect.KindString},
		// PostGIS, wherever it is installed.
		{"public", "geometry", introspect.KindGeometry},
		{"postgis", "geography", introspect.KindGeometry},
		{"public", "box2d", introspect.KindString},
	} {
		if got := builtinKind(tc.nsp, tc.name); got != tc.want {
			t.Errorf("builtinKind(%q, %q) = %q, want %q", tc.nsp, tc.name, got, tc.want)
		}
	}
}

func TestTimePrecision(t *testing.T) {
	for typmod, want := range map[int32]int{-1: 6, 0: 0, 3: 3, 6: 6} {
		if got := timePrecision(typmod); got != want {
			t.Errorf("timePrecision(%d) = %d, want %d", typmod, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	ts := typeSet{
		16:   {oid: 16, name: "bool", nspname: "pg_catalog", typtype: "b", category: "B"},
		1184: {oid: 1184, name: "timestamptz", nspname: "pg_catalog", typtype: "b", category: "D"},
		1185: {oid: 1185, name: "_timestamptz", nspname: "pg_catalog", typtype: "b", category: "A", elem: 1184},
		25:   {oid: 25, name: "text", nspname: "pg_catalog", typtype: "b", category: "S"},
		1009: {oid: 1009, name: "_text", nspname: "pg_catalog", typtype: "b", category: "A", elem: 25},
		// domain d3 NOT NULL over d2 over timestamptz(2)
		9002: {oid: 9002, name: "d2", nspname: "public", typtype: "d", basetype: 1184, typmod: 2},
		9003: {oid: 9003, name: "d3", nspname: "public", typtype: "d", basetype: 9002, typmod: -1, notNull: true},
		// array of d3: the element's NOT NULL does not make the column NOT NULL
		9004: {oid: 9004, name: "_d3", nspname: "public", typtype: "b", category: "A", elem: 9003},
		// domain over text[]
		9005: {oid: 9005, name: "tags", nspname: "public", typtype: "d", basetype: 1009, typmod: -1},
		// enum
		9006: {oid: 9006, name: "mood", nspname: "public", typtype: "e", category: "E"},
		9011: {oid: 9011, name: "_mood", nspname: "public", typtype: "b", category: "A", elem: 9006, delim: ","},
		9012: {oid: 9012, name: "mood_d", nspname: "public", typtype: "d", basetype: 9006, typmod: -1, notNull: true},
		// box and box[]: elements separated by ';'
		603:  {oid: 603, name: "box", nspname: "pg_catalog", typtype: "b", category: "G", delim: ";"},
		1020: {oid: 1020, name: "_box", nspname: "pg_catalog", typtype: "b", category: "A", elem: 603, delim: ","},
		// domain over box, and an array of it: the domain copies ';'
		9007: {oid: 9007, name: "boxd", nspname: "public", typtype: "d", basetype: 603, typmod: -1, delim: ";"},
		9008: {oid: 9008, name: "_boxd", nspname: "public", typtype: "b", category: "A", elem: 9007, delim: ","},
		// PostGIS geometry (delimiter ':') and geometry[]
		9009: {oid: 9009, name: "geometry", nspname: "public", typtype: "b", category: "U", delim: ":"},
		9010: {oid: 9010, name: "_geometry", nspname: "public", typtype: "b", category: "A", elem: 9009, delim: ","},
		1007: {oid: 1007, name: "_int4", nspname: "pg_catalog", typtype: "b", category: "A", elem: 23, delim: ","},
		23:   {oid: 23, name: "int4", nspname: "pg_catalog", typtype: "b", category: "N", delim: ","},
	}
	for _, tc := range []struct {
		oid    uint32
		typmod int32
		want   resolved
	}{
		{16, -1, resolved{kind: introspect.KindBool}},
		{1184, -1, resolved{kind: introspect.KindTimestampTZ, precision: 6}},
		{1184, 3, resolved{kind: introspect.KindTimestampTZ, precision: 3}},
		{1185, 1, resolved{kind: introspect.KindArray, elem: introspect.KindTimestampTZ, precision: 1}},
		{9003, -1, resolved{kind: introspect.KindTimestampTZ, precision: 2, notNull: true}},
		{9004, -1, resolved{kind: introspect.KindArray, elem: introspect.KindTimestampTZ, precision: 2}},
		{9005, -1, resolved{kind: introspect.KindArray, elem: introspect.KindString}},
		{9006, -1, resolved{kind: introspect.KindString, enum: 9006}},
		// An array of an enum, and a domain over one, know the enum.
		{9011, -1, resolved{kind: introspect.KindArray, elem: introspect.KindString, enum: 9006}},
		{9012, -1, resolved{kind: introspect.KindString, enum: 9006, notNull: true}},
		{603, -1, resolved{kind: introspect.KindString}},
		{1020, -1, resolved{kind: introspect.KindArray, elem: introspect.KindString, delim: ";"}},
		{9008, -1, resolved{kind: introspect.KindArray, elem: introspect.KindString, delim: ";"}},
		{9009, -1, resolved{kind: introspect.KindGeometry}},
		{9010, -1, resolved{kind: introspect.KindArray, elem: introspect.KindGeometry, delim: ":"}},
		{1007, -1, resolved{kind: introspect.KindArray, elem: introspect.KindInt}},
	} {
		got, err := ts.resolve(tc.oid, tc.typmod)
		if err != nil {
			t.Errorf("resolve(%d, %d): %v", tc.oid, tc.typmod, err)
			continue
		}
		if got != tc.want {
			t.Errorf("resolve(%d, %d) = %+v, want %+v", tc.oid, tc.typmod, got, tc.want)
		}
	}
	if _, err := ts.resolve(424242, -1); err == nil {
		t.Error("resolve of an unknown type succeeded")
	}
}
