package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/examples/internal/gentest"
)

// TestDataSQLIsCurrent pins the committed data.sql to the generator.
func TestDataSQLIsCurrent(t *testing.T) {
	gentest.DataSQLIsCurrent(t, "board", func(w io.Writer) error { return run(w, 1, "") })
}

func TestDeterministic(t *testing.T) {
	for _, engine := range []string{"", "mysql"} {
		gentest.Deterministic(t, func(w io.Writer) error { return run(w, 2, engine) })
	}
}

func TestFlagErrors(t *testing.T) { gentest.FlagErrors(t, run) }

func TestScriptShape(t *testing.T) {
	for _, engine := range []string{"", "postgres", "mysql"} {
		var buf bytes.Buffer
		if err := run(&buf, 3, engine); err != nil {
			t.Fatal(err)
		}
		s := buf.String()
		if strings.Contains(s, `\`) {
			t.Errorf("engine %q: the script contains a backslash", engine)
		}
		// Every statement ends a line with ";" and no other ";" appears.
		if n, m := strings.Count(s, ";"), strings.Count(s, ";\n"); n != m {
			t.Errorf("engine %q: %d semicolons, %d of them at the end of a line", engine, n, m)
		}
		rows := 0
		for _, line := range strings.Split(s, "\n") {
			switch {
			case strings.HasPrefix(line, "INSERT INTO "):
				rows = 0
			case strings.HasPrefix(line, "("):
				rows++
				if rows > maxRowsPerInsert {
					t.Fatalf("engine %q: an INSERT has more than %d rows", engine, maxRowsPerInsert)
				}
			}
		}
	}
}

// TestData checks the rules the example promises: keys and foreign keys of
// the schema, times that follow each other, and the shapes README.md relies on.
func TestData(t *testing.T) {
	const scale = 3
	d := generate(scale)
	tbls := tables(d)
	// Primary keys and unique keys (column indexes into each table's row).
	unique := map[string][][]int{
		"emails":     {{0}, {1, 2}},
		"users":      {{0}, {1}},
		"categories": {{0}, {1}},
		"posts":      {{0}},
		"tags":       {{0}, {1}},
		"post_tags":  {{0, 1}},
	}
	keys := map[string]map[string]bool{} // table -> its primary keys
	for _, tb := range tbls {
		keys[tb.Name] = map[string]bool{}
		for ui, cols := range unique[tb.Name] {
			seen := map[string]bool{}
			for _, row := range tb.Rows {
				var parts []any
				for _, c := range cols {
					parts = append(parts, row[c])
				}
				k := fmt.Sprint(parts...)
				if seen[k] {
					t.Errorf("%s: duplicate key %v: %s", tb.Name, cols, k)
				}
				seen[k] = true
				if ui == 0 {
					keys[tb.Name][k] = true
				}
			}
		}
		for _, row := range tb.Rows {
			for i, v := range row {
				if tm, ok := v.(ts); ok {
					if tt := time.Time(tm); tt.Before(tsMin) || tt.After(tsMax) {
						t.Errorf("%s %s: timestamp %v out of range", tb.Name, tb.Cols[i], tt)
					}
				}
				if _, err := literal(v); err != nil {
					t.Errorf("%s %s: %v", tb.Name, tb.Cols[i], err)
				}
			}
		}
	}
	if n := len(d.users); n != usersPerScale*scale || len(d.emails) != n {
		t.Errorf("%d users and %d e-mails, want %d of each", n, len(d.emails), usersPerScale*scale)
	}

	// Foreign keys and time order.
	users := map[int64]*user{}
	sameID := 0
	for _, u := range d.users {
		users[u.id] = u
		if !keys["emails"][fmt.Sprint(u.emailID)] {
			t.Errorf("user %d: unknown e-mail %d", u.id, u.emailID)
		}
		if u.emailID == u.id {
			sameID++
		}
	}
	if sameID > 10*scale {
		t.Errorf("%d users have the e-mail with their own id: the ids should differ", sameID)
	}
	if e := d.emails[0]; e.id != 1 || e.localPart+"@"+e.domain != "user@email.com" || d.users[0].emailID != 1 {
		t.Errorf("user 1's e-mail is %d %s@%s, want the article's EMAIL-1 user@email.com", e.id, e.localPart, e.domain)
	}
	tagCreated := map[int64]time.Time{}
	for _, tg := range d.tags {
		tagCreated[tg.id] = tg.created
	}
	var uncategorized int
	combos := map[string]bool{} // user 1's kind/state pairs
	for _, p := range d.posts {
		u := users[p.userID]
		if u == nil {
			t.Fatalf("post %d: unknown user %d", p.id, p.userID)
		}
		if p.created.Before(u.created) {
			t.Errorf("post %d: written before its author signed up", p.id)
		}
		if p.categoryID == 0 {
			uncategorized++
		} else if !keys["categories"][fmt.Sprint(p.categoryID)] {
			t.Errorf("post %d: unknown category %d", p.id, p.categoryID)
		}
		if p.kind != "question" && p.kind != "answer" || p.state != "DRAFT" && p.state != "PUBLISHED" {
			t.Errorf("post %d: kind %q, state %q", p.id, p.kind, p.state)
		}
		if p.userID == 1 {
			combos[p.kind+"/"+p.state] = true
		}
		for _, pt := range p.tags {
			if pt.postID != p.id || tagCreated[pt.tagID].IsZero() {
				t.Errorf("post_tags %d/%d: unknown post or tag", pt.postID, pt.tagID)
			}
			if pt.created.Before(p.created) || pt.created.Before(tagCreated[pt.tagID]) {
				t.Errorf("post_tags %d/%d: tagged before the post or the tag existed", pt.postID, pt.tagID)
			}
		}
	}
	if len(combos) != 4 {
		t.Errorf("user 1 has posts of kind/state %v, want all four", combos)
	}
	if uncategorized < len(d.posts)/10 || uncategorized > len(d.posts)/2 {
		t.Errorf("%d of %d posts have no category", uncategorized, len(d.posts))
	}
}

// relationKeys renders the table keys of the relation items of mapping.yaml,
// with the article's sort keys (withID false) or the example's (withID true).
func relationKeys(d *dataset, withID bool) map[string][]string {
	ts := func(t time.Time) string { return t.Format("2006-01-02T15:04:05Z") }
	id := func(s string) string {
		if withID {
			return s
		}
		return ""
	}
	out := map[string][]string{}
	for _, p := range d.posts {
		sk := p.state + ":" + ts(p.created) + id(fmt.Sprintf(":POST-%d", p.id))
		out["user_post"] = append(out["user_post"], fmt.Sprintf("USER-%d:%s %s", p.userID, p.kind, sk))
		if p.categoryID != 0 {
			out["category_post"] = append(out["category_post"], fmt.Sprintf("CATEGORY-%d:POST %s", p.categoryID, sk))
		}
		for _, pt := range p.tags {
			out["post_tag"] = append(out["post_tag"], fmt.Sprintf("POST-%d:tag %s%s", p.id, ts(pt.created), id(fmt.Sprintf(":TAG-%d", pt.tagID))))
			out["tag_post"] = append(out["tag_post"], fmt.Sprintf("TAG-%d:post %s%s", pt.tagID, ts(pt.created), id(fmt.Sprintf(":POST-%d", p.id))))
		}
	}
	return out
}

// repeats counts the keys that equal an earlier key: the rows migrate would
// reject as key collisions.
func repeats(keys []string) int {
	seen := map[string]bool{}
	n := 0
	for _, k := range keys {
		if seen[k] {
			n++
		}
		seen[k] = true
	}
	return n
}

// TestRelationKeys pins what README.md says about the sort keys of the
// relation items: with the article's keys (createdAt alone) rows of every
// relation render the same key as another row, and these numbers at scale 1;
// with the id appended, none do.
func TestRelationKeys(t *testing.T) {
	d := generate(1)
	article := map[string]int{"user_post": 9, "category_post": 9, "post_tag": 1354, "tag_post": 24}
	for rel, keys := range relationKeys(d, false) {
		if n := repeats(keys); n != article[rel] {
			t.Errorf("%s: %d rows repeat a key with the article's sort key, README.md says %d", rel, n, article[rel])
		}
	}
	for _, scale := range []int{1, 3} {
		for rel, keys := range relationKeys(generate(scale), true) {
			if n := repeats(keys); n != 0 {
				t.Errorf("scale %d, %s: %d rows repeat a key with the id in the sort key", scale, rel, n)
			}
		}
	}
}
