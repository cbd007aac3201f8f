package document

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/introspect/erd"
	"github.com/remodel-dev/remodel/mapping"
)

// Document is everything the modeling definition document says.
type Document struct {
	Title       string
	MappingFile string // the mapping file's name as given
	Engine      string // postgres, mysql
	Database    string
	Rows        int // rows previewed per entity
	// Partitions are the table partition key values whose item
	// collections the example data shows whole (preview.Collections),
	// found among the first ScanRows rows of each entity; none: the
	// example data is each entity's first Rows rows.
	Partitions []string
	ScanRows   int

	ERD      ERD
	Table    TableView
	Entities []EntityView
	Patterns []PatternView
	// Grids are the example data: the table's first, then one per index.
	Grids []Grid
	// NotMapped are the mapping file's notes on the tables it leaves out
	// (init lists them, with why).
	NotMapped []string
	// Library is the files of the application's data libraries: written
	// with the document, or the commands that write them (library.go).
	Library LibraryView
	// Sections are added by other packages (AddSection) and rendered after
	// the built-in sections.
	Sections []Section
}

// Section is a part of the document that another package renders: an
// analysis, a cost estimate. ID is its anchor (letters, digits, -), Title
// its heading; Markdown and HTML are its body in each format, without the
// heading.
type Section struct {
	ID       string
	Title    string
	Markdown string
	HTML     template.HTML
}

// AddSection appends a section, rendered after the built-in ones.
func (d *Document) AddSection(s Section) { d.Sections = append(d.Sections, s) }

// ERD is the source's entity-relationship diagram: Mermaid's text and the
// same facts as tables.
type ERD struct {
	// Diagram is the ERD drawn as SVG (erdSVG).
	Diagram       template.HTML
	Mermaid       string
	Tables        []ERDTable
	Relationships []ERDRelationship
}

// ERDTable is one source table or view and its columns.
type ERDTable struct {
	Name    string
	View    bool
	Mapped  []string // the entities that read it
	Columns []ERDColumn
}

// ERDColumn is one column: its declared type, nullability and key markers.
type ERDColumn struct {
	Name, Type string
	Nullable   bool
	Keys       string // "PK, FK"
}

// ERDRelationship is one foreign key, parent to child.
type ERDRelationship struct {
	Parent, Child string
	Columns       string
	Cardinality   string // "1 to 0..n", "0..1 to 0..1", ...
}

// TableView is the DynamoDB table and its indexes.
type TableView struct {
	Name       string
	Keys       []KeyRow // the table first, then each index
	Billing    string
	TTL        string // the TTL attribute, "" for none
	EntityAttr string
	// Notes are the mapping file's header and its comments on the table:
	// the design as its author (or init) explains it.
	Notes []string
}

// KeyRow is the key schema of the table or one index.
type KeyRow struct {
	Name       string
	Kind       string // table, global index, local index
	PK, SK     string // "PK (S)", "game (S), week (N)"
	Projection string
	Notes      []string // the mapping file's comments on the index
}

// EntityView is one entity: where its rows come from and what its items
// hold.
type EntityView struct {
	Name     string
	Source   string // "table public.users", "view ...", "query"
	Query    string
	Where    string
	Key      string // the source columns that identify a row
	Keys     []KeyTemplate
	Attrs    []AttrRow
	Items    int      // items previewed
	Rejected []string // rows previewed that would be rejected, with the reason
	// Notes are the mapping file's comments on the entity: why init
	// placed it there, why a foreign key has no index (notes.go).
	Notes []string
}

// KeyTemplate is one key attribute of an entity's items and its template.
type KeyTemplate struct {
	Attr, Template string
}

// AttrRow is one attribute of an entity's items.
type AttrRow struct {
	Name       string
	Type       string // the DynamoDB type
	From       string // "column created_at", "template ...", "entity name"
	SourceType string // the column's declared type
	Note       string // "key of GSI2", "only when ..."
}

// PatternView is one access pattern.
type PatternView struct {
	Name         string
	Target       string // "table" or the index's name
	KeyCondition string
	Order        string
	Limit        string
	Params       string // the params SQL, if any
	SQL          []EntitySQL
	Notes        []string // the mapping file's comments on the pattern
	// Diagram is the pattern's Query drawn on a previewed partition of
	// its table or index, the items it returns highlighted (patternSVG);
	// "" when no previewed partition answers it.
	Diagram template.HTML
	query   *patternQuery
}

// EntitySQL is the SQL that returns one entity's rows of a pattern.
type EntitySQL struct {
	Entity, SQL string
}

