package mapping

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// FuzzJSONToAV: a document either becomes exactly the value its text says
// (every key, string and number as written; nothing DynamoDB would refuse)
// or is refused with a json: error. A document Go's decoder would read
// differently from its text (a key twice, a lone surrogate, bytes that are
// not UTF-8) must be refused, never changed.
func FuzzJSONToAV(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":[1,2.50,"x",true,null]}}`, `[]`, `{}`, `-0`, `"x"`, `{"a":1,"a":2}`, `{"":1}`,
		`"\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, "\"\xff\"", `"\ufffd"`, `[1e400]`, `{"a" 1}`, `1 2`,
		strings.Repeat("[", 31) + strings.Repeat("]", 31), strings.Repeat("[", 32) + strings.Repeat("]", 32),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		av, err := jsonToAV(raw, 0)
		if err != nil {
			if av != nil || !strings.HasPrefix(err.Error(), "json: ") {
				t.Fatalf("%q: value %v with error %v", raw, av, err)
			}
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("%q is not JSON, yet converts to %s", raw, compactJSON(t, av))
		}
		if n := avNest(av); n > MaxDepth-1 {
			t.Fatalf("%q nests %d maps and lists", raw, n)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		sameValue(t, raw, v, av)
		if keys, members := countKeys(t, raw), countMembers(av); keys != members {
			t.Fatalf("%q has %d object keys, the value %d map members: a key was lost", raw, keys, members)
		}
		replacement := bytes.Contains(raw, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`))
		if !replacement && strings.Contains(compactJSON(t, av), "\uFFFD") {
			t.Fatalf("%q converts to %s: U+FFFD replaced something", raw, compactJSON(t, av))
		}
	})
}

// sameValue checks av holds what Go's decoder read from the text.
func sameValue(t *testing.T, raw []byte, v any, av types.AttributeValue) {
	t.Helper()
	switch x := v.(type) {
	case nil:
		if _, ok := av.(*types.AttributeValueMemberNULL); ok {
			return
		}
	case bool:
		if b, ok := av.(*types.AttributeValueMemberBOOL); ok && b.Value == x {
			return
		}
	case string:
		if s, ok := av.(*types.AttributeValueMemberS); ok && s.Value == x {
			return
		}
	case json.Number:
		want, err := normalizeNumber(string(x))
		if n, ok := av.(*types.AttributeValueMemberN); ok && err == nil && n.Value == want {
			return
		}
	case []any:
		if l, ok := av.(*types.AttributeValueMemberL); ok && len(l.Value) == len(x) {
			for i := range x {
				sameValue(t, raw, x[i], l.Value[i])
			}
			return
		}
	case map[string]any:
		if m, ok := av.(*types.AttributeValueMemberM); ok && len(m.Value) == len(x) {
			for k, e := range x {
				if k == "" || len(k) > MaxNameLen {
					t.Fatalf("%q: key %q of %d bytes accepted", raw, k, len(k))
				}
				sameValue(t, raw, e, m.Value[k])
			}
			return
		}
	}
	t.Fatalf("%q: %#v became %s", raw, v, compactJSON(t, av))
}

// countKeys counts the object keys in the text, duplicates included.
func countKeys(t *testing.T, raw []byte) int {
	t.Helper()
	type level struct{ object, expectKey bool }
	var stack []*level
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		d, delim := tok.(json.Delim)
		switch {
		case delim && (d == '}' || d == ']'):
			stack = stack[:len(stack)-1]
			valueDone()
		case len(stack) > 0 && stack[len(stack)-1].expectKey:
			n++
			stack[len(stack)-1].expectKey = false
		case delim:
			stack = append(stack, &level{object: d == '{', expectKey: d == '{'})
		default:
			valueDone()
		}
	}
}

// countMembers counts the members of every map in av.
func countMembers(av types.AttributeValue) int {
	n := 0
	switch x := av.(type) {
	case *types.AttributeValueMemberL:
		for _, e := range x.Value {
			n += countMembers(e)
		}
	case *types.AttributeValueMemberM:
		n += len(x.Value)
		for _, e := range x.Value {
			n += countMembers(e)
		}
	}
	return n
}
