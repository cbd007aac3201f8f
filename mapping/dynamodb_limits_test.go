package mapping

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// These tests hold remodel's pre-checks to what DynamoDB Local (AWS's own
// emulator) really accepts: a check that is looser lets a row abort the
// run at write time, one that is stricter rejects rows DynamoDB would store.

// limitsTable creates a table keyed by PK (S) and returns a function that
// writes one item, with PutItem or with BatchWriteItem, without retries.
func limitsTable(t *testing.T) func(op string, item Item) error {
	t.Helper()
	db, name := testenv.DynamoDBTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	nop := func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }
	n := 0
	return func(op string, item Item) error {
		n++
		item["PK"] = &types.AttributeValueMemberS{Value: fmt.Sprint(n)}
		if op == "PutItem" {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item}, nop)
			if err != nil {
				return err
			}
		} else {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{name: {{PutRequest: &types.PutRequest{Item: item}}}},
			}, nop)
			if err != nil {
				return err
			}
			if len(out.UnprocessedItems) != 0 {
				t.Fatalf("BatchWriteItem left the item unprocessed")
			}
		}
		// The read is retried as usual: DynamoDB Local may close a
		// connection after refusing a write, and a read is idempotent.
		got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: Item{"PK": item["PK"]}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := compactJSON(t, got.Item), compactJSON(t, item); a != b {
			t.Fatalf("%s stored\n%s\nand reads back\n%s", op, b, a)
		}
		return nil
	}
}

var writeOps = []string{"PutItem", "BatchWriteItem"}

// nest wraps leaf in n maps ("M"), lists ("L") or both in turn ("ML").
func nest(kind string, n int, leaf types.AttributeValue) types.AttributeValue {
	v := leaf
	for i := range n {
		if kind[i%len(kind)] == 'M' {
			v = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": v}}
		} else {
			v = &types.AttributeValueMemberL{Value: []types.AttributeValue{v}}
		}
	}
	return v
}

// nestJSON is the document nest(kind, n, leaf) stands for.
func nestJSON(kind string, n int, leaf string) string {
	var open, close strings.Builder
	for i := range n {
		if kind[(n-1-i)%len(kind)] == 'M' {
			open.WriteString(`{"x":`)
		} else {
			open.WriteString(`[`)
		}
		if kind[i%len(kind)] == 'M' {
			close.WriteString(`}`)
		} else {
			close.WriteString(`]`)
		}
	}
	return open.String() + leaf + close.String()
}

func refusedFor(err error, message string) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException" && strings.Contains(api.ErrorMessage(), message)
}

