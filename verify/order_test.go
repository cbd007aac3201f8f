package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/mapping"
)

// items builds wanted items from keys "a b c".
func items(keys string) []wantItem {
	var out []wantItem
	for _, k := range strings.Fields(keys) {
		out = append(out, wantItem{key: k, entity: "e"})
	}
	return out
}

// result builds a Query result from "key:sort" words; a word after "|"
// is in the tail.
func result(words string, cut bool) queryResult {
	r := queryResult{cut: cut}
	inTail := false
	for _, w := range strings.Fields(words) {
		if w == "|" {
			inTail = true
			continue
		}
		k, s, _ := strings.Cut(w, ":")
		q := queried{key: k, entity: "e", sort: "score=" + s}
		if inTail {
			r.tail = append(r.tail, q)
		} else {
			r.items = append(r.items, q)
		}
	}
	return r
}

func keysOf[T any](xs []T, key func(T) string) string {
	var out []string
	for _, x := range xs {
		out = append(out, key(x))
	}
	return strings.Join(out, " ")
}

// TestCompareOrdered compares the SQL's items with the Query's in groups of
// equal sort key values, with the ties the limit cut.
func TestCompareOrdered(t *testing.T) {
	ordered := &mapping.AccessPattern{Order: "desc", Limit: 3}
	tests := []struct {
		name          string
		want          string
		rows          int // 0: as many as want's items
		have          string
		cut           bool
		missing, xtra string
		order         string // the order problem's message, "" for none
	}{
		{name: "same order", want: "a b c", have: "a:3 b:2 c:1", cut: true},
		{name: "swapped", want: "a b c", have: "b:3 a:2 c:1", cut: true,
			order: "position 1 of the desc order: the SQL returns a, the Query b (score=3); the Query returns it at position 2"},
		{name: "ties in any order", want: "a b c", have: "a:3 c:2 b:2", cut: true},
		{name: "a tie out of its group", want: "a b c", have: "b:3 c:2 a:2", cut: true,
			order: "position 1 of the desc order: the SQL returns a, the Query b (score=3); the Query returns it at position 3"},
		{name: "a tie group that is not the SQL's", want: "a b c", have: "a:3 x:2 y:2", cut: true, missing: "b c", xtra: "x y",
			order: "position 2 of the desc order: the SQL returns b, which is not among the Query's items at positions 2–3, whose sort key values are equal (score=2) and may come in any order; the Query does not return it in its first 3"},
		{name: "the SQL chose other ties at the limit", want: "a b c", have: "a:3 b:1 x:1 | c:1 y:1", cut: true},
		{name: "the SQL's tie is not among the ties at the limit", want: "a b z", have: "a:3 b:1 x:1 | c:1", cut: true, missing: "z", xtra: "x",
			order: "position 3 of the desc order: the SQL returns z, which is not among the Query's items at positions 2–3, whose sort key values are equal (score=1) and may come in any order; the Query does not return it in its first 3"},
		{name: "a wrong first item hidden by the limit", want: "a b c", have: "w:9 a:3 b:2", cut: true, missing: "c", xtra: "w",
			order: "position 1 of the desc order: the SQL returns a, the Query w (score=9); the Query returns it at position 2"},
		{name: "the Query returns fewer", want: "a b c", have: "a:3 b:2", missing: "c"},
		{name: "the Query returns more", want: "a b", have: "a:3 b:2 c:1", cut: true, xtra: "c"},
		{name: "a rejected row took a place of the SQL's limit", want: "a b", rows: 3, have: "a:3 b:2 c:1", cut: true},
		{name: "a rejected row, and ties at the new cut", want: "a c", rows: 3, have: "a:3 b:2 c:2", cut: true},
		{name: "nothing", want: "", have: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := expectation{items: items(tt.want), rows: tt.rows}
			if want.rows == 0 {
				want.rows = len(want.items)
			}
			d := compare(ordered, want, result(tt.have, tt.cut))
			if got := keysOf(d.missing, func(w wantItem) string { return w.key }); got != tt.missing {
				t.Errorf("missing %q, want %q", got, tt.missing)
			}
			if got := keysOf(d.extra, func(q queried) string { return q.key }); got != tt.xtra {
				t.Errorf("extra %q, want %q", got, tt.xtra)
			}
			got := ""
			if d.order != nil {
				got = d.order.message(ordered)
			}
			if got != tt.order {
				t.Errorf("order problem\n%s\nwant\n%s", got, tt.order)
			}
			if d.ok() != (tt.missing == "" && tt.xtra == "" && tt.order == "") {
				t.Errorf("ok() = %v", d.ok())
			}
		})
	}
}

// TestCompareUnordered: without order, the items are compared as sets.
func TestCompareUnordered(t *testing.T) {
	ap := &mapping.AccessPattern{}
	d := compare(ap, expectation{items: items("a b c"), rows: 3}, result("c:1 a:2 x:3", false))
	got := fmt.Sprint(keysOf(d.missing, func(w wantItem) string { return w.key }), "/", keysOf(d.extra, func(q queried) string { return q.key }), "/", d.order == nil)
	if got != "b/x/true" {
		t.Errorf("missing/extra/no order = %s, want b/x/true", got)
	}
	if d := compare(ap, expectation{items: items("a b"), rows: 2}, result("b:1 a:2", false)); !d.ok() {
		t.Errorf("the same set in another order differs: %+v", d)
	}
}