// Grid is the example data of the table or one index, in the order
// DynamoDB keeps it: grouped by partition key, sorted by sort key.
type Grid struct {
	Name   string // the table's or the index's name
	Kind   string // table, global index, local index
	PK, SK []string
	Groups []Group
	Items  int
	// Hidden are the items of the previewed partitions not shown, past
	// maxGroupRows in a partition or maxGridRows in the grid.
	Hidden int
}

// Group is the items of one partition key value.
type Group struct {
	PK   string
	Rows []GridRow
	// Hidden are the partition's items not shown (maxGroupRows), by
	// entity: "rental 3 120, payment 2 980".
	Hidden      int
	HiddenByEnt string
	pks         []string // the partition key's values as text, one per attribute
}

// GridRow is one item.
type GridRow struct {
	SK     string
	Entity string
	Attrs  []Attr
	sk     []string // the sort key's values as text, one per attribute
}

// Attr is one attribute's name, type and value as text.
type Attr struct {
	Name, Type, Value string
}

// Options say what the document is about.
type Options struct {
	MappingFile string
	Rows        int
	// Partitions and ScanRows: the example data is these partitions' item
	// collections (preview.Collections), not each entity's first rows.
	Partitions []string
	ScanRows   int
	// MappingSource is the mapping file's text, whose comments (init's
	// reasons) the document carries (notes.go); nil: none.
	MappingSource []byte
	// LibraryFiles are the data library files written with the document
	// (preview --export): each one's format, path relative to the
	// document and notes; the document says how to write the others.
	LibraryFiles []LibraryFile
}

// Build gathers the document of a plan and its preview (of each entity's
// first rows, or of a few item collections: Options.Partitions).
func Build(p *mapping.Plan, res *preview.Result, o Options) *Document {
	d := &Document{
		Title:       "Modeling definition: " + p.Table.Name,
		MappingFile: o.MappingFile,
		Rows:        o.Rows,
		Partitions:  o.Partitions,
		ScanRows:    o.ScanRows,
	}
	if p.Schema != nil {
		d.Engine, d.Database = string(p.Schema.Engine), p.Schema.Database
		d.ERD = buildERD(p)
	}
	d.Table = buildTable(p)
	d.Library = buildLibrary(o.LibraryFiles, cmp.Or(o.MappingFile, "mapping.yaml"), p.Table.Name)
	byName := map[string]*preview.Entity{}
	for i := range res.Entities {
		byName[res.Entities[i].Name] = &res.Entities[i]
	}
	for _, e := range p.Entities {
		d.Entities = append(d.Entities, buildEntity(p, e, byName[e.Name]))
	}
	for _, ap := range p.AccessPatterns {
		d.Patterns = append(d.Patterns, buildPattern(ap, patternDef(p.File, ap.Name)))
	}
	d.Grids = buildGrids(p, res)
	for i := range d.Patterns {
		pv := &d.Patterns[i]
		target := p.Table.Name
		if pv.Target != "table" {
			target = pv.Target
		}
		for gi := range d.Grids {
			if g := &d.Grids[gi]; g.Name == target && pv.query != nil {
				if h := pv.query.run(g); h != nil {
					pv.Diagram = patternSVG(pv.Name, pv.query, h, p.Table.EntityAttr)
				}
			}
		}
	}
	for i := range d.Grids {
		capGrid(&d.Grids[i])
	}
	d.ERD.Diagram = erdSVG(d.ERD)
	if o.MappingSource != nil {
		d.addNotes(o.MappingSource)
	}
	return d
}

func buildERD(p *mapping.Plan) ERD {
	var b bytes.Buffer
	_ = erd.Mermaid(&b, p.Schema) // a bytes.Buffer does not fail
	e := ERD{Mermaid: b.String()}
	mapped := map[*introspect.Table][]string{}
	for _, en := range p.Entities {
		if en.Table.Query == "" {
			if t, err := p.Schema.Table(en.Table.QualifiedName()); err == nil {
				mapped[t] = append(mapped[t], en.Name)
			}
		}
	}
	for _, t := range p.Schema.Tables {
		et := ERDTable{Name: t.QualifiedName(), View: t.View, Mapped: mapped[t]}
		markers := erd.KeyMarkers(t)
		for _, c := range t.Columns {
			et.Columns = append(et.Columns, ERDColumn{Name: c.Name, Type: c.Type, Nullable: c.Nullable, Keys: strings.Join(markers[c.Name], ", ")})
		}
		e.Tables = append(e.Tables, et)
	}
	for _, r := range erd.Relationships(p.Schema) {
		if r.Parent == nil {
			continue
		}
		parent, child := "1", "0..n"
		if r.Optional {
			parent = "0..1"
		}
		if r.OneToOne {
			child = "0..1"
		}
		e.Relationships = append(e.Relationships, ERDRelationship{
			Parent: r.Parent.QualifiedName(), Child: r.Child.QualifiedName(),
			Columns:     strings.Join(r.ForeignKey.Columns, ", "),
			Cardinality: parent + " to " + child,
		})
	}
	return e
}

