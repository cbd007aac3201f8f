package document_test

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/app/document"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// scores is a plan whose items have number keys, a multi-attribute index
// key and text with Markdown's special characters, with a preview of
// rows rendered through the mapping.
func scores(t *testing.T) (*mapping.Plan, *preview.Result) {
	t.Helper()
	return scoresProjecting(t, "ALL")
}

// scoresProjecting is scores with its index's projection.
func scoresProjecting(t *testing.T, projection string) (*mapping.Plan, *preview.Result) {
	t.Helper()
	f, err := mapping.Parse("scores.yaml", []byte(`version: 1
table:
  name: scores
  key: {pk: {name: Id, type: N}, sk: SK}
  ttl: expiresAt
  indexes:
    - {name: ByGame, pk: [game, {name: week, type: N}], sk: {name: score, type: N}, projection: `+projection+`}
entities:
  play:
    from: plays
    pk: "{user_id}"
    sk: "PLAY#{play_id}"
    attributes:
      set: {tag: {value: "T|{game}", when: "score > 5"}}
    ttl: {from: at, after: 30d}
access_patterns:
  top:
    index: ByGame
    query: {pk: ["{game}", "{week}"]}
    order: desc
    limit: 2
    sql: SELECT * FROM plays WHERE game = {game} AND week = {week} ORDER BY score DESC LIMIT 2
`))
	if err != nil {
		t.Fatal(err)
	}
	cols := []*introspect.Column{
		{Name: "user_id", Type: "integer", Kind: introspect.KindInt},
		{Name: "play_id", Type: "integer", Kind: introspect.KindInt},
		{Name: "game", Type: "text", Kind: introspect.KindString},
		{Name: "week", Type: "integer", Kind: introspect.KindInt},
		{Name: "score", Type: "integer", Kind: introspect.KindInt, Nullable: true},
		{Name: "at", Type: "timestamp with time zone", Kind: introspect.KindTimestampTZ},
	}
	s := &introspect.Schema{Engine: introspect.Postgres, Database: "db", Tables: []*introspect.Table{
		{Schema: "public", Name: "plays", Columns: cols, PrimaryKey: []string{"play_id"}},
	}}
	p, err := mapping.Compile(f, s)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Entity("play")
	res := &preview.Result{Entities: []preview.Entity{{Name: "play"}}}
	for _, r := range []struct {
		user, play, week, score int64
		game                    string
	}{
		{10, 1, 3, 7, "chess|go"}, {9, 2, 3, 12, "chess|go"}, {10, 3, 3, 9, "chess|go"}, {100, 4, 1, 3, "go_*<i>*"},
	} {
		var at any = mustTime(t, "2026-01-02T03:04:05Z")
		item, err := e.Render([]any{r.user, r.play, r.game, r.week, r.score, at, r.score > 5})
		if err != nil {
			t.Fatal(err)
		}
		res.Entities[0].Values = append(res.Entities[0].Values, item)
	}
	return p, res
}

// TestGrids: items are grouped by partition key and sorted as DynamoDB
// sorts them (numbers by value: 9 before 10 before 100), an index holds
// the items with every key attribute, and text cannot break a Markdown
// table.
func TestGrids(t *testing.T) {
	p, res := scores(t)
	d := document.Build(p, res, document.Options{MappingFile: "scores.yaml", Rows: 4})
	if len(d.Grids) != 2 {
		t.Fatalf("%d grids, want 2", len(d.Grids))
	}
	var got []string
	for _, g := range d.Grids {
		for _, grp := range g.Groups {
			for _, r := range grp.Rows {
				got = append(got, g.Name+" "+grp.PK+" / "+r.SK)
			}
		}
	}
	want := []string{
		"scores 9 / PLAY#2", "scores 10 / PLAY#1", "scores 10 / PLAY#3", "scores 100 / PLAY#4",
		"ByGame chess|go | 3 / 7", "ByGame chess|go | 3 / 9", "ByGame chess|go | 3 / 12", "ByGame go_*<i>* | 1 / 3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("grid order:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(d.Grids[0].Groups); n != 3 {
		t.Errorf("the table has %d partitions, want 3", n)
	}
	var md bytes.Buffer
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") {
			continue
		}
		// Every row of a table has as many unescaped pipes as its header.
		if n := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); n < 3 {
			t.Errorf("a table row with %d cells: %s", n-1, line)
		}
	}
	for _, s := range []string{
		"| **chess\\|go \\| 3** | 7 | play |",
		"| ByGame | global index | game (S), week (N) | score (N) | ALL |",
		"| tag | S | template T\\|{game} | — | only when score \\> 5 |",
		"| **go\\_\\*\\<i\\>\\* \\| 1** | 3 | play |",
		"| \\_type | S | the entity's name (play) | — | — |",
		"| expiresAt | N | epoch seconds of column at + 30d | — | the table's TTL |",
		"| score | N | column score | integer | key of ByGame; left out when NULL |",
		"| [top](#top) | ByGame | `game = {game} AND week = {week}` | desc | 2 |",
	} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the Markdown lacks %q:\n%s", s, md.String())
		}
	}
}

// TestGridProjections: the document names the index's projection, and
// the index's grid shows the attributes it projects only.
func TestGridProjections(t *testing.T) {
	for _, c := range []struct{ projection, text, attrs string }{
		{"ALL", "ALL", "Id SK at expiresAt play_id tag user_id"},
		{"KEYS_ONLY", "KEYS_ONLY", "Id SK"},
		{"{include: [tag, user_id]}", "INCLUDE (tag, user_id)", "Id SK tag user_id"},
	} {
		p, res := scoresProjecting(t, c.projection)
		d := document.Build(p, res, document.Options{MappingFile: "scores.yaml", Rows: 4})
		if got := d.Table.Keys[1].Projection; got != c.text {
			t.Errorf("%s: the document says ByGame projects %q, want %q", c.projection, got, c.text)
		}
		g := d.Grids[1]
		if g.Items != 4 {
			t.Errorf("%s: ByGame's grid holds %d items, want 4", c.projection, g.Items)
		}
		row := g.Groups[0].Rows[0]
		var names []string
		for _, a := range row.Attrs {
			names = append(names, a.Name)
		}
		if got := strings.Join(names, " "); got != c.attrs {
			t.Errorf("%s: ByGame's first item shows %q, want %q", c.projection, got, c.attrs)
		}
	}
}

// TestSections: a section another package adds is rendered in both
// formats and listed in the contents; its HTML is not escaped, text of
// the built-in sections is.
func TestSections(t *testing.T) {
	p, res := scores(t)
	d := document.Build(p, res, document.Options{MappingFile: "scores.yaml", Rows: 4})
	d.AddSection(document.Section{ID: "analysis", Title: "Analysis", Markdown: "Hot partition: **10**.", HTML: template.HTML("<p class=\"hot\">Hot partition: <b>10</b>.</p>")})
	var md, html bytes.Buffer
	if err := d.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"- [Analysis](#analysis)", "## Analysis\n\nHot partition: **10**."} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the Markdown lacks %q", s)
		}
	}
	for _, s := range []string{`<a href="#analysis">Analysis</a>`, `<section id="analysis">`, `<p class="hot">Hot partition: <b>10</b>.</p>`, `T|chess|go`, `<span class="n">tag</span>`} {
		if !strings.Contains(html.String(), s) {
			t.Errorf("the HTML lacks %q", s)
		}
	}
	if strings.Contains(html.String(), "score > 5") || !strings.Contains(html.String(), "score &gt; 5") {
		t.Error("the HTML does not escape the text of a when condition")
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
