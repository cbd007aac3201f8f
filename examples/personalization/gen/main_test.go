package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/examples/internal/gentest"
)

// TestDataSQLIsCurrent pins the committed data.sql to the generator.
func TestDataSQLIsCurrent(t *testing.T) {
	gentest.DataSQLIsCurrent(t, "personalization", func(w io.Writer) error { return run(w, 1, "") })
}

func TestDeterministic(t *testing.T) {
	gentest.Deterministic(t, func(w io.Writer) error { return run(w, 2, "mysql") })
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

// TestData checks the rules the example promises, at scale 3.
func TestData(t *testing.T) {
	const scale = 3
	d, err := generate(scale)
	if err != nil {
		t.Fatal(err)
	}
	tbls := tables(d)
	want := map[string]int{"users": 1000 * scale, "services": 6}
	pks := map[string]int{"users": 1, "services": 1, "personal": 3, "subscribe": 3, "subscribe_user": 4}
	keys := map[string]map[string]bool{}
	for _, tb := range tbls {
		if n, ok := want[tb.Name]; ok && len(tb.Rows) != n {
			t.Errorf("%s: %d rows, want %d", tb.Name, len(tb.Rows), n)
		}
		keys[tb.Name] = map[string]bool{}
		for _, row := range tb.Rows {
			k := fmt.Sprint(row[:pks[tb.Name]]...)
			if keys[tb.Name][k] {
				t.Errorf("%s: duplicate primary key %s", tb.Name, k)
			}
			keys[tb.Name][k] = true
			for i, v := range row {
				switch v := v.(type) {
				case ts:
					tm := time.Time(v)
					if tm.Before(tsMin) || tm.After(tsMax) || tm.Nanosecond() != 0 || tm.Location() != time.UTC {
						t.Errorf("%s %s: timestamp %v out of range", tb.Name, tb.Cols[i], tm)
					}
				case jsonText:
					if !json.Valid([]byte(v)) || !strings.HasPrefix(string(v), "{") {
						t.Errorf("%s %s: not a JSON object: %s", tb.Name, tb.Cols[i], v)
					}
				}
				if _, err := literal(v); err != nil {
					t.Errorf("%s %s: %v", tb.Name, tb.Cols[i], err)
				}
			}
		}
	}
	// Foreign keys.
	for _, p := range d.users {
		if n := len(p.settings); n < 1 || n > 5 {
			t.Errorf("user %d has %d settings, want 1-5", p.id, n)
		}
		for _, s := range p.settings {
			if !keys["services"][s.service] {
				t.Errorf("personal %d/%s: unknown service", s.userID, s.service)
			}
		}
		for _, s := range p.subs {
			if !keys["subscribe"][fmt.Sprint(s.service, s.contentType, s.originID)] {
				t.Errorf("subscribe_user %d: unknown subscribe %s/%s/%d", s.userID, s.service, s.contentType, s.originID)
			}
			if s.subscribed.Before(p.created) {
				t.Errorf("subscribe_user %d: subscribed before signing up", s.userID)
			}
		}
	}
	for _, s := range d.subscribes {
		if !keys["services"][s.service] {
			t.Errorf("subscribe %s: unknown service", s.service)
		}
	}

	// The prefix pairs that catch a begins_with without a trailing "#" must
	// meet in the same item collection, many times.
	var newsAndNewsletter, alertsAndEmail, newsSubs, newsletterSubs int
	for _, u := range d.users {
		has := map[string]bool{}
		for _, s := range u.settings {
			has[s.service] = true
			has[s.service+"/"+s.settingType] = true
		}
		if has["news"] && has["newsletter"] {
			newsAndNewsletter++
		}
		for _, svc := range []string{"news", "newsletter", "mail"} {
			if has[svc+"/alerts"] && has[svc+"/alerts_email"] {
				alertsAndEmail++
			}
		}
		for _, s := range u.subs {
			switch s.service {
			case "news":
				newsSubs++
			case "newsletter":
				newsletterSubs++
			}
		}
	}
	videoLive := map[string][2]bool{}
	for _, s := range d.subscribes {
		v := videoLive[s.service]
		v[0] = v[0] || s.contentType == "video"
		v[1] = v[1] || s.contentType == "video_live"
		videoLive[s.service] = v
	}
	for _, s := range services {
		if videoLive[s.name] != [2]bool{true, true} {
			t.Errorf("service %s lacks video or video_live contents", s.name)
		}
	}
	if newsAndNewsletter < 100*scale || alertsAndEmail < 100*scale || newsSubs < 100*scale || newsletterSubs < 100*scale {
		t.Errorf("too few prefix collisions: users with news and newsletter settings %d, "+
			"alerts and alerts_email %d, news subscriptions %d, newsletter subscriptions %d",
			newsAndNewsletter, alertsAndEmail, newsSubs, newsletterSubs)
	}

	// The big integer survives exactly in the JSON text.
	var buf bytes.Buffer
	if err := run(&buf, scale, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"last_alert_id":12345678901234567}`) {
		t.Error("no settings carry the big integer 12345678901234567")
	}
}
