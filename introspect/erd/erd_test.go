package erd_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/introspect/erd"
)

func col(name, typ string, kind introspect.Kind, nullable bool) *introspect.Column {
	return &introspect.Column{Name: name, Type: typ, Kind: kind, Nullable: nullable}
}

func exact(n int64, data, idx int64) introspect.Size {
	s := introspect.ExactRows(n)
	s.DataBytes, s.IndexBytes = data, idx
	return s
}

func about(n int64, data, idx int64) introspect.Size {
	s := introspect.EstimatedRows(n)
	s.DataBytes, s.IndexBytes = data, idx
	return s
}

// tricky is a schema made to trip a renderer: names with spaces, dots,
// quotes and Mermaid keywords, types with spaces and commas, enum values
// with quotes, multi-line comments, every kind of relationship, a foreign
// key to a table outside the schema, a table without columns, unknown row
// counts, and a partitioned table partitioned again.
func tricky() *introspect.Schema {
	mood := col("mood", "mood", introspect.KindString, true)
	mood.Values = []string{"sad", "it's ok", `"loud"`}
	mood.Comment = "How they feel,\nroughly"
	email := col("email", "character varying(64)", introspect.KindString, false)
	email.Comment = `Sign-in "address"`
	orders := &introspect.Table{
		Schema: "public", Name: "order items", Comment: "Lines of\tan order",
		Columns: []*introspect.Column{
			col("id", "bigint", introspect.KindInt, false),
			col("user id", "integer", introspect.KindInt, true),
			col("price", "numeric(10,2)", introspect.KindDecimal, false),
			col("2fa", "boolean", introspect.KindBool, false),
			col("pk", "text", introspect.KindString, true),
		},
		PrimaryKey: []string{"id"},
		ForeignKeys: []introspect.ForeignKey{
			{Name: "items_user_fk", Columns: []string{"user id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"id"}},
			{Name: "items_old_fk", Columns: []string{"id"}, RefSchema: "archive", RefTable: "old_items", RefColumns: []string{"id"}},
		},
		Checks: []introspect.Check{{Name: "price_positive", Expression: "price > 0::numeric"}},
		Size:   about(1200, 98304, 40960),
	}
	users := &introspect.Table{
		Schema: "public", Name: "users", Comment: "People",
		Columns: []*introspect.Column{
			col("id", "integer", introspect.KindInt, false),
			email,
			mood,
			col("tags", "text[]", introspect.KindArray, true),
			col("perms", "set('read','write')", introspect.KindSet, true),
		},
		PrimaryKey: []string{"id"},
		UniqueKeys: []introspect.UniqueKey{{Name: "users_email_key", Columns: []string{"email"}}},
		Indexes: []introspect.Index{
			{Name: "users_email_key", Columns: []introspect.IndexColumn{{Column: "email"}}, Unique: true, Method: "btree"},
			{Name: "users_lower", Columns: []introspect.IndexColumn{{Expression: "lower((email)::text)", Desc: true}, {Column: "id"}}, Method: "btree", Include: []string{"mood"}, Where: "(mood <> 'sad'::mood)"},
			{Name: "users_pkey", Columns: []introspect.IndexColumn{{Column: "id"}}, Unique: true, Primary: true, Method: "btree"},
			{Name: "users_tags", Columns: []introspect.IndexColumn{{Column: "tags"}}, Method: "gin"},
			{Name: "users_prefix", Columns: []introspect.IndexColumn{{Column: "email", Prefix: 10}}, Method: "BTREE"},
		},
		Size: exact(1, 8192, 16384),
	}
	users.Columns[3].Elem = introspect.KindString
	users.Columns[4].Values = []string{"read", "write"}
	profiles := &introspect.Table{
		Schema: "public", Name: "profiles",
		Columns:    []*introspect.Column{col("user_id", "integer", introspect.KindInt, false), col("bio", "text", introspect.KindString, true)},
		PrimaryKey: []string{"user_id"},
		ForeignKeys: []introspect.ForeignKey{
			{Name: "profiles_user_fk", Columns: []string{"user_id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"id"}},
		},
		Size: introspect.Size{DataBytes: 1 << 30},
	}
	sessions := &introspect.Table{
		Schema: "public", Name: "end",
		Columns: []*introspect.Column{
			col("id", "uuid", introspect.KindString, false),
			col("user_id", "integer", introspect.KindInt, false),
			col("previous", "uuid", introspect.KindString, true),
		},
		PrimaryKey: []string{"id"},
		UniqueKeys: []introspect.UniqueKey{{Name: "end_previous_key", Columns: []string{"previous"}}},
		ForeignKeys: []introspect.ForeignKey{
			{Name: "end_previous_fk", Columns: []string{"previous"}, RefSchema: "public", RefTable: "end", RefColumns: []string{"id"}},
			{Name: "end_user_fk", Columns: []string{"user_id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"id"}},
		},
		Size: exact(0, 0, 8192),
	}
	invoices := &introspect.Table{
		Schema: "billing", Name: "invoices",
		Columns: []*introspect.Column{
			col("user_id", "integer", introspect.KindInt, false),
			col("month", "date", introspect.KindDate, false),
			col("total", "numeric(12,2)", introspect.KindDecimal, false),
		},
		PrimaryKey: []string{"user_id", "month"},
		ForeignKeys: []introspect.ForeignKey{
			{Name: "invoices_user_fk", Columns: []string{"user_id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"id"}},
		},
		Partitioning: &introspect.Partitioning{Strategy: "range", Key: "month", Partitions: []*introspect.Partition{
			{Schema: "billing", Name: "invoices_2023", Bound: "FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')", Size: exact(3, 8192, 16384)},
			{Schema: "billing", Name: "invoices_2024", Bound: "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
				Partitioning: &introspect.Partitioning{Strategy: "hash", Key: "user_id", Partitions: []*introspect.Partition{
					{Schema: "billing", Name: "invoices_2024_a", Bound: "FOR VALUES WITH (modulus 2, remainder 0)", Size: introspect.Size{DataBytes: 8192}},
					{Schema: "billing", Name: "invoices_2024_b", Bound: "FOR VALUES WITH (modulus 2, remainder 1)", Size: about(5, 8192, 0)},
				}},
				Size: introspect.Size{DataBytes: 16384}},
		}},
		Size: introspect.Size{DataBytes: 24576, IndexBytes: 16384},
	}
	empty := &introspect.Table{Schema: "public", Name: "nothing", Columns: []*introspect.Column{}, Size: exact(0, 0, 0)}
	return &introspect.Schema{Engine: introspect.Postgres, Database: "tricky", Tables: []*introspect.Table{
		invoices, sessions, empty, orders, profiles, users,
	}}
}

// render returns the schema as text, JSON (as remodel introspect --output
// json writes it) and Mermaid.
func render(t *testing.T, s *introspect.Schema) (text, js, mmd []byte) {
	t.Helper()
	var tb, jb, mb bytes.Buffer
	if err := erd.Text(&tb, s); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(&jb)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	if err := erd.Mermaid(&mb, s); err != nil {
		t.Fatal(err)
	}
	return tb.Bytes(), jb.Bytes(), mb.Bytes()
}

func TestTricky(t *testing.T) {
	s := tricky()
	text, js, mmd := render(t, s)
	golden.Check(t, "tricky.txt", text)
	golden.Check(t, "tricky.json", js)
	golden.Check(t, "tricky.mmd", mmd)
	var back introspect.Schema
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, s) {
		t.Errorf("the JSON does not read back into the same schema:\n%s", js)
	}
	checkMermaid(t, s, mmd)
}

func TestRelationships(t *testing.T) {
	type rel struct {
		child, fk, parent               string
		oneToOne, optional, identifying bool
	}
	var got []rel
	for _, r := range erd.Relationships(tricky()) {
		parent := ""
		if r.Parent != nil {
			parent = r.Parent.Name
		}
		got = append(got, rel{r.Child.Name, r.ForeignKey.Name, parent, r.OneToOne, r.Optional, r.Identifying})
	}
	want := []rel{
		// Part of the primary key, not all of it: identifying, one-to-many.
		{"invoices", "invoices_user_fk", "users", false, false, true},
		// A unique, nullable column: one-to-one with an optional parent.
		{"end", "end_previous_fk", "end", true, true, false},
		{"end", "end_user_fk", "users", false, false, false},
		{"order items", "items_user_fk", "users", false, true, false},
		// The referenced table is not in the schema.
		{"order items", "items_old_fk", "", true, false, true},
		// The whole primary key: one-to-one, identifying.
		{"profiles", "profiles_user_fk", "users", true, false, true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Relationships:\n got  %+v\n want %+v", got, want)
	}
}

func TestBytesAndRows(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 10 * 1024: "10 KiB", 98304: "96 KiB",
		1 << 20: "1 MiB", 1181116: "1.1 MiB", 5 << 30: "5 GiB", 3 << 40: "3 TiB",
	} {
		if got := erd.Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	for _, tc := range []struct {
		s    introspect.Size
		want string
	}{
		{introspect.ExactRows(0), "0 rows"},
		{introspect.ExactRows(1), "1 row"},
		{introspect.EstimatedRows(16044), "about 16044 rows"},
		{introspect.Size{}, "rows unknown"},
	} {
		if got := erd.RowsText(tc.s); got != tc.want {
			t.Errorf("RowsText(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// parsed is what Mermaid's own parser read from a diagram
// (testdata/parse-mermaid.mjs).
type parsed struct {
	File     string `json:"file"`
	Error    string `json:"error"`
	Entities []struct {
		Name       string `json:"name"`
		Attributes []struct {
			Type    string   `json:"type"`
			Name    string   `json:"name"`
			Keys    []string `json:"keys"`
			Comment string   `json:"comment"`
		} `json:"attributes"`
	} `json:"entities"`
	Relationships []struct {
		Parent      string `json:"parent"`
		Child       string `json:"child"`
		ParentCard  string `json:"parentCard"`
		ChildCard   string `json:"childCard"`
		Identifying bool   `json:"identifying"`
		Label       string `json:"label"`
	} `json:"relationships"`
}

// parseMermaid runs Mermaid's parser (the npm package at
// $REMODEL_TEST_MERMAID, see scripts/mermaid.sh) on a diagram.
func parseMermaid(t *testing.T, diagram []byte) parsed {
	t.Helper()
	dir := os.Getenv("REMODEL_TEST_MERMAID")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		msg := "REMODEL_TEST_MERMAID is not set or node is missing: skipping Mermaid's parser (scripts/mermaid.sh fetch; run `make test`)"
		if testenv.Require() {
			t.Fatal(msg + ", and REMODEL_REQUIRE_SERVICES=1")
		}
		t.Skip(msg)
	}
	f := filepath.Join(t.TempDir(), "erd.mmd")
	if err := os.WriteFile(f, diagram, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, filepath.Join("testdata", "parse-mermaid.mjs"), dir, f).Output()
	var p parsed
	if jerr := json.Unmarshal(out, &p); jerr != nil {
		t.Fatalf("parse-mermaid.mjs: %v, %v; output:\n%s", err, jerr, out)
	}
	if p.Error != "" || err != nil {
		t.Fatalf("Mermaid does not parse the diagram: %s (%v)\n%s", p.Error, err, diagram)
	}
	return p
}

// checkMermaid parses a diagram of s with Mermaid's own parser and checks
// that Mermaid read what the schema says: one entity per table under the
// table's name, its columns in order with their key markers, and one
// relationship per foreign key whose parent is in the diagram, with the
// cardinality Relationships gives it.
func checkMermaid(t *testing.T, s *introspect.Schema, diagram []byte) {
	t.Helper()
	p := parseMermaid(t, diagram)
	if len(p.Entities) != len(s.Tables) {
		t.Fatalf("Mermaid read %d entities, want %d (one per table)", len(p.Entities), len(s.Tables))
	}
	for i, tbl := range s.Tables {
		e := p.Entities[i]
		want := tbl.Name
		if tbl.Schema != "public" && tbl.Schema != s.Database {
			want = tbl.QualifiedName()
		}
		if e.Name != want {
			t.Errorf("entity %d: Mermaid read the name %q, want %q", i, e.Name, want)
		}
		if len(e.Attributes) != len(tbl.Columns) {
			t.Errorf("%s: Mermaid read %d attributes, want %d", want, len(e.Attributes), len(tbl.Columns))
			continue
		}
		markers := erd.KeyMarkers(tbl)
		for j, c := range tbl.Columns {
			a := e.Attributes[j]
			if a.Name != c.Name && !strings.HasPrefix(a.Comment, c.Name) {
				t.Errorf("%s: attribute %d is %q, and its comment %q does not start with the column's name %q", want, j, a.Name, a.Comment, c.Name)
			}
			if wantKeys := markers[c.Name]; !(len(a.Keys) == 0 && len(wantKeys) == 0) && !reflect.DeepEqual(a.Keys, wantKeys) {
				t.Errorf("%s.%s: Mermaid read the keys %q, want %q", want, c.Name, a.Keys, wantKeys)
			}
		}
	}
	names := map[*introspect.Table]string{}
	for i, tbl := range s.Tables {
		names[tbl] = p.Entities[i].Name
	}
	i := 0
	for _, r := range erd.Relationships(s) {
		if r.Parent == nil {
			continue
		}
		if i >= len(p.Relationships) {
			t.Errorf("Mermaid read %d relationships, want more", len(p.Relationships))
			return
		}
		g := p.Relationships[i]
		i++
		parentCard, childCard := "ONLY_ONE", "ZERO_OR_MORE"
		if r.Optional {
			parentCard = "ZERO_OR_ONE"
		}
		if r.OneToOne {
			childCard = "ZERO_OR_ONE"
		}
		if g.Parent != names[r.Parent] || g.Child != names[r.Child] || g.ParentCard != parentCard || g.ChildCard != childCard ||
			g.Identifying != r.Identifying || g.Label != strings.Join(r.ForeignKey.Columns, ", ") {
			t.Errorf("relationship %s: Mermaid read %+v, want %s %s, %s %s, identifying %v",
				r.ForeignKey.Name, g, names[r.Parent], parentCard, names[r.Child], childCard, r.Identifying)
		}
	}
	if i != len(p.Relationships) {
		t.Errorf("Mermaid read %d relationships, want %d", len(p.Relationships), i)
	}
}

// TestMermaidParserCanFail shows that the check above can fail: a type with
// a space, left as it is, does not parse.
func TestMermaidParserCanFail(t *testing.T) {
	dir := os.Getenv("REMODEL_TEST_MERMAID")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		if testenv.Require() {
			t.Fatal("REMODEL_TEST_MERMAID is not set or node is missing, and REMODEL_REQUIRE_SERVICES=1")
		}
		t.Skip("REMODEL_TEST_MERMAID is not set or node is missing")
	}
	f := filepath.Join(t.TempDir(), "bad.mmd")
	if err := os.WriteFile(f, []byte("erDiagram\n    t {\n        character varying(3) x\n    }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, filepath.Join("testdata", "parse-mermaid.mjs"), dir, f).Output()
	if err == nil || !strings.Contains(string(out), `"error":"Parse error on line 3`) {
		t.Errorf("parse-mermaid.mjs accepted a type with a space: %v\n%s", err, out)
	}
}
