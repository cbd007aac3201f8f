package mapping

import "testing"

// benchRows are rows of the personalization example as the PostgreSQL
// source decodes them (jsonb in the engine's own text form), in about the
// proportions of its generator (personal 44%, subscribe_user 37%, user 15%,
// subscribe 5%): what migrate renders at a million rows.
var benchRows = []struct {
	entity string
	row    []any
}{
	{"user", []any{int64(1), "siobhan.obrien.1@example.org", "Siobhán O'Brien", true, utc("2023-01-01 00:00:00")}},
	{"user", []any{int64(5), "olivia.lefevre.5@example.org", "Olivia Lefèvre", false, utc("2024-02-24 22:33:27")}},
	{"subscribe", []any{"news", "article", int64(2), "Zoë's garden — part 3", utc("2025-04-15 04:00:24")}},
	{"personal", []any{int64(1), "news", "alerts",
		[]byte(`{"enabled": true, "channels": ["sms"], "keywords": ["O'Brien's picks"], "threshold": 0.25, "max_per_day": 7, "quiet_hours": {"end": "07:30", "start": "22:00", "utc_offset_minutes": -300}, "last_alert_id": 12345678901234567}`),
		utc("2025-06-27 17:01:14")}},
	{"personal", []any{int64(1), "news", "alerts_email",
		[]byte(`{"digest": "weekly", "address": "siobhan.obrien.1@example.org", "enabled": true, "filters": {"languages": ["ko"], "min_score": 3.75}, "send_hour": 9, "signature": "— Siobhán O'Brien", "last_message_id": 2907591946251316331}`),
		utc("2024-12-02 21:37:53")}},
	{"personal", []any{int64(1), "news", "theme",
		[]byte(`{"mode": "light", "accent": "#ff6347", "wallpaper": null, "font_scale": 1.25, "high_contrast": true}`),
		utc("2024-09-22 21:53:14")}},
	{"personal", []any{int64(998), "newsletter", "layout",
		[]byte(`{"locale": "ja-JP", "pinned": [81567362, 23197735], "columns": 2, "density": 0.75, "widgets": [{"id": "weather", "options": {"city": "Zürich", "unit": "C"}, "position": 1, "collapsed": false}, {"id": "shop_deals", "options": {}, "position": 2, "collapsed": false}, {"id": "mail", "options": {}, "position": 3, "collapsed": false}, {"id": "headlines", "options": {}, "position": 4, "collapsed": true}], "greeting": "Bienvenue au café"}`),
		utc("2023-11-28 23:33:55")}},
	{"subscribe_user", []any{int64(1), "news", "photo", int64(8170), utc("2024-12-21 21:14:57")}},
	{"subscribe_user", []any{int64(1), "newsletter", "photo", int64(502642), utc("2025-10-29 21:48:13")}},
	{"subscribe_user", []any{int64(596), "blog", "video", int64(80522067), utc("2025-08-05 17:29:14")}},
}

// BenchmarkRenderPersonalization renders benchRows (one op: all ten) with
// RenderSized, as migrate does.
func BenchmarkRenderPersonalization(b *testing.B) {
	p := personalizationPlan(b)
	ents := make([]*Entity, len(benchRows))
	for i, r := range benchRows {
		ents[i] = p.Entity(r.entity)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, r := range benchRows {
			if _, _, err := ents[i].RenderSized(r.row); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func init() { checkSizes = true } // every Render of the tests checks RenderSized's size

// TestRenderSizedSize: the size RenderSized adds up is ItemSize's, for the
// benchmark's rows (every other test's through Render, see checkSizes).
func TestRenderSizedSize(t *testing.T) {
	p := personalizationPlan(t)
	for _, r := range benchRows {
		item, size, err := p.Entity(r.entity).RenderSized(r.row)
		if err != nil {
			t.Fatal(err)
		}
		if size != ItemSize(item) {
			t.Errorf("%s: RenderSized counts %d bytes, ItemSize %d", r.entity, size, ItemSize(item))
		}
	}
}