func keyText(ks []mapping.KeyAttr) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = k.Name + " (" + k.Type + ")"
	}
	return strings.Join(parts, ", ")
}

func buildTable(p *mapping.Plan) TableView {
	t := p.Table
	tv := TableView{Name: t.Name, TTL: t.TTL, EntityAttr: t.EntityAttr, Billing: "on-demand (PAY_PER_REQUEST)"}
	if t.Billing.Provisioned {
		tv.Billing = fmt.Sprintf("provisioned: %d read and %d write capacity units (each global index the same)", t.Billing.Read, t.Billing.Write)
	}
	row := KeyRow{Name: t.Name, Kind: "table", PK: keyText([]mapping.KeyAttr{t.PK})}
	if t.SK != nil {
		row.SK = keyText([]mapping.KeyAttr{*t.SK})
	}
	tv.Keys = append(tv.Keys, row)
	for _, ix := range t.Indexes {
		kind := "global index"
		if ix.Local {
			kind = "local index"
		}
		tv.Keys = append(tv.Keys, KeyRow{Name: ix.Name, Kind: kind, PK: keyText(ix.PK), SK: keyText(ix.SK), Projection: ix.ProjectionText()})
	}
	return tv
}

func buildEntity(p *mapping.Plan, e *mapping.Entity, pe *preview.Entity) EntityView {
	t := &p.Table
	ev := EntityView{Name: e.Name, Where: e.Where, Key: strings.Join(e.Table.PrimaryKey, ", ")}
	switch {
	case e.Table.Query != "":
		ev.Source, ev.Query = "query", strings.TrimSpace(e.Table.Query)
	case e.Table.View:
		ev.Source = "view " + e.Table.QualifiedName()
	default:
		ev.Source = "table " + e.Table.QualifiedName()
	}
	pk, sk := e.KeyTemplates()
	ev.Keys = append(ev.Keys, KeyTemplate{t.PK.Name, pk})
	if t.SK != nil {
		ev.Keys = append(ev.Keys, KeyTemplate{t.SK.Name, sk})
	}
	// Which index keys each attribute feeds.
	feeds := map[string][]string{}
	for _, ix := range t.Indexes {
		for _, k := range append(slices.Clone(ix.PK), ix.SK...) {
			if ix.Local && k.Name == t.PK.Name {
				continue
			}
			feeds[k.Name] = append(feeds[k.Name], ix.Name)
		}
	}
	note := func(name string, extra ...string) string {
		var parts []string
		if ixs := feeds[name]; len(ixs) > 0 {
			parts = append(parts, "key of "+strings.Join(ixs, ", "))
		}
		return strings.Join(append(parts, extra...), "; ")
	}
	for _, d := range p.Attributes(e) {
		ev.Attrs = append(ev.Attrs, attrRow(e, d, note))
	}
	if pe != nil {
		ev.Items, ev.Rejected = len(pe.Items), pe.Rejected
	}
	return ev
}

// patternDef is the access pattern as the file writes it.
func patternDef(f *mapping.File, name string) *mapping.AccessPatternDef {
	for _, ad := range f.AccessPatterns {
		if ad.Name.Value == name {
			return ad
		}
	}
	return &mapping.AccessPatternDef{}
}

