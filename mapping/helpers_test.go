package mapping

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// checkNoStaleGolden fails when dir holds a .golden file without its .yaml case.
func checkNoStaleGolden(t *testing.T, dir string) {
	t.Helper()
	goldens, err := filepath.Glob(filepath.Join("testdata", dir, "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		if _, err := os.Stat(strings.TrimSuffix(g, ".golden") + ".yaml"); err != nil {
			t.Errorf("%s has no case: %v", g, err)
		}
	}
}

// Column helpers for hand-built schemas.
func col(name, typ string, kind introspect.Kind) *introspect.Column {
	return &introspect.Column{Name: name, Type: typ, Kind: kind}
}

func nullable(c *introspect.Column) *introspect.Column { c.Nullable = true; return c }

func precision(c *introspect.Column, p int) *introspect.Column { c.Precision = p; return c }

// personalizationSchema is examples/personalization/schema.postgres.sql as
// the PostgreSQL inspector describes it.
func personalizationSchema() *introspect.Schema {
	bigint := func(n string) *introspect.Column { return col(n, "bigint", introspect.KindInt) }
	varchar := func(n string, l string) *introspect.Column {
		return col(n, "character varying("+l+")", introspect.KindString)
	}
	tstz := func(n string) *introspect.Column {
		return precision(col(n, "timestamp(0) with time zone", introspect.KindTimestampTZ), 0)
	}
	return &introspect.Schema{
		Engine:   introspect.Postgres,
		Database: "personalization",
		Tables: []*introspect.Table{
			{
				Schema: "public", Name: "users",
				Columns: []*introspect.Column{
					bigint("user_id"), varchar("email", "255"), varchar("name", "100"),
					col("is_active", "boolean", introspect.KindBool), tstz("created_at"),
				},
				PrimaryKey: []string{"user_id"},
			},
			{
				Schema: "public", Name: "services",
				Columns:    []*introspect.Column{varchar("service", "32"), varchar("display_name", "100"), tstz("created_at")},
				PrimaryKey: []string{"service"},
			},
			{
				Schema: "public", Name: "personal",
				Columns: []*introspect.Column{
					bigint("user_id"), varchar("service", "32"), varchar("setting_type", "32"),
					col("settings", "jsonb", introspect.KindJSON), tstz("updated_at"),
				},
				PrimaryKey: []string{"user_id", "service", "setting_type"},
				ForeignKeys: []introspect.ForeignKey{
					{Name: "fk_personal_user", Columns: []string{"user_id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"user_id"}},
					{Name: "fk_personal_service", Columns: []string{"service"}, RefSchema: "public", RefTable: "services", RefColumns: []string{"service"}},
				},
			},
			{
				Schema: "public", Name: "subscribe",
				Columns: []*introspect.Column{
					varchar("service", "32"), varchar("content_type", "32"), bigint("content_origin_id"),
					varchar("title", "200"), tstz("created_at"),
				},
				PrimaryKey: []string{"service", "content_type", "content_origin_id"},
			},
			{
				Schema: "public", Name: "subscribe_user",
				Columns: []*introspect.Column{
					bigint("user_id"), varchar("service", "32"), varchar("content_type", "32"),
					bigint("content_origin_id"), tstz("subscribed_at"),
				},
				PrimaryKey: []string{"user_id", "service", "content_type", "content_origin_id"},
			},
		},
	}
}

// testSchema is the personalization schema plus a table "things" with a
// column of every kind, for the compile and render tests.
func testSchema() *introspect.Schema {
	s := personalizationSchema()
	s.Tables = append(s.Tables, &introspect.Table{
		Schema: "public", Name: "things",
		Columns: []*introspect.Column{
			col("id", "bigint", introspect.KindInt),
			nullable(col("code", "text", introspect.KindString)),
			nullable(col("price", "numeric", introspect.KindDecimal)),
			nullable(col("score", "double precision", introspect.KindFloat)),
			nullable(col("flag", "boolean", introspect.KindBool)),
			nullable(col("blob", "bytea", introspect.KindBytes)),
			nullable(col("day", "date", introspect.KindDate)),
			nullable(col("at", "time without time zone", introspect.KindTime)),
			nullable(precision(col("ts", "timestamp(6) without time zone", introspect.KindTimestamp), 6)),
			nullable(precision(col("tstz", "timestamp(3) with time zone", introspect.KindTimestampTZ), 3)),
			nullable(col("doc", "jsonb", introspect.KindJSON)),
			nullable(&introspect.Column{Name: "tags", Type: "text[]", Kind: introspect.KindArray, Elem: introspect.KindString}),
			nullable(col("opts", "set('a','b','c')", introspect.KindSet)),
		},
		PrimaryKey: []string{"id"},
	}, &introspect.Table{
		Schema: "public", Name: "active_users", View: true,
		Columns: []*introspect.Column{nullable(col("user_id", "bigint", introspect.KindInt)), nullable(col("email", "character varying(255)", introspect.KindString))},
	})
	s.AddQuery(weeklyQuery, []*introspect.Column{
		nullable(col("user_id", "bigint", introspect.KindInt)),
		nullable(col("week", "integer", introspect.KindInt)),
		nullable(col("top", "integer", introspect.KindInt)),
	})
	s.AddQuery("SELECT user_id, user_id FROM users", []*introspect.Column{
		nullable(col("user_id", "bigint", introspect.KindInt)),
		nullable(col("user_id", "bigint", introspect.KindInt)),
	})
	return s
}

// weeklyQuery is a query whose columns testSchema knows: the best score of
// each user and week.
const weeklyQuery = "SELECT user_id, week, max(score) AS top FROM plays GROUP BY user_id, week"

// thingsRow builds a row of table "things" from column values by name.
func thingsRow(e *Entity, vals map[string]any) []any {
	row := make([]any, len(e.Columns))
	for i, c := range e.Columns {
		row[i] = vals[c.Name]
	}
	for n := range vals {
		if e.Table.Column(n) == nil {
			panic("no column " + n)
		}
	}
	return row
}

// compileString parses and compiles a mapping given as text.
func compileString(t *testing.T, src string, s *introspect.Schema) *Plan {
	t.Helper()
	f, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	p, err := Compile(f, s)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// errorList asserts that err is a non-empty ErrorList and returns it.
func errorList(t *testing.T, err error) ErrorList {
	t.Helper()
	var l ErrorList
	if !errors.As(err, &l) || len(l) == 0 {
		t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
	}
	return l
}

// wire is an attribute value in DynamoDB's JSON wire format ({"S": "x"}),
// with sets sorted so that the text is stable.
func wire(av types.AttributeValue) any {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": x.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": x.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": x.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": x.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": x.Value}
	case *types.AttributeValueMemberSS:
		v := append([]string(nil), x.Value...)
		sort.Strings(v)
		return map[string]any{"SS": v}
	case *types.AttributeValueMemberNS:
		v := append([]string(nil), x.Value...)
		sort.Strings(v)
		return map[string]any{"NS": v}
	case *types.AttributeValueMemberBS:
		return map[string]any{"BS": x.Value}
	case *types.AttributeValueMemberL:
		l := make([]any, len(x.Value))
		for i, e := range x.Value {
			l[i] = wire(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := make(map[string]any, len(x.Value))
		for k, e := range x.Value {
			m[k] = wire(e)
		}
		return map[string]any{"M": m}
	case nil:
		return nil
	}
	panic(fmt.Sprintf("unexpected attribute value %T", av))
}

// wireJSON renders an item or value as indented wire-format JSON without
// HTML escaping.
func wireJSON(t *testing.T, v any) string {
	t.Helper()
	switch x := v.(type) {
	case Item:
		m := make(map[string]any, len(x))
		for k, av := range x {
			m[k] = wire(av)
		}
		v = m
	case types.AttributeValue:
		v = wire(x)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// compactJSON is wireJSON on one line.
func compactJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(wireJSON(t, v))); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
