package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/examples/internal/gentest"
)

// TestDataSQLIsCurrent pins the committed data.sql to the generator, which
// gives the same bytes every run.
func TestDataSQLIsCurrent(t *testing.T) {
	gentest.DataSQLIsCurrent(t, "leaderboard", run)
	gentest.Deterministic(t, run)
}

// TestShape checks what README.md relies on: the article's week is there,
// friendships go both ways, some users have no friend, scores stay below
// 99999 (the article's upper bound in every ranking Query).
func TestShape(t *testing.T) {
	tbls := generate()
	byName := map[string]table{}
	for _, tb := range tbls {
		byName[tb.name] = tb
	}
	found := false
	for _, r := range byName["weeks"].rows {
		if r[1] == "'2014-05-09'" && r[2] == "'2014-05-15'" {
			found = true
		}
	}
	if !found {
		t.Error("no week 2014-05-09,2014-05-15")
	}
	pairs := map[string]bool{}
	for _, r := range byName["friendships"].rows {
		pairs[r[0]+","+r[1]] = true
	}
	lonely := 0
	for _, r := range byName["friendships"].rows {
		if !pairs[r[1]+","+r[0]] {
			t.Errorf("friendship %s,%s has no reverse row", r[0], r[1])
		}
	}
	for _, u := range byName["users"].rows {
		has := false
		for p := range pairs {
			if strings.HasPrefix(p, u[0]+",") {
				has = true
				break
			}
		}
		if !has {
			lonely++
		}
	}
	if lonely == 0 || lonely > 40 {
		t.Errorf("%d users without friends, want some but few", lonely)
	}
	for _, r := range byName["plays"].rows {
		if len(r[3]) > 5 || r[3] == "99999" {
			t.Errorf("play %s has score %s, want 0..99998", r[0], r[3])
		}
	}
	if n := len(byName["plays"].rows); n < 2000 || n > 4000 {
		t.Errorf("%d plays, want a few thousand", n)
	}
	// The ties put in on purpose.
	bests := map[string]map[string]int{} // week -> user -> best
	for _, r := range byName["plays"].rows {
		if bests[r[2]] == nil {
			bests[r[2]] = map[string]int{}
		}
		score, _ := strconv.Atoi(r[3])
		bests[r[2]][r[1]] = max(bests[r[2]][r[1]], score)
	}
	ranked := func(week string) []int {
		var out []int
		for _, s := range bests[week] {
			out = append(out, s)
		}
		slices.Sort(out)
		slices.Reverse(out)
		return out
	}
	if w5 := ranked("5"); w5[9] != w5[10] || w5[8] == w5[9] || w5[10] == w5[11] {
		t.Errorf("week 5's 9th to 12th bests are %v, want a tie of the 10th and 11th only", w5[8:12])
	}
	if w6 := ranked("6"); w6[0] != w6[1] || w6[1] == w6[2] {
		t.Errorf("week 6's three bests are %v, want a tie of the first two only", w6[:3])
	}
}
