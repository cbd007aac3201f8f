package migrate_test

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestNullSink: a run into the null sink reads and renders every row and
// counts every item as its own (rows, items and bytes per entity), with
// the key check, and sends no request to DynamoDB (its client goes
// through a proxy that counts them).
func TestNullSink(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := personalization(t, eng)
			p, _, db := proxy(t, endpoint, 1)
			o := fx.options(db, "")
			o.Null = true
			o.KeyCheckAlways = true
			o.RejectsPath = t.TempDir() + "/rejects.jsonl"
			rep, err := migrate.Run(testContext(t), o)
			if err != nil {
				t.Fatalf("Run into the null sink: %v", err)
			}
			if !rep.OK || !rep.NullSink || rep.Partial || rep.CreatedTable {
				t.Errorf("report: ok %v, null sink %v, partial %v, created table %v; want a run into the null sink that succeeded", rep.OK, rep.NullSink, rep.Partial, rep.CreatedTable)
			}
			if rep.RowsRead != fx.total || rep.ItemsWritten != fx.total || rep.Rejected != 0 {
				t.Errorf("report: %d rows read, %d items acknowledged, %d rejected; the source has %d rows", rep.RowsRead, rep.ItemsWritten, rep.Rejected, fx.total)
			}
			for _, e := range rep.Entities {
				if want := fx.rows[e.Name]; e.Rows != want || e.Items != want || (want > 0 && e.Bytes == 0) {
					t.Errorf("entity %s: %d rows, %d items, %d bytes; the source has %d rows", e.Name, e.Rows, e.Items, e.Bytes, want)
				}
			}
			if rep.KeyCheck == nil || rep.KeyCheck.Keys != fx.total {
				t.Errorf("key check %+v: want every one of the %d keys checked", rep.KeyCheck, fx.total)
			}
			if calls := p.Stats().Calls; len(calls) > 0 {
				t.Errorf("the run into the null sink sent DynamoDB %v", calls)
			}
		})
	}
}

// TestNullSinkRefuses: the options that need a store are refused, each
// with its reason, before anything is read.
func TestNullSinkRefuses(t *testing.T) {
	fx := personalization(t, testenv.Engines[0])
	for _, tc := range []struct {
		name string
		set  func(*migrate.Options)
		want string
	}{
		{"follow", func(o *migrate.Options) { o.Follow = true }, "--follow (the changes are applied to a table)"},
		{"resume", func(o *migrate.Options) { o.Resume = true }, "--resume or a checkpoint"},
		{"checkpoint", func(o *migrate.Options) { o.CheckpointPath = t.TempDir() + "/ck.json" }, "--resume or a checkpoint"},
		{"create table", func(o *migrate.Options) { o.CreateTable = true }, "there is no table"},
		{"rate limit", func(o *migrate.Options) { o.RateLimit = 100 }, "--rate-limit"},
		{"to S3", func(o *migrate.Options) { o.To = &s3out.Location{Bucket: "b", Prefix: "p/"} }, "--to a location"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := fx.options(nil, "")
			o.Null = true
			o.RejectsPath = t.TempDir() + "/rejects.jsonl"
			tc.set(&o)
			rep, err := migrate.Run(testContext(t), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run: %v; want a refusal naming %q", err, tc.want)
			}
			if rep.RowsRead != 0 {
				t.Errorf("refused, yet %d rows read", rep.RowsRead)
			}
		})
	}
}
