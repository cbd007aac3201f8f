package document

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
)

// wellFormed fails the test when the SVG is not well-formed XML (a browser
// would show the page up to the error and no more).
func wellFormed(t *testing.T, name string, svg template.HTML) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	for {
		if _, err := dec.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("%s is not well-formed XML: %v\n%s", name, err, svg)
		}
	}
}

// checkSVG compares a picture with its golden file, one element a line.
func checkSVG(t *testing.T, name string, svg template.HTML) {
	t.Helper()
	wellFormed(t, name, svg)
	s := strings.ReplaceAll(string(svg), "><", ">\n<")
	golden.Check(t, "svg/"+name+".svg", []byte(s+"\n"))
}

// TestERDSVG draws a small ERD: a parent, a child with a NULL-able foreign
// key, a one-to-one child, a table that refers to itself and a view; the
// parent left of its children, a crow's foot at a child, a bar at the
// one-to-one child, Korean and markup in names escaped and measured.
func TestERDSVG(t *testing.T) {
	e := ERD{
		Tables: []ERDTable{
			{Name: "public.users", Mapped: []string{"user"}, Columns: []ERDColumn{
				{Name: "user_id", Type: "bigint", Keys: "PK"}, {Name: "이름", Type: "character varying(100)"}, {Name: "boss_id", Type: "bigint", Nullable: true, Keys: "FK"}}},
			{Name: "public.orders", Mapped: []string{"order", "order_line"}, Columns: []ERDColumn{
				{Name: "order_id", Type: "bigint", Keys: "PK"}, {Name: "user_id", Type: "bigint", Nullable: true, Keys: "FK"}, {Name: "at", Type: "timestamp(0) with time zone"}}},
			{Name: "public.profiles", Columns: []ERDColumn{{Name: "user_id", Type: "bigint", Keys: "PK, FK"}, {Name: "<b>bio</b>", Type: "text", Nullable: true}}},
			{Name: "public.v", View: true, Columns: []ERDColumn{{Name: "n", Type: "integer"}}},
		},
		Relationships: []ERDRelationship{
			{Parent: "public.users", Child: "public.orders", Columns: "user_id", Cardinality: "0..1 to 0..n"},
			{Parent: "public.users", Child: "public.profiles", Columns: "user_id", Cardinality: "1 to 0..1"},
			{Parent: "public.users", Child: "public.users", Columns: "boss_id", Cardinality: "0..1 to 0..n"},
		},
	}
	svg := erdSVG(e)
	checkSVG(t, "erd", svg)
	if n := strings.Count(string(svg), `<g class="erd-box`); n != 4 {
		t.Errorf("%d boxes, want 4", n)
	}
	if erdSVG(ERD{}) != "" {
		t.Errorf("an ERD without tables is drawn")
	}
}

// report is a small analysis: a table with even partitions, an index with
// one partition that stands out, two entities, the load's routes and one
// priced pattern.
func smallReport() *analyze.Report {
	bulk := 0.02
	return &analyze.Report{
		Table: "t",
		Entities: []analyze.EntityStats{
			{Name: "user", Sizes: analyze.Sizes{Items: 10, Mean: 120, P50: 118, P99: 140, Max: 141}},
			{Name: "글", Sizes: analyze.Sizes{Items: 90, Mean: 900, P50: 800, P99: 3000, Max: 5200}},
			{Name: "empty"},
		},
		Indexes: []analyze.IndexStats{
			{Name: "t", Kind: "table", Items: 100, Partitions: 10, ByWriteUnits: []analyze.Partition{
				{Key: "USER#1", Entity: "user", Weight: 11, Share: 0.11}, {Key: "USER#2", Entity: "user", Weight: 10, Share: 0.10}}},
			{Name: "GSI1", Kind: "global", Items: 90, Partitions: 4, ByWriteUnits: []analyze.Partition{
				{Key: "STATUS#open", Entity: "글", Weight: 80, Share: 0.8, StandsOut: true}, {Key: "STATUS#<closed>", Entity: "글", Weight: 5, Share: 0.05}}},
			{Name: "GSI2", Kind: "global"},
		},
		Totals: analyze.Totals{WriteUnits: 300},
		Cost: analyze.Cost{
			Prices:  analyze.PriceRef{Currency: "USD", Region: "us-east-1", Date: "2024-11-01"},
			Load:    analyze.LoadCost{OnDemand: 0.1, Provisioned: 1.5, ProvisionedWCU: 100, ProvisionedHours: 1, Import: 0.01, ImportGB: 0.1, BulkPut: &bulk, BulkPutGB: 0.2},
			Traffic: []analyze.PatternCost{{Pattern: "byStatus", PerSecond: 5, ReadUnits: 2.5, OnDemand: 3.2}},
		},
	}
}

// TestChartsSVG draws the analysis's charts on the small report: the
// heaviest partitions on a 0–100 % scale (the one that stands out red),
// the item sizes, and the routes (the cheapest green) and the patterns.
func TestChartsSVG(t *testing.T) {
	r := smallReport()
	for _, c := range []struct {
		name string
		svg  template.HTML
		want map[string]int
	}{
		{"partitions", partitionsSVG(r), map[string]int{`class="chart-index"`: 3, `class="bar hot"`: 1, `class="bar"`: 3, `class="mean"`: 2}},
		{"sizes", sizesSVG(r), map[string]int{`<g class="entity-size"`: 2, `class="tick"`: 3}},
		{"cost", costSVG(r), map[string]int{`<g class="route"`: 4, `class="bar good"`: 1, `<g class="traffic"`: 1}},
	} {
		checkSVG(t, c.name, c.svg)
		for s, n := range c.want {
			if got := strings.Count(string(c.svg), s); got != n {
				t.Errorf("%s: %d of %s, want %d", c.name, got, s, n)
			}
		}
	}
	if sizesSVG(&analyze.Report{}) != "" || partitionsSVG(&analyze.Report{}) != "" {
		t.Errorf("charts drawn for an empty report")
	}
}

