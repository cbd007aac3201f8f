package initmap_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// compiled is the plan of init's mapping of an ERD.
func compiled(t *testing.T, name string) (*mapping.Plan, *mapping.File, *introspect.Schema) {
	t.Helper()
	s := schemaFrom(t, name)
	f, err := mapping.Parse(name+".yaml", initmap.Generate(s, initmap.Options{PartitionKeys: kept(s)}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := mapping.Compile(f, s)
	if err != nil {
		t.Fatal(err)
	}
	return p, f, s
}

// row is a row of e with every integer column n, every date and timestamp
// at, and the rest NULL.
func row(e *mapping.Entity, n int64, at time.Time) []any {
	r := make([]any, len(e.Columns))
	for i, c := range e.Columns {
		switch c.Kind {
		case introspect.KindInt:
			r[i] = n
		case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
			r[i] = at
		}
	}
	return r
}

func keyText(item mapping.Item, attr string) (string, bool) {
	s, ok := item[attr].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return s.Value, true
}

// TestSortKeysSort: in every key attribute init writes (the table's PK and
// SK, which GSI1 sorts by, and each overloaded index's), the row whose
// integers are 2 sorts before the row whose integers are 10437, as the
// numbers do (unpadded, "RENTAL#10437" < "RENTAL#2").
func TestSortKeysSort(t *testing.T) {
	at := time.Date(2005, 5, 24, 22, 53, 30, 0, time.UTC)
	for _, name := range []string{"pagila", "chinook-postgres", "chinook-mysql"} {
		t.Run(name, func(t *testing.T) {
			p, f, _ := compiled(t, name)
			checked := 0
			for _, ed := range f.Entities {
				e := p.Entity(ed.Name.Value)
				small, err := e.Render(row(e, 2, at))
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				big, err := e.Render(row(e, 10437, at))
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				for attr := range small {
					if attr != "PK" && attr != "SK" && !strings.HasPrefix(attr, "GSI") {
						continue
					}
					a, ok1 := keyText(small, attr)
					b, ok2 := keyText(big, attr)
					if !ok1 || !ok2 || a == b {
						continue
					}
					checked++
					if a > b {
						t.Errorf("%s.%s: %q (integers 2) sorts after %q (integers 10437)", e.Name, attr, a, b)
					}
				}
			}
			if checked < 10 {
				t.Errorf("only %d key attributes checked", checked)
			}
		})
	}
}

// TestChildrenInTimeOrder: a child placed in its parent's collection whose
// table has a NOT NULL time column (Pagila's rental_date, not the nullable
// return_date nor last_update, which changes with the row) is sorted by it
// before its key: a rental of an earlier day sorts first whatever its id,
// and the pattern listing a customer's rentals says so (order: asc, ORDER
// BY rental_date, rental_id), which verify checks on the data
// (TestInitMigrateVerify; tricky's events, keyed by (id, at), are sorted
// by the date once: its golden file).
func TestChildrenInTimeOrder(t *testing.T) {
	p, _, _ := compiled(t, "pagila")
	e := p.Entity("rental")
	early, err := e.Render(row(e, 10437, time.Date(2005, 5, 24, 22, 53, 30, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	late, err := e.Render(row(e, 2, time.Date(2005, 6, 1, 8, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := keyText(early, "SK")
	b, _ := keyText(late, "SK")
	if want := "RENTAL#2005-05-24T22:53:30.000000Z#0000010437"; a != want {
		t.Errorf("SK = %q, want %q", a, want)
	}
	if a >= b {
		t.Errorf("the earlier rental's SK %q does not sort before the later one's %q", a, b)
	}
	found := false
	for _, ap := range p.AccessPatterns {
		if ap.Name == "listRentalByCustomerId" {
			found = true
			if ap.Order != "asc" {
				t.Errorf("listRentalByCustomerId: order %q, want asc", ap.Order)
			}
		}
	}
	if !found {
		t.Error("no pattern listRentalByCustomerId")
	}
}

// TestNoHalfIndexKeys: an item holds both key attributes of an index or
// neither. Every entity of Pagila and Chinook is rendered from a row whose
// nullable columns are NULL (and from one where they are not): where one
// half of an index key reads a NULL column, the other half is not written
// (when:), or the item would hold half an index key.
func TestNoHalfIndexKeys(t *testing.T) {
	at := time.Date(2005, 5, 24, 22, 53, 30, 0, time.UTC)
	for _, name := range []string{"pagila", "chinook-postgres", "chinook-mysql"} {
		t.Run(name, func(t *testing.T) {
			p, f, _ := compiled(t, name)
			absent := 0
			for _, ed := range f.Entities {
				e := p.Entity(ed.Name.Value)
				for _, nulls := range []bool{true, false} {
					r := row(e, 7, at)
					for i, c := range e.Columns {
						switch {
						case nulls && c.Nullable:
							r[i] = nil
						case r[i] == nil && c.Kind == introspect.KindString: // a NOT NULL one holds a value whatever nulls says
							r[i] = "G" // text, an enum
						case r[i] == nil && c.Kind == introspect.KindDecimal:
							r[i] = "1"
						}
					}
					// The source evaluates each when: (init's are "a IS NOT
					// NULL AND b IS NOT NULL") and reads it with the row.
					for i, c := range e.Columns {
						if c.Expr == "" {
							continue
						}
						ok := true
						for _, term := range strings.Split(c.Expr, " AND ") {
							col, found := strings.CutSuffix(term, " IS NOT NULL")
							j := slices.IndexFunc(e.Columns, func(c *introspect.Column) bool { return c.Name == strings.Trim(col, "`\"") })
							if !found || j < 0 {
								t.Fatalf("%s: a condition init does not write: %s", e.Name, c.Expr)
							}
							ok = ok && r[j] != nil
						}
						r[i] = ok
					}
					item, err := e.Render(r)
					if err != nil {
						t.Fatalf("%s: %v", e.Name, err)
					}
					for _, ix := range p.Table.Indexes {
						pk, sk := ix.PK[0].Name, ix.SK[0].Name
						if pk == "SK" {
							continue // GSI1, the table's key inverted
						}
						_, hasPK := item[pk]
						_, hasSK := item[sk]
						if hasPK != hasSK {
							t.Errorf("%s (nullable columns NULL: %v): %s %v, %s %v: half an index key", e.Name, nulls, pk, hasPK, sk, hasSK)
						}
						if nulls && !hasPK && !hasSK && mayBeNull(e, f, pk) {
							absent++
						}
					}
				}
			}
			if absent == 0 {
				t.Error("no item left out of an index: nothing checked")
			}
		})
	}
}

// mayBeNull says whether the entity writes attr at all (else its absence
// tells nothing).
func mayBeNull(e *mapping.Entity, f *mapping.File, attr string) bool {
	for _, ed := range f.Entities {
		if ed.Name.Value != e.Name {
			continue
		}
		for _, s := range ed.Set {
			if s.Key.Value == attr {
				return true
			}
		}
	}
	return false
}

// TestGSI1Projection: GSI1 holds the adjacency items of a join table of
// posts and tags; with no column besides its two foreign keys it projects
// the keys only, with a created_at column the keys and created_at
// (INCLUDE), and once it also holds a child placed in its parent's
// collection (read whole by its own key through GSI1) everything (ALL).
// Each choice is explained in GSI1's comment, and the mapping compiles.
func TestGSI1Projection(t *testing.T) {
	col := func(name, typ string, kind introspect.Kind) *introspect.Column {
		return &introspect.Column{Name: name, Type: typ, Kind: kind}
	}
	schema := func(joinCols []*introspect.Column, child bool) *introspect.Schema {
		s := &introspect.Schema{Engine: introspect.Postgres, Database: "db", Tables: []*introspect.Table{
			{Schema: "public", Name: "posts", Columns: []*introspect.Column{col("post_id", "integer", introspect.KindInt), col("title", "text", introspect.KindString)}, PrimaryKey: []string{"post_id"}},
			{Schema: "public", Name: "tags", Columns: []*introspect.Column{col("tag_id", "integer", introspect.KindInt), col("name", "text", introspect.KindString)}, PrimaryKey: []string{"tag_id"}},
			{Schema: "public", Name: "post_tags", Columns: append([]*introspect.Column{col("post_id", "integer", introspect.KindInt), col("tag_id", "integer", introspect.KindInt)}, joinCols...),
				PrimaryKey: []string{"post_id", "tag_id"},
				ForeignKeys: []introspect.ForeignKey{
					{Name: "pt_post", Columns: []string{"post_id"}, RefSchema: "public", RefTable: "posts", RefColumns: []string{"post_id"}},
					{Name: "pt_tag", Columns: []string{"tag_id"}, RefSchema: "public", RefTable: "tags", RefColumns: []string{"tag_id"}},
				}},
		}}
		if child {
			s.Tables = append(s.Tables, &introspect.Table{Schema: "public", Name: "comments",
				Columns:     []*introspect.Column{col("comment_id", "integer", introspect.KindInt), col("post_id", "integer", introspect.KindInt), col("body", "text", introspect.KindString)},
				PrimaryKey:  []string{"comment_id"},
				ForeignKeys: []introspect.ForeignKey{{Name: "c_post", Columns: []string{"post_id"}, RefSchema: "public", RefTable: "posts", RefColumns: []string{"post_id"}}}})
		}
		return s
	}
	for _, c := range []struct {
		name       string
		s          *introspect.Schema
		line, why  string
		projection string
	}{
		{"keys only", schema(nil, false), "- {name: GSI1, pk: GSI1PK, sk: GSI1SK, projection: KEYS_ONLY}",
			"It projects the keys only (KEYS_ONLY): it holds only the adjacency items of post_tags, whose every column is in their keys", "KEYS_ONLY"},
		{"include", schema([]*introspect.Column{col("created_at", "timestamp with time zone", introspect.KindTimestampTZ)}, false),
			`- {name: GSI1, pk: GSI1PK, sk: GSI1SK, projection: {include: ["created_at"]}}`,
			"It projects the keys and created_at (INCLUDE): it holds only the adjacency items of post_tags, whose key columns are in their keys", "INCLUDE (created_at)"},
		{"all", schema([]*introspect.Column{col("created_at", "timestamp with time zone", introspect.KindTimestampTZ)}, true),
			"- {name: GSI1, pk: GSI1PK, sk: GSI1SK}",
			"It projects all attributes (ALL): the items placed in a parent's collection are read whole through it (comments by its key).", "ALL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := initmap.Generate(c.s, initmap.Options{})
			// The comment's lines unwrapped.
			text := strings.Join(strings.Fields(strings.ReplaceAll(string(out), "\n    #  ", " ")), " ")
			if !strings.Contains(string(out), c.line) || !strings.Contains(text, c.why) {
				t.Errorf("GSI1 is not written as %s, or its comment lacks %q:\n%s", c.line, c.why, out)
			}
			f, err := mapping.Parse("m.yaml", out)
			if err != nil {
				t.Fatal(err)
			}
			p, err := mapping.Compile(f, c.s)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Table.Index("GSI1").ProjectionText(); got != c.projection {
				t.Errorf("GSI1 projects %s, want %s", got, c.projection)
			}
		})
	}
}
