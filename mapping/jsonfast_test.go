package mapping

import (
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
	} {
		f.Add([]byte(s), 0)
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, raw []byte, depth int) {
		depth = min(max(depth, 0), maxNest)
		slow, err := jsonTokensToAV(raw, depth)
		fast, ok := fastJSONToAV(raw, depth)
		switch {
		case ok && err != nil:
			t.Fatalf("%q (depth %d): the fast reading gives %s, the token reading refuses it: %v", raw, depth, compactJSON(t, fast), err)
		case !ok && err == nil:
			t.Fatalf("%q (depth %d): the fast reading refuses what the token reading reads as %s", raw, depth, compactJSON(t, slow))
		case ok && !reflect.DeepEqual(fast, slow):
			t.Fatalf("%q (depth %d): fast %s, tokens %s", raw, depth, compactJSON(t, fast), compactJSON(t, slow))
		}
	})
}
