package verify

import (
	"reflect"
	"testing"
	"unicode/utf8"
)

// TestReadRowJSONTakes: the renderings of rows are read by readRowJSON
// itself, escapes and all, not left to encoding/json.
func TestReadRowJSONTakes(t *testing.T) {
	for _, s := range []string{
		`{"user_id":1,"name":"a \"b\" \u00e9\n","created_at":"2024-01-02T03:04:05","score":-1.5e+3,"ok":true,"no":false,"z":null}`,
		` {"doc": {"a": [1, {"b": []}, "x"], "c": {}}} `,
	} {
		if _, ok := readRowJSON(s); !ok {
			t.Errorf("readRowJSON left %s to encoding/json", s)
		}
	}
}

// FuzzReadRowJSON: readRowJSON reads a rendering only to the map
// encoding/json reads from it (and encoding/json reads every rendering
// readRowJSON does).
func FuzzReadRowJSON(f *testing.F) {
	for _, s := range []string{
		`{"user_id":1,"name":"a \"b\" \u00e9\n","created_at":"2024-01-02T03:04:05","score":-1.5e+3,"ok":true,"no":false,"z":null}`,
		` {"doc": {"a": [1, {"b": []}, "x"], "c": {}}} `, `{"a":1,"a":2}`, `{"a":01}`, `{"a":1.}`, `{"a":"\ud800"}`,
		`{"a":"\x"}`, `{} {}`, `null`, `{"a":-}`, `{"a":[1,]}`, `{"a":1e}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) { // parseRowJSON's other path
			return
		}
		fast, ok := readRowJSON(s)
		if !ok {
			return
		}
		slow, err := parseRowJSONDecoder(s)
		if err != nil {
			t.Fatalf("%q: readRowJSON read it, encoding/json says %v", s, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: readRowJSON read %#v, encoding/json %#v", s, fast, slow)
		}
	})
}
