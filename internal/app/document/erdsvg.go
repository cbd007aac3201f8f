package document

import (
	"html/template"
	"slices"
	"strings"
)

// The ERD drawn: one box per table (its columns, key markers and the
// entities that read it), parents to the left of their children, each
// foreign key a line from the parent's name to the child's column, with a
// crow's foot at the child (a bar when the relationship is one to one).

const (
	erdFont      = 12.0
	erdRow       = 17.0
	erdHead      = 22.0
	erdGapX      = 70.0
	erdGapY      = 18.0
	erdMaxCols   = 14    // columns listed in a box; the rest are counted
	erdMaxHeight = 900.0 // a level's boxes wrap into another column beyond this
	erdMaxWidth  = 300.0
	erdMinWidth  = 150.0
	erdNameX     = 44.0 // a column's name, after its key markers
)

// shortType shortens the long spellings of common types so that a box
// stays narrow: varchar(32), timestamptz(0).
func shortType(t string) string {
	for _, r := range []struct{ long, short string }{
		{"character varying", "varchar"},
		{"character", "char"},
		{"timestamp without time zone", "timestamp"},
		{"time without time zone", "time"},
		{"double precision", "double"},
	} {
		if strings.HasPrefix(t, r.long) {
			t = r.short + t[len(r.long):]
		}
	}
	if strings.HasPrefix(t, "timestamp") && strings.HasSuffix(t, " with time zone") {
		t = "timestamptz" + strings.TrimSuffix(strings.TrimPrefix(t, "timestamp"), " with time zone")
	}
	if strings.HasPrefix(t, "time") && strings.HasSuffix(t, " with time zone") {
		t = "timetz" + strings.TrimSuffix(strings.TrimPrefix(t, "time"), " with time zone")
	}
	return t
}

type erdBox struct {
	t          *ERDTable
	x, y, w, h float64
	level      int
	shown      int // columns listed
}

// colY is the y of a column's row (its middle), or of the header when the
// column is not listed.
func (b *erdBox) colY(col string) float64 {
	for i := 0; i < b.shown; i++ {
		if b.t.Columns[i].Name == col {
			return b.y + b.head() + erdRow*float64(i) + erdRow/2
		}
	}
	return b.y + erdHead/2
}

func (b *erdBox) head() float64 {
	if len(b.t.Mapped) > 0 {
		return erdHead + erdRow - 4
	}
	return erdHead
}

// erdSVG draws the ERD; "" when the schema has no table.
func erdSVG(e ERD) template.HTML {
	if len(e.Tables) == 0 {
		return ""
	}
	boxes, byName := erdBoxes(e)
	erdLevels(e, boxes, byName)
	width, height := erdPlace(e, boxes, byName)
	var s svgDoc
	// The lines first, under the boxes.
	for i, r := range e.Relationships {
		p, c := byName[r.Parent], byName[r.Child]
		if p == nil || c == nil {
			continue
		}
		width = max(width, s.erdLine(i, r, p, c))
	}
	for _, b := range boxes {
		s.erdBox(b)
	}
	return s.wrap("erd-diagram", "Entity-relationship diagram of the source", width, height+10)
}

// erdBoxes are the tables' boxes, sized to their names, entities and
// the columns shown, and the same by table name.
func erdBoxes(e ERD) ([]*erdBox, map[string]*erdBox) {
	boxes := make([]*erdBox, len(e.Tables))
	byName := map[string]*erdBox{}
	for i := range e.Tables {
		t := &e.Tables[i]
		b := &erdBox{t: t, shown: min(len(t.Columns), erdMaxCols)}
		w := textWidth(t.Name+" (view)", erdFont+1) + 16
		if len(t.Mapped) > 0 {
			w = max(w, textWidth("→ "+strings.Join(t.Mapped, ", "), erdFont-1)+16)
		}
		for _, c := range t.Columns[:b.shown] {
			w = max(w, erdNameX+textWidth(c.Name, erdFont)+14+textWidth(shortType(c.Type)+"?", erdFont-1)+8)
		}
		b.w = min(max(w, erdMinWidth), erdMaxWidth)
		b.h = b.head() + erdRow*float64(b.shown) + 6
		if len(t.Columns) > b.shown {
			b.h += erdRow
		}
		boxes[i], byName[t.Name] = b, b
	}
	return boxes, byName
}

// erdLevels puts a child one level to the right of its deepest parent (a
// cycle stops growing after as many rounds as there are tables).
func erdLevels(e ERD, boxes []*erdBox, byName map[string]*erdBox) {
	for range boxes {
		changed := false
		for _, r := range e.Relationships {
			p, c := byName[r.Parent], byName[r.Child]
			if p == nil || c == nil || p == c {
				continue
			}
			if c.level < p.level+1 && p.level+1 < len(boxes) {
				c.level, changed = p.level+1, true
			}
		}
		if !changed {
			break
		}
	}
}

// erdPlace places the boxes level by level, and returns the drawing's
// width and height.
func erdPlace(e ERD, boxes []*erdBox, byName map[string]*erdBox) (width, height float64) {
	maxLevel := 0
	for _, b := range boxes {
		maxLevel = max(maxLevel, b.level)
	}
	x := 10.0
	for lv := 0; lv <= maxLevel; lv++ {
		var in []*erdBox
		for _, b := range boxes {
			if b.level == lv {
				in = append(in, b)
			}
		}
		if len(in) == 0 {
			continue
		}
		if lv > 0 {
			erdSortByParents(e, in, byName, lv)
		}
		y, colW := 10.0, 0.0
		for _, b := range in {
			if y > 10 && y+b.h > erdMaxHeight {
				x += colW + erdGapX/2
				y, colW = 10, 0
			}
			b.x, b.y = x, y
			y += b.h + erdGapY
			colW = max(colW, b.w)
			height = max(height, b.y+b.h)
		}
		x += colW + erdGapX
		width = x - erdGapX + 10
	}
	return width, height
}

