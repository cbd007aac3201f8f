package source

import (
	"testing"

	"github.com/remodel-dev/remodel/introspect"
)

// BenchmarkDecodePersonalization decodes rows of the personalization
// example as PostgreSQL sends them in text form (one op: a user, a
// personal setting and a subscription), as the readers do (decodeRow).
func BenchmarkDecodePersonalization(b *testing.B) {
	tstz := &introspect.Column{Name: "ts", Type: "timestamp(0) with time zone", Kind: introspect.KindTimestampTZ}
	bigint := &introspect.Column{Name: "id", Type: "bigint", Kind: introspect.KindInt}
	text := &introspect.Column{Name: "s", Type: "character varying(32)", Kind: introspect.KindString}
	boolean := &introspect.Column{Name: "b", Type: "boolean", Kind: introspect.KindBool}
	jsonb := &introspect.Column{Name: "j", Type: "jsonb", Kind: introspect.KindJSON}
	rows := []struct {
		cols []*introspect.Column
		raw  [][]byte
	}{
		{[]*introspect.Column{bigint, text, text, boolean, tstz}, [][]byte{[]byte("1"), []byte("siobhan.obrien.1@example.org"), []byte("Siobhán O'Brien"), []byte("t"), []byte("2023-01-01 00:00:00+00")}},
		{[]*introspect.Column{bigint, text, text, jsonb, tstz}, [][]byte{[]byte("1"), []byte("news"), []byte("theme"), []byte(`{"mode": "light", "accent": "#ff6347", "wallpaper": null, "font_scale": 1.25, "high_contrast": true}`), []byte("2024-09-22 21:53:14+00")}},
		{[]*introspect.Column{bigint, text, text, bigint, tstz}, [][]byte{[]byte("596"), []byte("blog"), []byte("video"), []byte("80522067"), []byte("2025-08-05 17:29:14+00")}},
	}
	row := make([]any, 5)
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range rows {
			DecodeRow(r.cols, r.raw, row, introspect.Postgres.Dialect())
		}
	}
}
