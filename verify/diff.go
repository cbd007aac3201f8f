package verify

import (
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/av"
	"github.com/remodel-dev/remodel/mapping"
)

// Diff lists how have differs from want, one entry per attribute, in
// attribute-name order.
func Diff(want, have mapping.Item) []string {
	diffs := diffAttrs(want, have)
	out := make([]string, len(diffs))
	for i, d := range diffs {
		out[i] = d.String()
	}
	return out
}

// attrDiff is one attribute on which a stored item differs from the item
// its row renders: want or have is nil when the attribute is missing there.
type attrDiff struct {
	name       string
	want, have types.AttributeValue
}

func (d attrDiff) String() string {
	switch {
	case d.have == nil:
		return fmt.Sprintf("%s is missing (want %s)", d.name, av.Text(d.want))
	case d.want == nil:
		return fmt.Sprintf("%s is unexpected (%s)", d.name, av.Text(d.have))
	}
	return fmt.Sprintf("%s is %s, want %s", d.name, av.Text(d.have), av.Text(d.want))
}

// diffAttrs lists the attributes on which have differs from want, in
// attribute-name order.
func diffAttrs(want, have mapping.Item) []attrDiff {
	var out []attrDiff
	for k, w := range want {
		if h, ok := have[k]; !ok || !Equal(w, h) {
			out = append(out, attrDiff{name: k, want: w, have: h})
		}
	}
	for k, h := range have {
		if _, ok := want[k]; !ok {
			out = append(out, attrDiff{name: k, have: h})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Equal compares attribute values the way DynamoDB means them: numbers by
// value, sets regardless of order.
func Equal(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		return ok && sameNumber(x.Value, y.Value)
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		return ok && string(x.Value) == string(y.Value)
	case *types.AttributeValueMemberBOOL:
		y, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberSS:
		y, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(x.Value, y.Value, func(s string) string { return s })
	case *types.AttributeValueMemberNS:
		y, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(x.Value, y.Value, canonNumber)
	case *types.AttributeValueMemberBS:
		y, ok := b.(*types.AttributeValueMemberBS)
		if !ok {
			return false
		}
		xs, ys := make([]string, len(x.Value)), make([]string, len(y.Value))
		for i, v := range x.Value {
			xs[i] = string(v)
		}
		for i, v := range y.Value {
			ys[i] = string(v)
		}
		return sameSet(xs, ys, func(s string) string { return s })
	case *types.AttributeValueMemberL:
		y, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for i := range x.Value {
			if !Equal(x.Value[i], y.Value[i]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberM:
		y, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for k, v := range x.Value {
			w, ok := y.Value[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

func sameNumber(a, b string) bool { return a == b || canonNumber(a) == canonNumber(b) }

// canonNumber is mapping's normalized text of a number, or s itself when it
// is not one.
func canonNumber(s string) string {
	if n, err := mapping.NormalizeNumber(s); err == nil {
		return n
	}
	return s
}

func sameSet(a, b []string, canon func(string) string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, s := range a {
		m[canon(s)]++
	}
	for _, s := range b {
		m[canon(s)]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}
