package mapping

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// keptText is an error value that keeps the text it could not decode, as
// package source's *InvalidUTF8Error does.
type keptText struct{ text string }

func (e *keptText) Error() string   { return "text is not valid UTF-8" }
func (e *keptText) KeyText() string { return strconv.Quote(e.text) }

// TestSourceKeyEscapesInvalidText: keys that differ only in a byte that is
// not UTF-8 print differently, and survive JSON (the rejects file) as they
// were; plain keys print as they always did.
func TestSourceKeyEscapesInvalidText(t *testing.T) {
	p := compileString(t, `version: 1
table: {name: shop, key: {pk: PK}}
entities:
  t: {from: things, pk: "T#{id}"}
`, testSchema())
	e := p.Entity("t")
	e.keyCols = []int{1} // code: text
	for _, tc := range []struct {
		code any
		want string
	}{
		{"café", `code=café`},
		{"plain", `code=plain`},
		{"", `code=`},
		{"caf\xe9", `code="caf\xe9"`},
		{"caf\xe8", `code="caf\xe8"`},
		{&keptText{"caf\xe9"}, `code="caf\xe9"`},
		{fmt.Errorf("wrapped: %w", &keptText{"\xff"}), `code="\xff"`},
		{errors.New("zero date"), `code=?`},
		// Plain text that looks like a quoted key is quoted itself, so
		// that it cannot be mistaken for one.
		{`"caf\xe9"`, `code="\"caf\\xe9\""`},
		{`"`, `code="\""`},
		{`a"b`, `code=a"b`},
	} {
		got := e.SourceKey(thingsRow(e, map[string]any{"id": int64(1), "code": tc.code}))
		if got != tc.want {
			t.Errorf("SourceKey(code %#v) = %s, want %s", tc.code, got, tc.want)
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != got {
			t.Errorf("SourceKey(code %#v) = %s changes through JSON: %s reads back as %q", tc.code, got, b, back)
		}
	}
}
