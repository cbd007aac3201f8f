package analyze_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

const rejectsSchema = `CREATE TABLE docs (id INT NOT NULL PRIMARY KEY, code VARCHAR(10), body TEXT);
INSERT INTO docs VALUES (1, 'a', 'one'), (2, 'b', 'two'), (3, NULL, 'three');
INSERT INTO docs VALUES (4, 'c', REPEAT('x', 420000)), (5, 'd', REPEAT('y', 380000));
`

// alias renders the keys of doc's rows 1 and 2 again: key collisions.
const rejectsMapping = `version: 1
table:
  name: docs
  key: {pk: PK}
entities:
  doc:
    from: docs
    pk: "DOC#{code}"
  alias:
    from: docs
    where: "id <= 2"
    pk: "DOC#{code}"
`

// TestRejectsAsMigrate: the rows the analysis rejects are the rows migrate
// rejects (a NULL in the key, an item over 400 KB, key collisions across
// entities), on both engines; an item near 400 KB is warned about.
func TestRejectsAsMigrate(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			schema := rejectsSchema
			if eng.Name == "mysql" { // MySQL's TEXT holds 64 KiB
				schema = strings.Replace(schema, "body TEXT", "body LONGTEXT", 1)
			}
			eng.Exec(t, dsn, schema)
			p, src := compile(t, dsn, rejectsMapping)
			ctx := context.Background()
			// One reader each, so that both read doc before alias: which of
			// two colliding rows is rejected depends on the order.
			rep, err := analyze.Run(ctx, analyze.Options{Plan: p, Source: src, Readers: 1})
			if err != nil {
				t.Fatal(err)
			}
			db, name := testenv.DynamoDBTable(t)
			mrep, err := migrate.Run(ctx, migrate.Options{Plan: p, Source: src, DB: db, Table: name, CreateTable: true, MaxRejects: 100, Readers: 1, Writers: 2})
			if err != nil {
				t.Fatalf("migrate: %v", err)
			}
			var want, got []string
			for _, r := range mrep.Rejections {
				want = append(want, r.Entity+" "+r.Row+": "+kind(r.Reason))
			}
			for _, e := range rep.Entities {
				for _, g := range e.Rejects {
					for _, ex := range g.Examples {
						got = append(got, e.Name+" "+ex+": "+kind(g.Reason))
					}
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) || len(want) != 4 {
				t.Errorf("the analysis rejects\n  %s\nmigrate rejected\n  %s\n(want 4: id=3, id=4, and the aliases of id=1 and id=2)", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			if rep.Totals.Items != mrep.ItemsWritten || rep.Totals.Rejected != mrep.Rejected {
				t.Errorf("analysis: %d items, %d rejected; migrate: %d written, %d rejected", rep.Totals.Items, rep.Totals.Rejected, mrep.ItemsWritten, mrep.Rejected)
			}
			var near bool
			for _, w := range rep.Warnings {
				near = near || (w.Kind == "item-size" && w.Entity == "doc" && strings.Contains(w.Message, "1 item at 90%"))
			}
			if !near || rep.Sizes.NearLimit != 1 {
				t.Errorf("the item of 380000 bytes is not warned about: %d near the limit, %+v", rep.Sizes.NearLimit, rep.Warnings)
			}
		})
	}
}

// kind is a reason without what differs between migrate's words and the
// analysis's for the same rejection (which earlier row a key collides with).
func kind(reason string) string {
	if strings.HasPrefix(reason, "key collision") {
		return "key collision"
	}
	return reason
}

// TestSample: --sample analyses the rows whose key hash falls in the share
// and scales the totals to all rows.
func TestSample(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, skewSchema)
			eng.Exec(t, dsn, skewData())
			p, src := compile(t, dsn, skewMapping)
			ctx := context.Background()
			all, err := analyze.Run(ctx, analyze.Options{Plan: p, Source: src})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := analyze.Run(ctx, analyze.Options{Plan: p, Source: src, SampleRate: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			var in int64
			for i := 1; i <= skewRows; i++ {
				if analyze.Sampled(fmt.Sprintf("id=%d", i), 0.5) {
					in++
				}
			}
			e := rep.Entities[0]
			if e.Rows != skewRows || e.Sampled != in {
				t.Errorf("sample: %d rows read, %d sampled; want %d and %d", e.Rows, e.Sampled, skewRows, in)
			}
			if in == skewRows || in == 0 {
				t.Fatalf("a sample of half the rows took %d of %d", in, skewRows)
			}
			if !rep.Totals.Scaled || all.Totals.Scaled {
				t.Errorf("scaled: %v for the sample, %v for all rows", rep.Totals.Scaled, all.Totals.Scaled)
			}
			// Scaled by 2 from the sample: within a fifth of the whole.
			for _, c := range []struct {
				what        string
				sample, all int64
			}{{"items", rep.Totals.Items, all.Totals.Items}, {"write units", rep.Totals.WriteUnits, all.Totals.WriteUnits}, {"stored bytes", rep.Totals.StoredBytes, all.Totals.StoredBytes}} {
				if c.sample < c.all*4/5 || c.sample > c.all*6/5 {
					t.Errorf("%s: %d scaled from the sample, %d over all rows", c.what, c.sample, c.all)
				}
			}
			if rep.Indexes[0].ByItems[0].Key != "TENANT#acme" {
				t.Errorf("the sample's largest partition is %+v", rep.Indexes[0].ByItems[0])
			}
		})
	}
}