func buildPattern(ap *mapping.AccessPattern, def *mapping.AccessPatternDef) PatternView {
	pv := PatternView{Name: ap.Name, Target: "table", Order: ap.Order, Params: def.Params.Value}
	if ap.Index != nil {
		pv.Target = ap.Index.Name
	}
	if ap.Limit > 0 {
		pv.Limit = strconv.Itoa(ap.Limit)
	}
	var conds []string
	for i, s := range def.PK {
		if i < len(ap.PK) {
			conds = append(conds, ap.PK[i].Name+" = "+s.Value)
		}
	}
	if c := def.SK; c != nil {
		for i, s := range c.Eq {
			if i < len(ap.SK) {
				conds = append(conds, ap.SK[i].Name+" = "+s.Value)
			}
		}
		if c.Op != "" && len(c.Eq) < len(ap.SK) {
			name := ap.SK[len(c.Eq)].Name
			switch c.Op {
			case "begins_with":
				conds = append(conds, "begins_with("+name+", "+c.Values[0].Value+")")
			case "between":
				conds = append(conds, name+" BETWEEN "+c.Values[0].Value+" AND "+c.Values[1].Value)
			default:
				conds = append(conds, name+" "+c.Op+" "+c.Values[0].Value)
			}
		}
	}
	pv.KeyCondition = strings.Join(conds, " AND ")
	pv.query = newPatternQuery(ap, def)
	for _, q := range ap.Queries {
		pv.SQL = append(pv.SQL, EntitySQL{Entity: q.Entity.Name, SQL: strings.TrimSpace(q.SQL.Src)})
	}
	return pv
}

type entityItem struct {
	entity string
	item   mapping.Item
}

func buildGrids(p *mapping.Plan, res *preview.Result) []Grid {
	t := &p.Table
	var all []entityItem
	for _, pe := range res.Entities {
		for _, it := range pe.Values {
			all = append(all, entityItem{pe.Name, it})
		}
	}
	tableSK := []mapping.KeyAttr{}
	if t.SK != nil {
		tableSK = []mapping.KeyAttr{*t.SK}
	}
	grids := []Grid{grid(t, t.Name, "table", []mapping.KeyAttr{t.PK}, tableSK, all)}
	for _, ix := range t.Indexes {
		kind := "global index"
		if ix.Local {
			kind = "local index"
		}
		// The items as the index holds them: its projected attributes.
		held := make([]entityItem, len(all))
		for i, ei := range all {
			held[i] = entityItem{ei.entity, ix.Item(ei.item)}
		}
		grids = append(grids, grid(t, ix.Name, kind, ix.PK, ix.SK, held))
	}
	return grids
}

