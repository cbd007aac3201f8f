package parse

import (
	"strings"
	"testing"
	"time"
)

// offsets are ParseOffset's cases, and the schema's (TestSchemaOffsets):
// what each takes, and (badOffsets) what each refuses.
var offsets = map[string]time.Duration{
	"30d": 30 * 24 * time.Hour, "12h": 12 * time.Hour, "1d12h": 36 * time.Hour, "90m": 90 * time.Minute,
	"0s": 0, "-1h": -time.Hour, "1d2h3m4s": 26*time.Hour + 3*time.Minute + 4*time.Second,
	"36600d": 36600 * 24 * time.Hour, "0036600d": 36600 * 24 * time.Hour, "878400h": 878400 * time.Hour, "-36600d": -36600 * 24 * time.Hour,
	"36600d878400h9999999m9999999s": (36600*24+878400)*time.Hour + 9999999*time.Minute + 9999999*time.Second,
	"35999d":                        35999 * 24 * time.Hour, "29999d": 29999 * 24 * time.Hour, "9999d": 9999 * 24 * time.Hour, "869999h": 869999 * time.Hour,
}

var badOffsets = []string{"", "-", "30", "d", "30x", "1h1d", "1d1d", "1.5h", "30 d", "+1d", "99999999d", "9999999d", "9999999h", "36601d", "0036601d", "37000d", "40000d", "878401h", "879000h", "900000h", "1d878401h", "00000036601d"}

func TestParseOffset(t *testing.T) {
	for s, want := range offsets {
		if got, err := ParseOffset(s); err != nil || got != want {
			t.Errorf("ParseOffset(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range badOffsets {
		if got, err := ParseOffset(s); err == nil {
			t.Errorf("ParseOffset(%q) = %v, want an error", s, got)
		}
	}
}

// maxOffsetSum is the longest offset: two units of 100 years, and 7-digit
// minutes and seconds.
const maxOffsetSum = 2*maxOffset*time.Second + 9999999*time.Minute + 9999999*time.Second

func FuzzParseOffset(f *testing.F) {
	for _, s := range []string{"30d", "1d12h", "-90m", "0s", "1h1d", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseOffset(s)
		if err != nil {
			return
		}
		// What parses is made of digits and units only, and its sign is
		// the text's.
		if strings.Trim(s, "-0123456789dhms") != "" || (d < 0) != (strings.HasPrefix(s, "-") && d != 0) || d > maxOffsetSum || d < -maxOffsetSum {
			t.Fatalf("ParseOffset(%q) = %v", s, d)
		}
	})
}
