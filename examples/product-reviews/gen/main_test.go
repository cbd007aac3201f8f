package main

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/examples/internal/gentest"
)

// TestDataSQLIsCurrent pins the committed data.sql to the generator, which
// gives the same bytes every run.
func TestDataSQLIsCurrent(t *testing.T) {
	gentest.DataSQLIsCurrent(t, "product-reviews", run)
	gentest.Deterministic(t, run)
}

// sortKey is the review's sort key in mapping.yaml, padded (as the
// example writes it) or not (as the article's first try).
func sortKey(rv review, padded bool) string {
	body := 0
	if rv.body != "" {
		body = 1
	}
	like := fmt.Sprint(rv.likes)
	if padded {
		like = fmt.Sprintf("%08d", rv.likes)
	}
	return fmt.Sprintf("REVIEW#body=%d#like=%s#score=%d#createdAt=%d#id=%010d", body, like, rv.score, rv.created.UnixMilli(), rv.id)
}

// rank orders reviews as the access patterns' SQL does: body first, then
// likes, score, created_at and review_id, each descending.
func rank(a, b review) int {
	key := func(rv review) []int64 {
		body := int64(0)
		if rv.body != "" {
			body = 1
		}
		return []int64{body, rv.likes, rv.score, rv.created.Unix(), rv.id}
	}
	return -slices.Compare(key(a), key(b))
}

// TestData checks what the schema and README.md rely on: keys and foreign
// keys, the columns' ranges, the article's reviews and ties; and the
// property the design rests on: the padded sort keys, sorted as strings,
// give the SQL's order for every product, and the unpadded ones do not.
func TestData(t *testing.T) {
	d := generate()
	ids := map[int64]bool{}
	for _, p := range d.products {
		ids[p.id] = true
	}
	per := map[int64][]review{}
	for i, rv := range d.reviews {
		switch {
		case rv.id != int64(i+1):
			t.Errorf("review %d has id %d", i+1, rv.id)
		case !ids[rv.productID]:
			t.Errorf("review %d: unknown product %d", rv.id, rv.productID)
		case rv.likes < 0 || rv.likes > maxLikes || rv.score < 1 || rv.score > 5:
			t.Errorf("review %d: %d likes, score %d", rv.id, rv.likes, rv.score)
		case rv.created.Before(articleTime) || rv.created.After(articleTime.Add(2*365*24*time.Hour)) || rv.created.Nanosecond() != 0:
			t.Errorf("review %d: created %v", rv.id, rv.created)
		}
		per[rv.productID] = append(per[rv.productID], rv)
	}
	if len(d.products) != products || len(per[products]) != 0 || len(d.reviews) < 800 {
		t.Errorf("%d products, %d reviews, %d of the last product", len(d.products), len(d.reviews), len(per[products]))
	}
	unpaddedWrong := 0
	for id, rvs := range per {
		byRank := slices.Clone(rvs)
		slices.SortStableFunc(byRank, rank)
		for _, padded := range []bool{true, false} {
			byKey := slices.Clone(rvs)
			sort.SliceStable(byKey, func(i, j int) bool { return sortKey(byKey[i], padded) > sortKey(byKey[j], padded) })
			same := slices.EqualFunc(byRank, byKey, func(a, b review) bool { return a.id == b.id })
			if padded && !same {
				t.Errorf("product %d: the padded sort keys do not sort as the SQL", id)
			}
			if !padded && !same {
				unpaddedWrong++
			}
		}
	}
	if unpaddedWrong < products/2 {
		t.Errorf("the unpadded sort keys sort %d products wrong: the data does not show why likes is padded", unpaddedWrong)
	}

	// Product 1: the article's four like counts in its top 4 with a body,
	// and three reviews tied on every sort attribute.
	top := slices.Clone(per[1])
	slices.SortStableFunc(top, rank)
	var likes []int64
	for _, rv := range top[:5] {
		likes = append(likes, rv.likes)
	}
	if !slices.Equal(likes, []int64{200, 31, 31, 31, 10}) {
		t.Errorf("product 1's top 5 likes: %v", likes)
	}
	// Product 2: places 20 to 23 with a body tie on every sort attribute
	// but the id, and place 19 does not.
	top = nil
	for _, rv := range per[2] {
		if rv.body != "" {
			top = append(top, rv)
		}
	}
	slices.SortStableFunc(top, rank)
	tie := func(a, b review) bool { return a.likes == b.likes && a.score == b.score && a.created.Equal(b.created) }
	if len(top) < 24 || tie(top[18], top[19]) || !tie(top[19], top[22]) || tie(top[22], top[23]) {
		t.Errorf("product 2's reviews with a body do not tie at places 20 to 23")
	}
}
