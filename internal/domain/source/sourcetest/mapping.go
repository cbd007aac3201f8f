package sourcetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// CompilePlan compiles a mapping against the schema src reads, so that
// rows read by the source can be checked all the way to their items.
func CompilePlan(t *testing.T, ctx context.Context, src source.Source, yaml string) *mapping.Plan {
	t.Helper()
	s, err := src.Inspect(ctx)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	f, err := mapping.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("mapping.Parse: %v", err)
	}
	p, err := mapping.Compile(f, s)
	if err != nil {
		t.Fatalf("mapping.Compile: %v", err)
	}
	return p
}

// AVJSON prints an attribute value as DynamoDB JSON ({"L":[{"S":"x"}]}),
// for comparing converted values with what a test expects.
func AVJSON(t *testing.T, av types.AttributeValue) string {
	t.Helper()
	if av == nil {
		return "<nil>"
	}
	b, err := json.Marshal(AVPlain(av))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// AVPlain turns an attribute value into plain maps and slices in DynamoDB
// JSON's shape.
func AVPlain(av types.AttributeValue) any {
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
		return map[string]any{"SS": x.Value}
	case *types.AttributeValueMemberL:
		l := make([]any, len(x.Value))
		for i, e := range x.Value {
			l[i] = AVPlain(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range x.Value {
			m[k] = AVPlain(e)
		}
		return map[string]any{"M": m}
	}
	return map[string]any{"?": av}
}

// JSONText is v as JSON text, for failure messages.
func JSONText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