// TestPatternSVG runs a pattern's Query on a partition of example items,
// its parameters read off them: begins_with with the service bound from
// an item, in descending order with a limit; equality; a range on a
// number; a partition key that no partition matches.
func TestPatternSVG(t *testing.T) {
	row := func(sk, entity string, attrs ...Attr) GridRow {
		return GridRow{SK: sk, Entity: entity, sk: []string{sk}, Attrs: attrs}
	}
	g := &Grid{Name: "t", Groups: []Group{
		{PK: "SERVICE#weather", pks: []string{"SERVICE#weather"}, Rows: []GridRow{row("SERVICE#", "service", Attr{Name: "displayName", Value: "날씨 Weather"}, Attr{Name: "createdAt", Value: "2023-01-31T06:00:00Z"})}},
		{PK: "USER#1", pks: []string{"USER#1"}, Rows: []GridRow{
			row("PERSONAL#news#alerts", "personal"), row("PERSONAL#news#theme", "personal"), row("PERSONAL#news#zone", "personal"),
			row("PERSONAL#shop#alerts", "personal"), row("USER#", "user", Attr{Name: "email", Value: "a@example.com"})}},
	}}
	query := func(pk string, eq []string, op string, vals ...string) *patternQuery {
		q := &patternQuery{pkNames: []string{"PK"}, skNames: []string{"SK"}, skNumber: []bool{false}, pk: []keyTemplate{parseKeyTemplate(pk)}, op: op}
		for _, s := range eq {
			q.skEq = append(q.skEq, parseKeyTemplate(s))
		}
		for _, s := range vals {
			q.opVals = append(q.opVals, parseKeyTemplate(s))
		}
		return q
	}
	q := query("USER#{user_id}", nil, "begins_with", "PERSONAL#{service}#")
	q.order, q.limit = "desc", 2
	h := q.run(g)
	if h == nil || h.group.PK != "USER#1" || fmt.Sprint(h.selected) != "[2 1]" || h.cond != "PK = USER#1 AND begins_with(SK, PERSONAL#news#)" {
		t.Fatalf("begins_with, desc, limit 2: %+v", h)
	}
	checkSVG(t, "pattern", patternSVG("findPersonal", q, h, "_type"))

	q = query("SERVICE#{service}", []string{"SERVICE#"}, "")
	if h := q.run(g); h == nil || h.group.PK != "SERVICE#weather" || len(h.selected) != 1 {
		t.Errorf("equality: %+v", h)
	} else {
		svg := patternSVG("findService", q, h, "_type")
		wellFormed(t, "findService", svg)
		if !strings.Contains(string(svg), "displayName: 날씨 Weather") {
			t.Errorf("the item's name is not drawn before its timestamp:\n%s", svg)
		}
	}
	q = query("USER#{user_id}", nil, ">=", "{from}")
	if h := q.run(g); h == nil || len(h.selected) == 0 || len(h.selected) == 5 {
		t.Errorf("a range returns some items of the partition, not none or all: %+v", h)
	}
	if h := query("ORDER#{id}", nil, "").run(g); h != nil {
		t.Errorf("no partition matches ORDER#{id}, yet %+v", h)
	}
	// Placeholders: a literal {{ and a repeated placeholder bound once.
	tm := parseKeyTemplate("{{x}}#{a}#{a|pad:3}")
	if b := map[string]string{}; !tm.match("{x}#1#001", b, false) || b["a"] != "1" || b["a|pad:3"] != "001" {
		t.Errorf("template match: %v", b)
	}
	if b := map[string]string{}; parseKeyTemplate("A#{a}#{a}").match("A#1#2", b, false) {
		t.Errorf("one placeholder matched two values")
	}
}

// TestCapGrid: a giant partition shows its first maxGroupRows items and
// counts the rest by entity; a grid shows at most maxGridRows.
func TestCapGrid(t *testing.T) {
	g := Grid{}
	big := Group{PK: "SERVICES#mail"}
	for i := range 3000 {
		e := "personal"
		if i%3 == 0 {
			e = "subscribe"
		}
		big.Rows = append(big.Rows, GridRow{SK: fmt.Sprint(i), Entity: e})
	}
	g.Groups = append(g.Groups, big)
	for i := range 400 {
		g.Groups = append(g.Groups, Group{PK: fmt.Sprint("P", i), Rows: []GridRow{{SK: "x", Entity: "user"}}})
	}
	g.Items = 3400
	capGrid(&g)
	shown := 0
	for _, grp := range g.Groups {
		shown += len(grp.Rows)
	}
	if shown != maxGridRows || len(g.Groups[0].Rows) != maxGroupRows || g.Hidden != 3400-maxGridRows {
		t.Errorf("shown %d (first partition %d), hidden %d", shown, len(g.Groups[0].Rows), g.Hidden)
	}
	if got := g.Groups[0].HiddenByEnt; got != "personal 1984, subscribe 991" {
		t.Errorf("the hidden items by entity: %q", got)
	}
	var b bytes.Buffer
	d := &Document{Grids: []Grid{g}}
	if err := d.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "… 2975 more items of SERVICES#mail not shown: personal 1984, subscribe 991") {
		t.Errorf("the HTML does not say what it leaves out")
	}
}
