package document

import (
	"fmt"
	"html/template"
	"regexp"
	"slices"
	"strings"
)

// dateLike is a value that starts like a date or a timestamp.
var dateLike = regexp.MustCompile(`^\d{4}-\d\d-\d\d`)

// An access pattern drawn on the example data (NoSQL Workbench's facets):
// a partition of its table or index among the previewed ones, its items
// in sort key order, and the items the pattern's Query returns
// highlighted, with the key condition as it is for that partition. The
// parameters are read off the items (the partition key's placeholders
// from the partition's value, the sort key's from an item), so nothing is
// sampled from the source.

// keyTemplate is a key template cut into literal text and placeholders
// ({user_id}, {created_at|iso}).
type keyTemplate []tpart

type tpart struct {
	lit string
	ph  string // the placeholder's text between the braces; "" for a literal
}

func parseKeyTemplate(s string) keyTemplate {
	var t keyTemplate
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "{{"):
			lit.WriteByte('{')
			i++
		case strings.HasPrefix(s[i:], "}}"):
			lit.WriteByte('}')
			i++
		case s[i] == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				lit.WriteString(s[i:])
				i = len(s)
				continue
			}
			if lit.Len() > 0 {
				t = append(t, tpart{lit: lit.String()})
				lit.Reset()
			}
			t = append(t, tpart{ph: strings.TrimSpace(s[i+1 : i+end])})
			i += end
		default:
			lit.WriteByte(s[i])
		}
	}
	if lit.Len() > 0 {
		t = append(t, tpart{lit: lit.String()})
	}
	return t
}

// match matches s (whole, or a prefix of it when prefix is set) against
// the template, binding its placeholders: a bound one must equal its
// value, an unbound one takes the shortest text that lets the rest match.
// bind is changed only on success.
func (t keyTemplate) match(s string, bind map[string]string, prefix bool) bool {
	got := map[string]string{}
	var rec func(i int, rest string) bool
	rec = func(i int, rest string) bool {
		if i == len(t) {
			return prefix || rest == ""
		}
		p := t[i]
		if p.ph == "" {
			return strings.HasPrefix(rest, p.lit) && rec(i+1, rest[len(p.lit):])
		}
		v, ok := bind[p.ph]
		if !ok {
			v, ok = got[p.ph]
		}
		if ok {
			return strings.HasPrefix(rest, v) && rec(i+1, rest[len(v):])
		}
		for n := 1; n <= len(rest); n++ {
			got[p.ph] = rest[:n]
			if rec(i+1, rest[n:]) {
				return true
			}
		}
		delete(got, p.ph)
		return false
	}
	if !rec(0, s) {
		return false
	}
	for k, v := range got {
		bind[k] = v
	}
	return true
}

