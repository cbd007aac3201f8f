package mapping

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzFastJSON: the one-pass reading of a JSON document gives exactly what
// the token-by-token reading gives, and leaves to it every document it
// refuses (so that the error and its wording are the same).
func FuzzFastJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":[1,2.50,"x",true,null]}}`, `[]`, `{}`, `-0`, `"x"`, `{"a":1,"a":2}`, `{"":1}`,
		`"\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, "\"\xff\"", `"\ufffd"`, `[1e400]`, `{"a" 1}`, `1 2`,
		` { "k\n" : [ 1 , -2.5E+3 , "a\"b" ] , "x" : { } } `, `{"a\u0000":"\/"}`, `[[[]]]`, `1E-131`, `"caf\u00e9"`,
		strings.Repeat("[", 31) + strings.Repeat("]", 31), strings.Repeat("[", 32) + strings.Repeat("]", 32),
		`{"a":` + strings.Repeat("[", 30) + strings.Repeat("]", 30) + `}`, `{"a":` + strings.Repeat("[", 31) + strings.Repeat("]", 31) + `}`,
		`tru`, `nul`, `fals`, `truex`, `[1,]`, `{"a":1,}`, `[01]`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, "\"a\x01\"", `"\x"`, `"\u12"`,
		`[1 2]`, `{"a":1 "b":2}`, `{1:2}`, `{"a"}`, `"abc`, `[`, `{`, ``, ` `, `"\"`, `{"a":1}x`, `[-0.0e-0]`, `[1E+2,0.1e1]`,
		`{"enabled": true, "channels": ["sms"], "keywords": ["O'Brien's picks"], "threshold": 0.25, "quiet_hours": {"end": "07:30", "utc_offset_minutes": -300}}`,
		`{"k\u00e9": "\ud83d\ude00", "b": "x\\"y"}`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"a":10}`,
	} {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, raw []byte, depth int) {
		depth = min(max(depth, 0), maxNest)
		slow, err := jsonTokensToAV(raw, depth)
		fast, size, ok := fastJSONSized(raw, depth)
		switch {
		case ok && !json.Valid(raw):
			t.Fatalf("%q (depth %d): the fast reading accepts what json.Valid refuses, as %s", raw, depth, compactJSON(t, fast))
		case ok && size != avSize(fast):
			t.Fatalf("%q (depth %d): the fast reading counts %d bytes, avSize %d", raw, depth, size, avSize(fast))
		case ok && err != nil:
			t.Fatalf("%q (depth %d): the fast reading gives %s, the token reading refuses it: %v", raw, depth, compactJSON(t, fast), err)
		case !ok && err == nil:
			t.Fatalf("%q (depth %d): the fast reading refuses what the token reading reads as %s", raw, depth, compactJSON(t, slow))
		case ok && !reflect.DeepEqual(fast, slow):
			t.Fatalf("%q (depth %d): fast %s, tokens %s", raw, depth, compactJSON(t, fast), compactJSON(t, slow))
		}
	})
}

// FuzzIsNormalNumber: a text isNormalNumber passes is what normalizeNumber
// makes of it, unchanged.
func FuzzIsNormalNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "-1", "10", "0.5", "-0.05", "0.50", "1.0", "01", ".5", "5.", "+1",
		"1e5", "1E5", "123456789012345678901234567890123456789", "12345678901234567890123456789012345678",
		strings.Repeat("9", 38) + strings.Repeat("0", 22), strings.Repeat("9", 38) + strings.Repeat("0", 23),
		"0." + strings.Repeat("0", 59) + "1", "0." + strings.Repeat("0", 60) + "1", "NaN", "", "-", "1.2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isNormalNumber(s) {
			return
		}
		if n, err := normalizeNumber(s); err != nil || n != s {
			t.Fatalf("isNormalNumber(%q), but normalizeNumber gives %q, %v", s, n, err)
		}
	})
}

// FuzzNumberSize: numberSize counts as it did when it copied the text.
func FuzzNumberSize(f *testing.F) {
	for _, s := range []string{"0", "-0.0012", "100.5", "1.5E-70", "120", "", ".", "0.5.0", "-+1", "1E", "00100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mant, _, _ := strings.Cut(strings.TrimLeft(s, "-+"), "E")
		mant = strings.Trim(strings.Replace(mant, ".", "", 1), "0")
		sig := 0
		for _, r := range mant {
			if r >= '0' && r <= '9' {
				sig++
			}
		}
		if got, want := numberSize(s), (sig+1)/2+1; got != want {
			t.Fatalf("numberSize(%q) = %d, want %d", s, got, want)
		}
	})
}
