package verify

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
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
	msg := fmt.Sprintf("%s is %s, want %s", d.name, av.Text(d.have), av.Text(d.want))
	if w := where(d.want, d.have); w != "" {
		msg += " (" + w + ")"
	}
	return msg
}

// contextBytes is how much of a long string or binary value around the
// first difference where shows.
const contextBytes = 24

// where says where have differs from want when the values' texts do not
// show it: the first differing byte of a string or binary value cut in
// the report (with the bytes around it on both sides), the first differing
// element of a list (by index) or attribute of a map (by name), followed
// down, and the first element one set has and the other has not. "" for
// short scalars, whose texts show the difference whole.
func where(want, have types.AttributeValue) string {
	switch w := want.(type) {
	case *types.AttributeValueMemberS:
		if h, ok := have.(*types.AttributeValueMemberS); ok && (av.Cut(want) || av.Cut(have)) {
			return firstDiff([]byte(w.Value), []byte(h.Value), "bytes", strconv.Quote)
		}
	case *types.AttributeValueMemberB:
		if h, ok := have.(*types.AttributeValueMemberB); ok && (av.Cut(want) || av.Cut(have)) {
			return firstDiff(w.Value, h.Value, "bytes", func(s string) string { return hex.EncodeToString([]byte(s)) })
		}
	case *types.AttributeValueMemberL:
		h, ok := have.(*types.AttributeValueMemberL)
		if !ok {
			break
		}
		for i := range min(len(w.Value), len(h.Value)) {
			if !mapping.EqualValue(w.Value[i], h.Value[i]) {
				at := fmt.Sprintf("element [%d] is %s, want %s", i, av.Text(h.Value[i]), av.Text(w.Value[i]))
				if inner := where(w.Value[i], h.Value[i]); inner != "" {
					at += ": " + inner
				}
				return fmt.Sprintf("%d elements, want %d; the first that differs is %s", len(h.Value), len(w.Value), at)
			}
		}
		if len(h.Value) != len(w.Value) {
			n := min(len(w.Value), len(h.Value))
			return fmt.Sprintf("%d elements, want %d; the first %d are equal", len(h.Value), len(w.Value), n)
		}
	case *types.AttributeValueMemberM:
		h, ok := have.(*types.AttributeValueMemberM)
		if !ok {
			break
		}
		for _, d := range diffAttrs(w.Value, h.Value) {
			at := "attribute " + strconv.Quote(d.name) + " " + strings.TrimPrefix(d.String(), d.name+" ")
			return at
		}
	case *types.AttributeValueMemberSS:
		if h, ok := have.(*types.AttributeValueMemberSS); ok {
			return setDiff(w.Value, h.Value, strconv.Quote)
		}
	case *types.AttributeValueMemberNS:
		if h, ok := have.(*types.AttributeValueMemberNS); ok {
			return setDiff(canonNumbers(w.Value), canonNumbers(h.Value), func(s string) string { return s })
		}
	case *types.AttributeValueMemberBS:
		if h, ok := have.(*types.AttributeValueMemberBS); ok {
			return setDiff(byteStrings(w.Value), byteStrings(h.Value), func(s string) string { return hex.EncodeToString([]byte(s)) })
		}
	}
	return ""
}

// firstDiff names the first byte at which have differs from want, with up
// to contextBytes bytes before and after it on both sides (show renders
// them).
func firstDiff(want, have []byte, unit string, show func(string) string) string {
	i := 0
	for i < len(want) && i < len(have) && want[i] == have[i] {
		i++
	}
	if i == len(want) && i == len(have) {
		return ""
	}
	part := func(b []byte) string {
		lo, hi := max(0, i-contextBytes), min(len(b), i+contextBytes)
		s := show(string(b[lo:hi]))
		if lo > 0 {
			s = "…" + s
		}
		if hi < len(b) {
			s += "…"
		}
		return s
	}
	return fmt.Sprintf("%d %s, want %d; the first %d agree, then %s against %s", len(have), unit, len(want), i, part(have), part(want))
}

// setDiff names an element one set has and the other has not.
func setDiff(want, have []string, show func(string) string) string {
	in := func(s []string) map[string]bool {
		m := make(map[string]bool, len(s))
		for _, x := range s {
			m[x] = true
		}
		return m
	}
	w, h := in(want), in(have)
	var extra, missing []string
	for _, x := range have {
		if !w[x] {
			extra = append(extra, x)
		}
	}
	for _, x := range want {
		if !h[x] {
			missing = append(missing, x)
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d elements missing, the first %s", len(missing), show(missing[0])))
	}
	if len(extra) > 0 {
		parts = append(parts, fmt.Sprintf("%d elements not wanted, the first %s", len(extra), show(extra[0])))
	}
	return strings.Join(parts, "; ")
}

func canonNumbers(ns []string) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = mapping.CanonNumber(n)
	}
	return out
}

func byteStrings(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = string(b)
	}
	return out
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