// erdSortByParents orders the boxes of level lv by the mean height of
// their parents already placed, so that lines cross less.
func erdSortByParents(e ERD, in []*erdBox, byName map[string]*erdBox, lv int) {
	parentY := func(b *erdBox) float64 {
		sum, n := 0.0, 0
		for _, r := range e.Relationships {
			if p := byName[r.Parent]; r.Child == b.t.Name && p != nil && p.level < lv {
				sum, n = sum+p.y, n+1
			}
		}
		if n == 0 {
			return 0
		}
		return sum / float64(n)
	}
	slices.SortStableFunc(in, func(a, b *erdBox) int {
		pa, pb := parentY(a), parentY(b)
		switch {
		case pa < pb:
			return -1
		case pa > pb:
			return 1
		}
		return 0
	})
}

// erdLine draws relationship i from parent box p to child box c, and
// returns how wide the drawing must be for it (0: as wide as the boxes).
func (s *svgDoc) erdLine(i int, r ERDRelationship, p, c *erdBox) (width float64) {
	col := ""
	if cols := strings.Split(r.Columns, ", "); len(cols) > 0 {
		col = cols[0]
	}
	sx, sy := p.x+p.w, p.y+erdHead/2
	ey := c.colY(col)
	one := strings.HasSuffix(r.Cardinality, "to 0..1")
	hue := (i * 47) % 360
	s.f(`<g class="erd-fk" style="stroke:hsl(%d,55%%,45%%)"><title>%s</title>`, hue, esc(r.Parent+" 1 — "+r.Child+" ("+r.Columns+")"))
	var ex, dir float64
	if c.x > p.x+p.w {
		// Child to the right: into its left side.
		ex, dir = c.x, -1
		mid := (sx + ex) / 2
		s.f(`<path d="M%s %s C%s %s %s %s %s %s"/>`, num(sx), num(sy), num(mid), num(sy), num(mid), num(ey), num(ex-10), num(ey))
	} else {
		// Same column, a cycle or the table itself: around the right.
		ex, dir = c.x+c.w, 1
		out := max(sx, ex) + 30 + float64(i%4)*8
		s.f(`<path d="M%s %s C%s %s %s %s %s %s"/>`, num(sx), num(sy), num(out), num(sy), num(out), num(ey), num(ex+10), num(ey))
		width = out + 10
	}
	// The last 10 pixels straight, then the child's end.
	s.f(`<path d="M%s %s L%s %s"/>`, num(ex+10*(-dir)), num(ey), num(ex), num(ey))
	if one {
		s.f(`<path d="M%s %s L%s %s"/>`, num(ex-6*dir), num(ey-5), num(ex-6*dir), num(ey+5))
	} else {
		s.f(`<path d="M%s %s L%s %s L%s %s"/>`, num(ex-9*dir), num(ey), num(ex), num(ey-5), num(ex), num(ey+5))
		s.f(`<path d="M%s %s L%s %s"/>`, num(ex-9*dir), num(ey), num(ex), num(ey+5))
	}
	// The parent's end: a bar (exactly one), a circle and a bar when
	// the foreign key may be NULL (zero or one).
	s.f(`<path d="M%s %s L%s %s"/>`, num(sx+6), num(sy-5), num(sx+6), num(sy+5))
	if strings.HasPrefix(r.Cardinality, "0..1") {
		s.f(`<circle cx="%s" cy="%s" r="3" class="erd-open"/>`, num(sx+13), num(sy))
	}
	s.f(`</g>`)
	return width
}

// erdBox draws a table's box: its name, its entities, its columns with
// their keys and types, and how many more columns it has.
func (s *svgDoc) erdBox(b *erdBox) {
	t := b.t
	cls := "erd-box"
	if len(t.Mapped) > 0 {
		cls += " erd-mapped"
	}
	if t.View {
		cls += " erd-view"
	}
	s.f(`<g class="%s" data-table="%s">`, cls, esc(t.Name))
	s.rect(b.x, b.y, b.w, b.h, "erd-frame", ` rx="4"`)
	s.rect(b.x, b.y, b.w, b.head(), "erd-head", ` rx="4"`)
	name := t.Name
	if t.View {
		name += " (view)"
	}
	s.text(b.x+8, b.y+15, erdFont+1, "erd-name", "", name, b.w-16)
	if len(t.Mapped) > 0 {
		s.text(b.x+8, b.y+erdHead+9, erdFont-1, "erd-entities", "", "→ "+strings.Join(t.Mapped, ", "), b.w-16)
	}
	for i, c := range t.Columns[:b.shown] {
		y := b.y + b.head() + erdRow*float64(i) + erdRow - 4
		if c.Keys != "" {
			s.text(b.x+5, y, erdFont-3, "erd-key", "", strings.ReplaceAll(c.Keys, " ", ""), erdNameX-8)
		}
		typ := shortType(c.Type)
		if c.Nullable {
			typ += "?"
		}
		typeW := min(textWidth(typ, erdFont-1), (b.w-erdNameX)/2)
		s.text(b.x+erdNameX, y, erdFont, "erd-col", "", c.Name, b.w-erdNameX-typeW-12)
		s.text(b.x+b.w-6, y, erdFont-1, "erd-type", "end", typ, typeW+2)
	}
	if more := len(t.Columns) - b.shown; more > 0 {
		s.text(b.x+erdNameX, b.y+b.head()+erdRow*float64(b.shown)+erdRow-4, erdFont-1, "erd-type", "", plural(more, "more column"), b.w-erdNameX-6)
	}
	s.f(`</g>`)
}
