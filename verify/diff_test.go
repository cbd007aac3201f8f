package verify_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/verify"
)

// TestDiffWhere: a difference the values' texts cannot show (a long value
// cut in the report, an element of a list, an attribute of a map, a set's
// element) is located: the first differing byte with its context, the
// index, the name.
func TestDiffWhere(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	l := func(vs ...types.AttributeValue) types.AttributeValue { return &types.AttributeValueMemberL{Value: vs} }
	m := func(kv ...any) types.AttributeValue {
		out := map[string]types.AttributeValue{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return &types.AttributeValueMemberM{Value: out}
	}
	long := strings.Repeat("a", 300) + "XYZ" + strings.Repeat("b", 100)
	changed := strings.Repeat("a", 300) + "XQZ" + strings.Repeat("b", 100)
	for _, tc := range []struct {
		name       string
		want, have types.AttributeValue
		diff       string // the whole line, or its end after "(" when it starts with "…"
	}{
		{"short strings: no location", s("Ants"), s("Ants!"), `v is S "Ants!", want S "Ants"`},
		{"a long string changed in the middle", s(long), s(changed), `…(403 bytes, want 403; the first 301 agree, then …"aaaaaaaaaaaaaaaaaaaaaaaXQZbbbbbbbbbbbbbbbbbbbbbb"… against …"aaaaaaaaaaaaaaaaaaaaaaaXYZbbbbbbbbbbbbbbbbbbbbbb"…)`},
		{"a long string cut short", s(long), s(long[:350]), `…(350 bytes, want 403; the first 350 agree, then …"bbbbbbbbbbbbbbbbbbbbbbbb" against …"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"…)`},
		{"an element removed", l(n("1"), n("2"), n("3")), l(n("1"), n("3")), `…(2 elements, want 3; the first that differs is element [1] is N 3, want N 2)`},
		{"an element added at the end", l(n("1")), l(n("1"), n("2")), `…(2 elements, want 1; the first 1 are equal)`},
		{"a map's attribute", m("a", n("1"), "b", s("x")), m("a", n("1"), "b", s("y")), `…(attribute "b" is S "y", want S "x")`},
		{"a nested list in a map", m("tags", l(s("p"), s("q"))), m("tags", l(s("p"), s("r"))), `…(attribute "tags" is L [S "p", S "r"], want L [S "p", S "q"] (2 elements, want 2; the first that differs is element [1] is S "r", want S "q"))`},
		{"a set", &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, &types.AttributeValueMemberSS{Value: []string{"b", "c"}}, `…(1 elements missing, the first "a"; 1 elements not wanted, the first "c")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := verify.Diff(mapping.Item{"v": tc.want}, mapping.Item{"v": tc.have})
			if len(got) != 1 {
				t.Fatalf("Diff = %q, want one line", got)
			}
			if rest, ok := strings.CutPrefix(tc.diff, "…"); ok {
				if !strings.HasSuffix(got[0], rest) {
					t.Errorf("Diff =\n%s\nwant it to end in\n%s", got[0], rest)
				}
			} else if got[0] != tc.diff {
				t.Errorf("Diff =\n%s\nwant\n%s", got[0], tc.diff)
			}
		})
	}
}