// TestNestingLimitOnDynamoDB measures DynamoDB's nesting rule at the
// boundary and holds Convert to it. The item is the first level: an
// attribute may hold 31 maps or lists inside one another (a scalar, a set or
// nothing in the innermost), and 32 are refused, whatever mix of maps and
// lists, with the innermost empty or not. A JSON document, a PostgreSQL
// array and a json[] element are accepted by Convert exactly when DynamoDB
// stores them, and then stored as converted.
func TestNestingLimitOnDynamoDB(t *testing.T) {
	put := limitsTable(t)
	const refused = "Nesting Levels have exceeded supported limits"
	leaves := []struct {
		name string
		av   types.AttributeValue
		json string // "" when JSON has no such leaf
	}{
		{"a string", &types.AttributeValueMemberS{Value: "v"}, `"v"`},
		{"an empty map", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}, `{}`},
		{"an empty list", &types.AttributeValueMemberL{Value: []types.AttributeValue{}}, `[]`},
		{"a string set", &types.AttributeValueMemberSS{Value: []string{"a"}}, ""},
	}
	for _, kind := range []string{"M", "L", "ML", "LM"} {
		for _, leaf := range leaves {
			for levels := 30; levels <= 33; levels++ { // maps and lists in the attribute, the leaf's own included
				n := levels - avNest(leaf.av) // an empty map or list is a level; a string or a set is not
				want := levels <= MaxDepth-1
				for _, op := range writeOps {
					err := put(op, Item{"a": nest(kind, n, leaf.av)})
					switch {
					case want && err != nil:
						t.Errorf("%s: %d levels of %s around %s: refused: %v", op, levels, kind, leaf.name, err)
					case !want && !refusedFor(err, refused):
						t.Errorf("%s: %d levels of %s around %s: err %v, want a ValidationException %q", op, levels, kind, leaf.name, err, refused)
					}
				}
				if leaf.json == "" {
					continue
				}
				doc := nestJSON(kind, n, leaf.json)
				av, err := Convert(&introspect.Column{Name: "doc", Type: "jsonb", Kind: introspect.KindJSON}, []byte(doc))
				if want != (err == nil) {
					t.Errorf("Convert of %d levels of %s around %s: err %v, but DynamoDB %s it", levels, kind, leaf.name, err, map[bool]string{true: "stores", false: "refuses"}[want])
					continue
				}
				if err == nil {
					if got, want := compactJSON(t, av), compactJSON(t, nest(kind, n, leaf.av)); got != want {
						t.Fatalf("Convert(%s) = %s, want %s", doc, got, want)
					}
				}
			}
		}
	}

	// A PostgreSQL array is lists; a json[] element is a document inside them.
	arrays := []struct {
		name string
		c    *introspect.Column
		v    func(levels int) []any
	}{
		{"int[] nested", &introspect.Column{Name: "a", Type: "int[]", Kind: introspect.KindArray, Elem: introspect.KindInt}, nestArray},
		{"json[] element", &introspect.Column{Name: "a", Type: "json[]", Kind: introspect.KindArray, Elem: introspect.KindJSON}, func(levels int) []any {
			return []any{[]byte(`{"k":1}`), []byte(nestJSON("L", levels-1, "1"))}
		}},
		{"json[][] element", &introspect.Column{Name: "a", Type: "json[]", Kind: introspect.KindArray, Elem: introspect.KindJSON}, func(levels int) []any {
			return []any{[]any{nil, []byte(nestJSON("ML", levels-2, "true"))}}
		}},
	}
	for _, a := range arrays {
		for levels := 30; levels <= 33; levels++ {
			av, err := Convert(a.c, a.v(levels))
			want := levels <= MaxDepth-1
			if want != (err == nil) {
				t.Errorf("%s, %d levels: Convert err %v, but DynamoDB %s %d levels", a.name, levels, err, map[bool]string{true: "stores", false: "refuses"}[want], levels)
				continue
			}
			if err != nil {
				continue
			}
			if got := avNest(av); got != levels {
				t.Fatalf("%s: %d levels convert to %d", a.name, levels, got)
			}
			for _, op := range writeOps {
				if err := put(op, Item{"a": av}); err != nil {
					t.Errorf("%s: %s of %d levels: %v", op, a.name, levels, err)
				}
			}
		}
	}
}

// TestMapKeysOnDynamoDB: of the keys a JSON object can have, DynamoDB
// refuses the empty one ("Empty attribute name"), in a map at any depth as
// for an attribute; Convert rejects exactly that one. DynamoDB Local answers
// names over 50000 bytes with a 500 (a limit of its JSON parser): the real
// service allows 65535 bytes, which Convert checks but Local cannot confirm.
func TestMapKeysOnDynamoDB(t *testing.T) {
	put := limitsTable(t)
	jsonC := &introspect.Column{Name: "doc", Type: "json", Kind: introspect.KindJSON}
	s := &types.AttributeValueMemberS{Value: "v"}
	for _, k := range []string{"", " ", "\x00", "a\x00b", "\uFFFD", "😀", "$", ".", "a.b", "#a", ":a", "[0]", `"`, "\\", strings.Repeat("k", 50000), strings.Repeat("é", 25000)} {
		for _, op := range writeOps {
			top := put(op, Item{k: s})
			inMap := put(op, Item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{k: s}}})
			deep := put(op, Item{"m": nest("LM", 4, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{k: s}})})
			if (top == nil) != (inMap == nil) || (inMap == nil) != (deep == nil) {
				t.Errorf("%s: key %.10q (%d bytes): as an attribute %v, in a map %v, deeper %v", op, k, len(k), top, inMap, deep)
			}
			if k == "" {
				if !refusedFor(inMap, "Empty attribute name") {
					t.Errorf("%s: empty key: %v, want a ValidationException", op, inMap)
				}
			} else if inMap != nil {
				t.Errorf("%s: key %.10q (%d bytes): %v", op, k, len(k), inMap)
			}
			_, cerr := Convert(jsonC, []byte(`{"m":{`+quoteKey(k)+`:"v"}}`))
			if (cerr == nil) != (inMap == nil) {
				t.Errorf("key %.10q (%d bytes): Convert err %v, DynamoDB err %v", k, len(k), cerr, inMap)
			}
		}
	}
	var api smithy.APIError
	err := put("PutItem", Item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{strings.Repeat("k", 50001): s}}})
	if !errors.As(err, &api) || api.ErrorCode() != "InternalFailure" {
		t.Errorf("a key of 50001 bytes: %v; DynamoDB Local used to answer 500 InternalFailure: update docs/mapping.md", err)
	}
}
