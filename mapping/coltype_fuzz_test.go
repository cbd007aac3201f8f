package mapping

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// FuzzConvertAs converts fuzzed text with every type that takes a text
// value (as a text, decimal and JSON column, and as the members of a set
// or array) and checks that a result is one DynamoDB accepts and means the
// input: sets are never empty nor repeat a member, numbers are normalized,
// a BOOL only comes from a word BoolText knows, and a failure is an error,
// never a panic or a value.
func FuzzConvertAs(f *testing.F) {
	for _, s := range []string{"", "0", "-0.00", "1e3", "Y", "no ", " t", "TRUE", "maybe", "[1,2]", `{"a":1}`, `{"":1}`, "NaN",
		"a,b,a", "a,,b", "1,1.0", "\xff", strings.Repeat("9", 39)} {
		f.Add(s)
	}
	text := &introspect.Column{Name: "c", Type: "text", Kind: introspect.KindString}
	dec := &introspect.Column{Name: "c", Type: "numeric", Kind: introspect.KindDecimal}
	js := &introspect.Column{Name: "c", Type: "json", Kind: introspect.KindJSON}
	set := &introspect.Column{Name: "c", Type: "set", Kind: introspect.KindSet}
	arr := &introspect.Column{Name: "c", Type: "numeric[]", Kind: introspect.KindArray, Elem: introspect.KindDecimal}
	f.Fuzz(func(t *testing.T, s string) {
		members := strings.Split(s, ",")
		elems := make([]any, len(members))
		for i, m := range members {
			elems[i] = m
		}
		for _, tc := range []struct {
			col *introspect.Column
			typ ColType
			v   any
		}{
			{text, TypeN, s}, {dec, TypeN, s}, {text, TypeS, s}, {text, TypeBOOL, s}, {text, TypeB, []byte(s)},
			{js, TypeL, []byte(s)}, {js, TypeM, []byte(s)}, {js, TypeJSON, []byte(s)},
			{set, TypeSS, members}, {set, TypeL, members}, {arr, TypeNS, elems},
		} {
			av, err := ConvertAs(tc.col, tc.typ, tc.v)
			if err != nil {
				if av != nil {
					t.Fatalf("%s of %q: a value with the error %v", tc.typ, s, err)
				}
				continue
			}
			switch x := av.(type) {
			case nil:
				if tc.typ != TypeSS && tc.typ != TypeNS {
					t.Fatalf("%s of %q left out", tc.typ, s)
				}
			case *types.AttributeValueMemberN:
				if n, err := normalizeNumber(x.Value); err != nil || n != x.Value {
					t.Fatalf("%s of %q: N %q is not normalized", tc.typ, s, x.Value)
				}
			case *types.AttributeValueMemberBOOL:
				if b, ok := BoolText(s); !ok || b != x.Value {
					t.Fatalf("BOOL of %q is %v", s, x.Value)
				}
			case *types.AttributeValueMemberSS:
				checkSet(t, s, x.Value)
			case *types.AttributeValueMemberNS:
				checkSet(t, s, x.Value)
				for _, m := range x.Value {
					if n, err := normalizeNumber(m); err != nil || n != m {
						t.Fatalf("NS of %q: member %q is not normalized", s, m)
					}
				}
			case *types.AttributeValueMemberS:
				if x.Value != s {
					t.Fatalf("%s of %q is S %q", tc.typ, s, x.Value)
				}
			case *types.AttributeValueMemberB:
				if string(x.Value) != s {
					t.Fatalf("B of %q is %q", s, x.Value)
				}
			case *types.AttributeValueMemberL:
				if tc.typ == TypeL && tc.col == set && len(x.Value) != len(members) {
					t.Fatalf("L of the SET %q has %d members", s, len(x.Value))
				}
			case *types.AttributeValueMemberM:
				if tc.typ != TypeM {
					t.Fatalf("%s of %q is a map", tc.typ, s)
				}
			default:
				t.Fatalf("%s of %q is a %T", tc.typ, s, av)
			}
		}
	})
}

func checkSet(t *testing.T, s string, members []string) {
	t.Helper()
	if len(members) == 0 {
		t.Fatalf("set of %q is empty", s)
	}
	seen := map[string]bool{}
	for _, m := range members {
		if seen[m] {
			t.Fatalf("set of %q repeats %q", s, m)
		}
		seen[m] = true
	}
}