// render is the template with its placeholders' values; false when one is
// not bound.
func (t keyTemplate) render(bind map[string]string) (string, bool) {
	var b strings.Builder
	for _, p := range t {
		if p.ph == "" {
			b.WriteString(p.lit)
			continue
		}
		v, ok := bind[p.ph]
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// patternQuery is what a pattern's Query asks, as templates.
type patternQuery struct {
	pkNames, skNames []string
	skNumber         []bool // a sort key attribute of type N
	pk, skEq, opVals []keyTemplate
	op               string
	order            string
	limit            int
}

// patternHit is a pattern's Query on one previewed partition.
type patternHit struct {
	group    *Group
	selected []int // rows returned, in the order the Query returns them
	cond     string
}

// evaluate runs the query on one partition with bindings, in the order
// and limit of the pattern; nil when it returns nothing or a value is
// unbound.
func (q *patternQuery) evaluate(g *Group, bind map[string]string) []int {
	eq := make([]string, len(q.skEq))
	for i, t := range q.skEq {
		v, ok := t.render(bind)
		if !ok {
			return nil
		}
		eq[i] = v
	}
	vals := make([]string, len(q.opVals))
	for i, t := range q.opVals {
		v, ok := t.render(bind)
		if !ok {
			return nil
		}
		vals[i] = v
	}
	var sel []int
	for ri, r := range g.Rows {
		if q.rowMatches(r, eq, vals) {
			sel = append(sel, ri)
		}
	}
	if q.order == "desc" {
		slices.Reverse(sel)
	}
	if q.limit > 0 && len(sel) > q.limit {
		sel = sel[:q.limit]
	}
	return sel
}

func (q *patternQuery) rowMatches(r GridRow, eq, vals []string) bool {
	for i, v := range eq {
		if i >= len(r.sk) || r.sk[i] != v {
			return false
		}
	}
	if q.op == "" {
		return true
	}
	i := len(eq)
	if i >= len(r.sk) {
		return false
	}
	cmp := func(v string) int {
		if i < len(q.skNumber) && q.skNumber[i] {
			return compareNumberText(r.sk[i], v)
		}
		return strings.Compare(r.sk[i], v)
	}
	switch q.op {
	case "begins_with":
		return strings.HasPrefix(r.sk[i], vals[0])
	case "between":
		return cmp(vals[0]) >= 0 && cmp(vals[1]) <= 0
	case "<":
		return cmp(vals[0]) < 0
	case "<=":
		return cmp(vals[0]) <= 0
	case ">":
		return cmp(vals[0]) > 0
	case ">=":
		return cmp(vals[0]) >= 0
	}
	return false
}

// bindFrom reads the sort key's placeholders off one row; false when the
// row does not have the condition's shape.
func (q *patternQuery) bindFrom(r GridRow, bind map[string]string, other *GridRow) bool {
	for i, t := range q.skEq {
		if i >= len(r.sk) || !t.match(r.sk[i], bind, false) {
			return false
		}
	}
	if q.op == "" {
		return true
	}
	i := len(q.skEq)
	if i >= len(r.sk) || len(q.opVals) == 0 {
		return false
	}
	if !q.opVals[0].match(r.sk[i], bind, q.op == "begins_with") {
		return false
	}
	if q.op == "between" && len(q.opVals) > 1 {
		o := r
		if other != nil {
			o = *other
		}
		if i >= len(o.sk) || !q.opVals[1].match(o.sk[i], bind, false) {
			return false
		}
	}
	return true
}

// run finds the previewed partition where the pattern shows best: the
// one whose Query returns the most entities, then the most items.
func (q *patternQuery) run(g *Grid) *patternHit {
	var best *patternHit
	bestEntities := 0
	for gi := range g.Groups {
		grp := &g.Groups[gi]
		bind := map[string]string{}
		ok := len(grp.pks) == len(q.pk)
		for i := 0; ok && i < len(q.pk); i++ {
			ok = q.pk[i].match(grp.pks[i], bind, false)
		}
		if !ok {
			continue
		}
		var tries []map[string]string
		if sel := q.evaluate(grp, bind); sel != nil {
			tries = append(tries, bind)
		} else {
			// Parameters from the items: the middle one for a range (so
			// that it returns some and not all), each of the first ones
			// otherwise.
			n := len(grp.Rows)
			idx := []int{}
			switch q.op {
			case "<", "<=", ">", ">=", "between":
				idx = []int{n / 2, n / 4, 0}
			default:
				for i := 0; i < min(n, 64); i++ {
					idx = append(idx, i)
				}
			}
			for _, i := range idx {
				b := map[string]string{}
				for k, v := range bind {
					b[k] = v
				}
				other := grp.Rows[min(n-1, i+max(1, n/2))]
				if q.bindFrom(grp.Rows[i], b, &other) {
					tries = append(tries, b)
					if q.op != "" && q.op != "begins_with" {
						break // a range: the first that binds, from the middle
					}
				}
			}
		}
		for _, b := range tries {
			sel := q.evaluate(grp, b)
			if len(sel) == 0 {
				continue
			}
			ents := map[string]bool{}
			for _, i := range sel {
				ents[grp.Rows[i].Entity] = true
			}
			if best == nil || len(ents) > bestEntities || (len(ents) == bestEntities && len(sel) > len(best.selected)) {
				best, bestEntities = &patternHit{group: grp, selected: sel, cond: q.condition(grp, b)}, len(ents)
			}
		}
	}
	return best
}

// condition is the key condition with the values of one partition.
func (q *patternQuery) condition(g *Group, bind map[string]string) string {
	var parts []string
	for i, n := range q.pkNames {
		if i < len(g.pks) {
			parts = append(parts, n+" = "+g.pks[i])
		}
	}
	for i, t := range q.skEq {
		v, _ := t.render(bind)
		parts = append(parts, q.skNames[i]+" = "+v)
	}
	if q.op != "" && len(q.skEq) < len(q.skNames) {
		name := q.skNames[len(q.skEq)]
		var vals []string
		for _, t := range q.opVals {
			v, _ := t.render(bind)
			vals = append(vals, v)
		}
		switch q.op {
		case "begins_with":
			parts = append(parts, "begins_with("+name+", "+vals[0]+")")
		case "between":
			parts = append(parts, name+" BETWEEN "+vals[0]+" AND "+vals[1])
		default:
			parts = append(parts, name+" "+q.op+" "+vals[0])
		}
	}
	return strings.Join(parts, " AND ")
}

const (
	patWidth   = 960.0
	patRow     = 24.0
	patPKW     = 190.0
	patShown   = 14 // rows drawn of a partition
	patFont    = 12.0
	patRowsX   = patPKW + 10
	patRowsW   = 600.0
	patBracket = patRowsX + patRowsW + 8
)

// patternSVG draws a pattern's Query on one partition: the partition key,
// its items (at most patShown, around the returned ones), the returned
// ones highlighted, and how many it returns.
func patternSVG(name string, q *patternQuery, h *patternHit, entityAttr string) template.HTML {
	g := h.group
	n := len(g.Rows)
	sel := map[int]int{} // row → its place in the result
	first, last := n, -1
	for k, i := range h.selected {
		sel[i] = k + 1
		first, last = min(first, i), max(last, i)
	}
	start := max(0, first-2)
	end := min(n, start+patShown)
	if last >= end && last-first < patShown {
		end = min(n, last+3)
		start = max(0, end-patShown)
	}
	var s svgDoc
	y := 4.0
	s.text(0, y+13, patFont, "pat-cond", "", "Query "+h.cond, patWidth)
	y += 24
	rows := end - start
	extra := 0
	if start > 0 {
		extra++
	}
	if end < n {
		extra++
	}
	boxH := max(patRow*float64(rows+extra), 62)
	s.rect(0, y, patPKW, boxH-2, "pat-pk", ` rx="3"`)
	s.text(8, y+16, patFont-2, "muted", "", "partition key "+strings.Join(q.pkNames, ", "), patPKW-16)
	s.text(8, y+34, patFont+1, "pat-pk-value", "", g.PK, patPKW-16)
	s.text(8, y+52, patFont-2, "muted", "", plural(n, "item"), patPKW-16)
	ry := y
	gap := func(k int, what string) {
		s.text(patRowsX+8, ry+16, patFont-1, "muted", "", fmt.Sprintf("… %s %s", plural(k, "item"), what), patRowsW)
		ry += patRow
	}
	if start > 0 {
		gap(start, "before")
	}
	selTop, selBottom := -1.0, -1.0
	for i := start; i < end; i++ {
		r := g.Rows[i]
		cls := "pat-item"
		if _, ok := sel[i]; ok {
			cls += " pat-hit"
			if selTop < 0 {
				selTop = ry
			}
			selBottom = ry + patRow - 2
		}
		s.f(`<g class="%s" data-entity="%s">`, cls, esc(r.Entity))
		s.rect(patRowsX, ry, patRowsW, patRow-2, "pat-row", ` rx="3"`)
		s.text(patRowsX+8, ry+16, patFont, "pat-sk", "", r.SK, 270)
		s.text(patRowsX+290, ry+16, patFont-1, "pat-entity", "", r.Entity, 100)
		// What tells the items apart first: names, titles, settings;
		// timestamps last.
		var attrs, later []string
		for _, a := range r.Attrs {
			switch {
			case a.Name == entityAttr:
			case dateLike.MatchString(a.Value):
				later = append(later, a.Name+": "+a.Value)
			default:
				attrs = append(attrs, a.Name+": "+a.Value)
			}
		}
		attrs = append(attrs, later...)
		if len(attrs) > 3 {
			attrs = attrs[:3]
		}
		s.text(patRowsX+396, ry+16, patFont-1, "pat-attrs", "", strings.Join(attrs, "  "), patRowsW-404)
		s.f(`</g>`)
		ry += patRow
	}
	if end < n {
		gap(n-end, "after")
	}
	if selTop >= 0 {
		x := patBracket
		s.f(`<path class="pat-bracket" d="M%s %s h8 V%s h-8"/>`, num(x), num(selTop+2), num(selBottom-2))
		label := "returns " + plural(len(h.selected), "item")
		if q.order != "" {
			label += ", " + q.order
		}
		s.text(x+14, (selTop+selBottom)/2+4, patFont, "pat-count", "", label, patWidth-x-14)
	}
	return s.wrap("pattern-diagram", "The items access pattern "+name+" returns from partition "+g.PK, patWidth, max(ry, y+boxH)+6)
}
