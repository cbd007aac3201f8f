package parse

import (
	"strings"
	"testing"
	"unicode"
)

func TestParseOrder(t *testing.T) {
	for s, want := range map[string]string{"a": "a asc", "a DESC": "a desc", "a   asc": "a asc", "é desc": "é desc",
		"": "error", "a b": "error", " a": "error", "a ": "error", "a desc ": "error", "a\tdesc": "error", "a desc desc": "error"} {
		o, err := ParseOrder(s)
		got := "error"
		if err == nil {
			got = o.Column + map[bool]string{false: " asc", true: " desc"}[o.Desc]
		}
		if got != want {
			t.Errorf("ParseOrder(%q) = %s, want %s", s, got, want)
		}
	}
}

// FuzzParseOrder: ParseOrder never panics, and what it accepts it reads
// back: the column has no white space and the text is the column and an
// optional direction.
func FuzzParseOrder(f *testing.F) {
	for _, s := range []string{"a", "a desc", "a  ASC", "", " ", "a b c", "a\u00a0desc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOrder(s)
		if err != nil {
			return
		}
		if o.Column == "" || strings.ContainsFunc(o.Column, unicode.IsSpace) || !strings.HasPrefix(s, o.Column) {
			t.Fatalf("ParseOrder(%q) = %+v", s, o)
		}
		rest := strings.TrimLeft(strings.TrimPrefix(s, o.Column), " ")
		if dir := strings.ToLower(rest); dir != "" && dir != "asc" && dir != "desc" || o.Desc != (dir == "desc") {
			t.Fatalf("ParseOrder(%q) = %+v", s, o)
		}
	})
}
