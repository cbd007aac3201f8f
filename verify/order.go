package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/mapping"
)

// patternDiff is how one sample's Query differs from its SQL: items the
// Query misses, items it returns that the SQL does not, and for an ordered
// pattern the first position where the order differs.
type patternDiff struct {
	missing   []wantItem
	extra     []queried
	order     *orderMismatch
	different []valueDiff
}

// valueDiff is a compared attribute (wantItem.names) on which an item the
// Query returns differs from the SQL's row.
type valueDiff struct {
	want wantItem
	diff attrDiff
}

func (d patternDiff) ok() bool {
	return len(d.missing) == 0 && len(d.extra) == 0 && d.order == nil && len(d.different) == 0
}

// orderMismatch is the first position (from 0) where the SQL's item is not
// where the Query puts it. Items whose sort key values are equal may come in
// any order: from and to bound the Query's items with the sort key values
// of the item at pos (ties), and tail says the ties go on past the limit.
type orderMismatch struct {
	pos, from, to int
	tail          bool
	want          wantItem
	got           queried
	at            int // where the Query returns want's item, -1 if not at all
}

func (o *orderMismatch) message(ap *mapping.AccessPattern) string {
	var b strings.Builder
	fmt.Fprintf(&b, "position %d of the %s order: the SQL returns %s", o.pos+1, ap.Order, o.want.key)
	if o.to-o.from == 1 && !o.tail {
		fmt.Fprintf(&b, ", the Query %s (%s)", o.got.key, o.got.sort)
	} else {
		fmt.Fprintf(&b, ", which is not among the Query's items at positions %d–%d, whose sort key values are equal (%s) and may come in any order", o.from+1, o.to, o.got.sort)
	}
	switch {
	case o.at >= 0:
		fmt.Fprintf(&b, "; the Query returns it at position %d", o.at+1)
	case ap.Limit > 0:
		fmt.Fprintf(&b, "; the Query does not return it in its first %d", ap.Limit)
	default:
		b.WriteString("; the Query does not return it")
	}
	return b.String()
}

// compare sets the items of one sample's SQL against the Query's: as sets,
// or for an ordered pattern as sequences compared in groups of equal sort
// key values.
func compare(ap *mapping.AccessPattern, want expectation, have queryResult) patternDiff {
	d := compareKeys(ap, want, have)
	d.different = compareValues(want, have)
	return d
}

// compareValues compares the attributes of each item the SQL wants that
// are compared (on an index that projects some attributes only) with the
// item the Query returns with its key, in the SQL's order.
func compareValues(want expectation, have queryResult) []valueDiff {
	var out []valueDiff
	got := map[string]queried{}
	for _, q := range append(have.items[:len(have.items):len(have.items)], have.tail...) {
		got[q.key] = q
	}
	for _, w := range want.items {
		q, ok := got[w.key]
		if !ok || w.names == nil {
			continue
		}
		for _, n := range w.names {
			wv, hv := w.attrs[n], q.item[n]
			if (wv == nil) != (hv == nil) || wv != nil && !mapping.EqualValue(wv, hv) {
				out = append(out, valueDiff{want: w, diff: attrDiff{name: n, want: wv, have: hv}})
			}
		}
	}
	return out
}

// compareKeys compares the items' keys: as sets, or for an ordered pattern
// as sequences.
func compareKeys(ap *mapping.AccessPattern, want expectation, have queryResult) patternDiff {
	if ap.Order == "" {
		var d patternDiff
		in := map[string]bool{}
		for _, q := range have.items {
			in[q.key] = true
		}
		for _, w := range want.items {
			if !in[w.key] {
				d.missing = append(d.missing, w)
			}
		}
		wanted := map[string]bool{}
		for _, w := range want.items {
			wanted[w.key] = true
		}
		for _, q := range have.items {
			if !wanted[q.key] {
				d.extra = append(d.extra, q)
			}
		}
		return d
	}
	if ap.Limit > 0 && want.rows == ap.Limit && len(want.items) < want.rows {
		// Rows accepted as rejected (no item) took places of the SQL's
		// LIMIT: its items are the Query's first len(want.items).
		have = cutAt(have, len(want.items))
	}
	return compareOrdered(want.items, have)
}

// cutAt keeps the first n items of a result and makes the ones after them
// that tie with the n-th its tail.
func cutAt(r queryResult, n int) queryResult {
	if n >= len(r.items) {
		return r
	}
	out := queryResult{items: r.items[:n], cut: true}
	if n == 0 {
		return out
	}
	last := r.items[n-1].sort
	for _, q := range slices.Concat(r.items[n:], r.tail) {
		if q.sort != last {
			break
		}
		out.tail = append(out.tail, q)
	}
	return out
}

// compareOrdered compares the SQL's items, in the SQL's order, with the
// Query's. The order among items with equal sort key values is not defined
// (DynamoDB's or the SQL's), so the Query's items are taken in groups of
// equal sort key values, and the SQL's items at a group's positions must be
// that group's items in any order. When the limit cut a group, its ties past
// the limit (the tail) may take its places too, and for each SQL item from
// the tail one Query item of that group that the SQL left out is no extra
// item.
func compareOrdered(want []wantItem, have queryResult) patternDiff {
	var d patternDiff
	got := map[string]int{}
	for i, q := range have.items {
		got[q.key] = i
	}
	inTail := map[string]bool{}
	for _, q := range have.tail {
		inTail[q.key] = true
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w.key] = true
		if _, ok := got[w.key]; !ok && !inTail[w.key] {
			d.missing = append(d.missing, w)
		}
	}
	// Each SQL item among the ties past the limit stands for one of the
	// Query's ties at the limit that the SQL did not choose.
	swapped := 0
	for _, w := range want {
		if inTail[w.key] {
			swapped++
		}
	}
	lastSort := ""
	if n := len(have.items); n > 0 {
		lastSort = have.items[n-1].sort
	}
	for _, q := range have.items {
		if wanted[q.key] {
			continue
		}
		if swapped > 0 && q.sort == lastSort {
			swapped-- // the SQL chose another of the ties at the limit
			continue
		}
		d.extra = append(d.extra, q)
	}
	for from := 0; from < len(have.items) && from < len(want); {
		to := from + 1
		for to < len(have.items) && have.items[to].sort == have.items[from].sort {
			to++
		}
		tail := have.cut && to == len(have.items) && len(have.tail) > 0
		group := map[string]bool{}
		for _, q := range have.items[from:to] {
			group[q.key] = true
		}
		if tail {
			for _, q := range have.tail {
				group[q.key] = true
			}
		}
		for p := from; p < to && p < len(want); p++ {
			if group[want[p].key] {
				continue
			}
			at, ok := got[want[p].key]
			if !ok {
				at = -1
			}
			d.order = &orderMismatch{pos: p, from: from, to: to, tail: tail, want: want[p], got: have.items[p], at: at}
			return d
		}
		from = to
	}
	return d
}
