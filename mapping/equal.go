package mapping

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// EqualItem says whether two items hold the same attributes with equal
// values (EqualValue).
func EqualItem(a, b Item) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !EqualValue(v, w) {
			return false
		}
	}
	return true
}

// Equal compares attribute values the way DynamoDB means them: numbers by
// value, sets regardless of order.
func EqualValue(a, b types.AttributeValue) bool {
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
		return ok && SameSet(x.Value, y.Value, func(s string) string { return s })
	case *types.AttributeValueMemberNS:
		y, ok := b.(*types.AttributeValueMemberNS)
		return ok && SameSet(x.Value, y.Value, CanonNumber)
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
		return SameSet(xs, ys, func(s string) string { return s })
	case *types.AttributeValueMemberL:
		y, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for i := range x.Value {
			if !EqualValue(x.Value[i], y.Value[i]) {
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
			if !ok || !EqualValue(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

func sameNumber(a, b string) bool { return a == b || CanonNumber(a) == CanonNumber(b) }

// CanonNumber is the normalized text of a number, or s itself when it
// is not one.
func CanonNumber(s string) string {
	if n, err := NormalizeNumber(s); err == nil {
		return n
	}
	return s
}

// SameSet says whether a and b hold the same members, each compared by
// its canon text, as many times each.
func SameSet(a, b []string, canon func(string) string) bool {
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