// grid lays out the items that have every key attribute of a target,
// grouped by partition key, sorted by partition and then sort key.
func grid(t *mapping.Table, name, kind string, pk, sk []mapping.KeyAttr, all []entityItem) Grid {
	g := Grid{Name: name, Kind: kind}
	for _, k := range pk {
		g.PK = append(g.PK, k.Name)
	}
	for _, k := range sk {
		g.SK = append(g.SK, k.Name)
	}
	keys := append(slices.Clone(pk), sk...)
	var in []entityItem
	for _, ei := range all {
		ok := true
		for _, k := range keys {
			if ei.item[k.Name] == nil {
				ok = false
			}
		}
		if ok {
			in = append(in, ei)
		}
	}
	sort.SliceStable(in, func(i, j int) bool {
		for _, k := range keys {
			if c := compareAV(in[i].item[k.Name], in[j].item[k.Name]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	isKey := map[string]bool{t.EntityAttr: true}
	for _, k := range keys {
		isKey[k.Name] = true
	}
	for _, ei := range in {
		pkText := joinKey(ei.item, pk)
		if len(g.Groups) == 0 || g.Groups[len(g.Groups)-1].PK != pkText {
			g.Groups = append(g.Groups, Group{PK: pkText, pks: keyTexts(ei.item, pk)})
		}
		row := GridRow{SK: joinKey(ei.item, sk), Entity: ei.entity, sk: keyTexts(ei.item, sk)}
		names := make([]string, 0, len(ei.item))
		for n := range ei.item {
			if !isKey[n] {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			typ, val := valueText(ei.item[n])
			row.Attrs = append(row.Attrs, Attr{Name: n, Type: typ, Value: val})
		}
		grp := &g.Groups[len(g.Groups)-1]
		grp.Rows = append(grp.Rows, row)
		g.Items++
	}
	return g
}

func joinKey(item mapping.Item, ks []mapping.KeyAttr) string {
	return strings.Join(keyTexts(item, ks), " | ")
}

func keyTexts(item mapping.Item, ks []mapping.KeyAttr) []string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = av.KeyText(item[k.Name])
	}
	return parts
}

// The example data is bounded, whatever the partitions hold: a giant
// partition (every row of an entity under one key) would make a page of
// megabytes that a browser takes a minute to lay out.
const (
	maxGroupRows = 25  // items shown of one partition
	maxGridRows  = 300 // items shown of one table or index
)

// capGrid keeps the first maxGroupRows items of each partition and
// maxGridRows of the grid, counting the others (by entity) in the
// partition's last row.
func capGrid(g *Grid) {
	shown := 0
	for gi := range g.Groups {
		grp := &g.Groups[gi]
		keep := min(len(grp.Rows), maxGroupRows, max(0, maxGridRows-shown))
		if keep == 0 {
			g.Hidden += len(grp.Rows)
			grp.Rows, grp.Hidden = nil, len(grp.Rows)
			continue
		}
		if keep < len(grp.Rows) {
			counts := map[string]int{}
			var order []string
			for _, r := range grp.Rows[keep:] {
				if counts[r.Entity] == 0 {
					order = append(order, r.Entity)
				}
				counts[r.Entity]++
			}
			parts := make([]string, len(order))
			for i, e := range order {
				parts[i] = fmt.Sprintf("%s %d", e, counts[e])
			}
			grp.Hidden, grp.HiddenByEnt = len(grp.Rows)-keep, strings.Join(parts, ", ")
			g.Hidden += grp.Hidden
			grp.Rows = grp.Rows[:keep]
		}
		shown += keep
	}
	// Partitions with nothing shown are left out.
	g.Groups = slices.DeleteFunc(g.Groups, func(grp Group) bool { return len(grp.Rows) == 0 })
}

// newPatternQuery is a pattern's Query as templates (patternsvg.go).
func newPatternQuery(ap *mapping.AccessPattern, def *mapping.AccessPatternDef) *patternQuery {
	if len(def.PK) != len(ap.PK) {
		return nil
	}
	q := &patternQuery{order: ap.Order, limit: ap.Limit}
	for i, s := range def.PK {
		q.pkNames = append(q.pkNames, ap.PK[i].Name)
		q.pk = append(q.pk, parseKeyTemplate(s.Value))
	}
	for _, k := range ap.SK {
		q.skNames = append(q.skNames, k.Name)
		q.skNumber = append(q.skNumber, k.Type == "N")
	}
	if c := def.SK; c != nil {
		for _, s := range c.Eq {
			q.skEq = append(q.skEq, parseKeyTemplate(s.Value))
		}
		if c.Op != "" {
			q.op = c.Op
			for _, s := range c.Values {
				q.opVals = append(q.opVals, parseKeyTemplate(s.Value))
			}
		}
	}
	if len(q.skEq) > len(q.skNames) || (q.op != "" && len(q.skEq) >= len(q.skNames)) {
		return nil
	}
	return q
}

// compareNumberText compares two numbers written as text; as text when
// one is not a number.
func compareNumberText(a, b string) int {
	x, _, errX := big.ParseFloat(a, 10, 200, big.ToNearestEven)
	y, _, errY := big.ParseFloat(b, 10, 200, big.ToNearestEven)
	if errX != nil || errY != nil {
		return strings.Compare(a, b)
	}
	return x.Cmp(y)
}

// compareAV orders two key values as DynamoDB does: numbers by value,
// strings and binary by their bytes.
func compareAV(a, b types.AttributeValue) int {
	if an, ok := a.(*types.AttributeValueMemberN); ok {
		if bn, ok := b.(*types.AttributeValueMemberN); ok {
			x, _, errX := big.ParseFloat(an.Value, 10, 200, big.ToNearestEven)
			y, _, errY := big.ParseFloat(bn.Value, 10, 200, big.ToNearestEven)
			if errX == nil && errY == nil {
				return x.Cmp(y)
			}
		}
	}
	if ab, ok := a.(*types.AttributeValueMemberB); ok {
		if bb, ok := b.(*types.AttributeValueMemberB); ok {
			return bytes.Compare(ab.Value, bb.Value)
		}
	}
	return strings.Compare(av.KeyText(a), av.KeyText(b))
}

// maxValue is how many characters of a value a grid shows.
const maxValue = 80

// valueText is an attribute's type and its value as a grid shows it: a
// scalar as its text, anything else as compact DynamoDB JSON, cut at
// maxValue characters.
func valueText(v types.AttributeValue) (typ, text string) {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		typ, text = "S", x.Value
	case *types.AttributeValueMemberN:
		typ, text = "N", x.Value
	case *types.AttributeValueMemberBOOL:
		typ, text = "BOOL", strconv.FormatBool(x.Value)
	case *types.AttributeValueMemberNULL:
		typ, text = "NULL", "null"
	default:
		typ, text = mapping.AVType(v), string(av.MarshalValue(v))
	}
	if r := []rune(text); len(r) > maxValue {
		text = string(r[:maxValue-1]) + "…"
	}
	return typ, text
}
