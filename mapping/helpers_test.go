package mapping

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/schemas"
	"github.com/remodel-dev/remodel/introspect"
)

// The hand-built schemas and their column helpers (package schemas).
var (
	col                   = schemas.Col
	nullable              = schemas.Nullable
	precision             = schemas.Precision
	personalizationSchema = schemas.Personalization
	testSchema            = schemas.Mapping
)

const weeklyQuery = schemas.WeeklyQuery

// thingsRow builds a row of table "things" from column values by name.
func thingsRow(e *Entity, vals map[string]any) []any {
	row := make([]any, len(e.Columns))
	for i, c := range e.Columns {
		row[i] = vals[c.Name]
	}
	for n := range vals {
		if e.Table.Column(n) == nil {
			panic("no column " + n)
		}
	}
	return row
}

// compileString parses and compiles a mapping given as text.
func compileString(t *testing.T, src string, s *introspect.Schema) *Plan {
	t.Helper()
	f, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	p, err := Compile(f, s)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// errorList asserts that err is a non-empty ErrorList and returns it.
func errorList(t *testing.T, err error) ErrorList {
	t.Helper()
	var l ErrorList
	if !errors.As(err, &l) || len(l) == 0 {
		t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
	}
	return l
}

// wire is an attribute value in DynamoDB's JSON wire format ({"S": "x"}),
// with sets sorted so that the text is stable.
func wire(av types.AttributeValue) any {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": x.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": x.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": x.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": x.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": x.Value}
	case *types.AttributeValueMemberSS:
		v := append([]string(nil), x.Value...)
		sort.Strings(v)
		return map[string]any{"SS": v}
	case *types.AttributeValueMemberNS:
		v := append([]string(nil), x.Value...)
		sort.Strings(v)
		return map[string]any{"NS": v}
	case *types.AttributeValueMemberBS:
		return map[string]any{"BS": x.Value}
	case *types.AttributeValueMemberL:
		l := make([]any, len(x.Value))
		for i, e := range x.Value {
			l[i] = wire(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := make(map[string]any, len(x.Value))
		for k, e := range x.Value {
			m[k] = wire(e)
		}
		return map[string]any{"M": m}
	case nil:
		return nil
	}
	panic(fmt.Sprintf("unexpected attribute value %T", av))
}

// wireJSON renders an item or value as indented wire-format JSON without
// HTML escaping.
func wireJSON(t *testing.T, v any) string {
	t.Helper()
	switch x := v.(type) {
	case Item:
		m := make(map[string]any, len(x))
		for k, av := range x {
			m[k] = wire(av)
		}
		v = m
	case types.AttributeValue:
		v = wire(x)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// compactJSON is wireJSON on one line.
func compactJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(wireJSON(t, v))); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
