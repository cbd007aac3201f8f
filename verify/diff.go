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
		if h, ok := have[k]; !ok || !mapping.EqualValue(w, h) {
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
