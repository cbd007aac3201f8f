package verify

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// The oracle checks embedded rows too: the item query selects, per embed,
// the engine's own JSON array of the parent's child rows, aggregated in the
// embed's order by a correlated subquery (PostgreSQL json_agg of to_jsonb,
// MariaDB JSON_ARRAYAGG of JSON_OBJECT, both with ORDER BY), and every
// element of the stored list (or map) is compared with it, column by
// column, by value (a typed column, embed attributes.types, by what its
// type means, as oracle_typed.go compares an entity's). The migrate path reads the child rows by another
// statement and merges them in Go (mapping.Entity.StreamEmbedded), so a
// child row lost, moved or changed on the way shows up here.

// embedJSON is an embed's aggregate in the item query.
type embedJSON struct {
	col  string // the result column
	m    *mapping.Embed
	keys []string // the JSON object key of each column of the child
}

// embedColumns adds the select-list expressions of e's embeds to the item
// query; ref names the parent row in the select list.
func (q *itemQuery) embedColumns(d introspect.Dialect, e *mapping.Entity, ref string) []string {
	var cols []string
	for i, m := range e.Embeds() {
		ej := embedJSON{col: unusedName(q.table, fmt.Sprintf("remodel_embed_%d", i+1)), m: m}
		child := m.Child
		ident, from := d.QuoteIdent, d.TableRef(child)
		var conds, order []string
		for j, l := range m.Link {
			conds = append(conds, "c."+ident(l)+" = "+ref+"."+ident(m.ParentKey[j]))
		}
		if strings.TrimSpace(m.Where) != "" {
			conds = append(conds, "("+m.Where+"\n)")
		}
		for _, o := range m.Order {
			s := "c." + ident(o.Column)
			if o.Desc {
				s += " DESC"
			}
			order = append(order, s)
		}
		// The columns the elements hold (and the map key), for an engine
		// that renders only those (the dialect's OracleChildRows).
		used := map[int]bool{child.ColumnIndex(m.MapKey): true}
		for _, a := range m.Attributes() {
			used[a.Index] = true
		}
		agg, keys := d.OracleChildRows(child, used, strings.Join(order, ", "))
		ej.keys = keys
		cols = append(cols, "(SELECT "+agg+" FROM "+from+" c WHERE "+strings.Join(conds, " AND ")+") AS "+ident(ej.col))
		q.embeds = append(q.embeds, ej)
	}
	return cols
}

// checkEmbeds compares each embed's stored attribute with the engine's
// JSON array of the child rows (ejs, one per embed: the text, or nil when
// the parent has no child rows). row is the rendered row, whose child rows
// tell a JSON column's SQL NULL from a JSON null document.
func (o *oracle) checkEmbeds(embeds []embedJSON, ejs []any, row []any, have mapping.Item) []finding {
	var out []finding
	for i, ej := range embeds {
		m := ej.m
		got := have[m.Name]
		if ejs[i] == nil {
			if got != nil {
				out = append(out, finding{attr: m.Name, column: m.Child.Name, got: av.Text(got), want: "nothing (no rows)"})
			}
			continue
		}
		list, err := parseJSONArray(ejs[i])
		if err != nil {
			out = append(out, finding{attr: m.Name, column: m.Child.Name, got: av.Text(got), note: err.Error()})
			continue
		}
		var kids [][]any
		if idx := len(row) - len(embeds) + i; idx >= 0 && idx < len(row) {
			kids, _ = row[idx].([][]any)
		}
		out = append(out, o.embedded(ej, list, kids, got)...)
	}
	return out
}

// embedded compares the engine's child rows (list) with the stored value.
func (o *oracle) embedded(ej embedJSON, list []any, kids [][]any, got types.AttributeValue) []finding {
	m := ej.m
	whole := func(note string) []finding {
		return []finding{{attr: m.Name, column: m.Child.Name, got: av.Text(got), want: jsonText(list), note: note}}
	}
	var elems []types.AttributeValue
	var names []string
	if m.MapKey == "" {
		l, ok := got.(*types.AttributeValueMemberL)
		if !ok || len(l.Value) != len(list) {
			return whole("")
		}
		elems = l.Value
		for j := range list {
			names = append(names, fmt.Sprintf("%s[%d]", m.Name, j))
		}
	} else {
		mm, ok := got.(*types.AttributeValueMemberM)
		if !ok || len(mm.Value) != len(list) {
			return whole("")
		}
		kc := m.Child.ColumnIndex(m.MapKey)
		for _, jv := range list {
			obj, err := jsonObject(jv)
			if err != nil {
				return whole(err.Error())
			}
			k, el := mapEntry(mm.Value, obj[ej.keys[kc]])
			if el == nil {
				return whole(fmt.Sprintf("no element has the map key %s", jsonText(obj[ej.keys[kc]])))
			}
			elems = append(elems, el)
			names = append(names, m.Name+"."+k)
		}
	}
	var out []finding
	for j, jv := range list {
		obj, err := jsonObject(jv)
		if err != nil {
			return whole(err.Error())
		}
		el, ok := elems[j].(*types.AttributeValueMemberM)
		if !ok {
			out = append(out, finding{attr: names[j], column: m.Child.Name, got: av.Text(elems[j]), want: jsonText(jv)})
			continue
		}
		known := map[string]bool{}
		for _, a := range m.Attributes() {
			known[a.Attr] = true
			jcol, ok := obj[ej.keys[a.Index]]
			if !ok {
				out = append(out, finding{attr: names[j] + "." + a.Attr, column: a.Column.Name, got: av.Text(el.Value[a.Attr]), want: "nothing",
					note: "the source's JSON rendering of the child row has no such column"})
				continue
			}
			sqlNull := jcol == nil
			if j < len(kids) && a.Index < len(kids[j]) {
				sqlNull = kids[j][a.Index] == nil
			}
			ca := a
			ca.Attr = names[j] + "." + a.Attr
			if jcol != nil && o.engine.Dialect().RawJSONColumn(m.Child, a.Column) {
				doc, f, bad, done := rawDocument(ca, jcol, el.Value[a.Attr])
				if bad {
					out = append(out, f)
				}
				if done {
					continue
				}
				jcol = doc
			}
			if f, bad := o.value(ca, jcol, sqlNull, el.Value[a.Attr]); bad {
				out = append(out, f)
			}
		}
		for k, v := range el.Value {
			if !known[k] {
				out = append(out, finding{attr: names[j] + "." + k, column: m.Child.Name, got: av.Text(v), want: "nothing (not an embedded column)"})
			}
		}
	}
	return out
}

// mapEntry finds the element of a stored map whose key is the JSON value
// k (a string, or a number compared by value).
func mapEntry(mm map[string]types.AttributeValue, k any) (string, types.AttributeValue) {
	switch x := k.(type) {
	case string:
		return x, mm[x]
	case json.Number:
		for name, v := range mm {
			if sameDecimal(string(x), name) {
				return name, v
			}
		}
	}
	return jsonText(k), nil
}

// parseJSONArray reads the engine's JSON array of child rows, numbers as
// exact text.
func parseJSONArray(v any) ([]any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("the child rows' JSON rendering is a %T, not text", v)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var l []any
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("the child rows' JSON rendering is not a JSON array: %v", err)
	}
	return l, nil
}

// jsonObject is one child row of the array: an object (or, as some
// engines aggregate, an object's JSON text).
func jsonObject(v any) (map[string]any, error) {
	if s, ok := v.(string); ok {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("a child row's JSON rendering is not an object: %v", err)
		}
		return m, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a child row's JSON rendering is %s, not an object", jsonKind(v))
	}
	return m, nil
}
