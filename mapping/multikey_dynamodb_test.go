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
)

// multiKeyAttrs are the key attributes of the index these tests query:
// partition key (a, b), sort key (c N, d, e).
var multiKeyAttrs = []struct {
	name, typ string
	hash      bool
}{{"a", "S", true}, {"b", "S", true}, {"c", "N", false}, {"d", "S", false}, {"e", "S", false}}

// multiKeyIndex creates a table with the index and one item in it, and
// returns a function that runs a Query on the index with a key condition
// expression whose values are :a, :b, :c, :d, :e, :x (and :c2, :d2, :e2
// for between).
func multiKeyIndex(t *testing.T) func(cond string) error {
	t.Helper()
	db, name := testenv.DynamoDBTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	defs := []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}}
	var ks []types.KeySchemaElement
	item := Item{"PK": &types.AttributeValueMemberS{Value: "1"}}
	values := map[string]types.AttributeValue{":x": &types.AttributeValueMemberS{Value: "x"}}
	for _, k := range multiKeyAttrs {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(k.name), AttributeType: types.ScalarAttributeType(k.typ)})
		kt := types.KeyTypeRange
		if k.hash {
			kt = types.KeyTypeHash
		}
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(k.name), KeyType: kt})
		v := types.AttributeValue(&types.AttributeValueMemberS{Value: "v"})
		if k.typ == "N" {
			v = &types.AttributeValueMemberN{Value: "1"}
		}
		item[k.name], values[":"+k.name], values[":"+k.name+"2"] = v, v, v
	}
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(name), AttributeDefinitions: defs, BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("Multi"), KeySchema: ks, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item}); err != nil {
		t.Fatal(err)
	}
	nop := func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }
	return func(cond string) error {
		used := map[string]types.AttributeValue{}
		for n, v := range values {
			if strings.Contains(cond+" ", n+" ") || strings.Contains(cond, n+")") {
				used[n] = v
			}
		}
		_, err := db.Query(ctx, &dynamodb.QueryInput{
			TableName: aws.String(name), IndexName: aws.String("Multi"),
			KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: used,
		}, nop)
		var ae smithy.APIError
		if err != nil && !(errors.As(err, &ae) && ae.ErrorCode() == "ValidationException") {
			t.Fatalf("Query %q: %v", cond, err)
		}
		return err
	}
}

// TestMultiKeyConditionsAgreeWithDynamoDB holds the key conditions a
// mapping may write on a multi-attribute key to what DynamoDB Local 3.3.1
// answers: for every shape the mapping language can express (partition
// templates, exact values for a prefix of the sort attributes, one range
// condition after them), Check accepts it exactly when DynamoDB does. It
// also pins what DynamoDB refuses that the language cannot express.
func TestMultiKeyConditionsAgreeWithDynamoDB(t *testing.T) {
	query := multiKeyIndex(t)
	const header = `version: 1
table:
  name: shop
  key: {pk: PK}
  indexes:
    - {name: Multi, pk: [a, b], sk: [{name: c, type: N}, d, e]}
entities:
  thing: {from: things, pk: "T#{id}"}
access_patterns:
  p:
    index: Multi
    entity: thing
    sql: SELECT 1
`
	sortAttrs := []string{"c", "d", "e"}
	value := func(attr string) string {
		if attr == "c" {
			return `"1"`
		}
		return `"v"`
	}
	checked, accepted := 0, 0
	for _, pk := range [][]string{{"a"}, {"a", "b"}, {"a", "b", "x"}} {
		for eq := 0; eq <= 3; eq++ {
			for _, op := range []string{"", "gt", "between", "begins_with"} {
				// The mapping.
				var tmpls, conds []string
				for _, a := range pk {
					tmpls = append(tmpls, value(a))
					conds = append(conds, a+" = :"+a)
				}
				q := "    query: {pk: [" + strings.Join(tmpls, ", ") + "]"
				var eqs []string
				for _, a := range sortAttrs[:eq] {
					eqs = append(eqs, value(a))
					conds = append(conds, a+" = :"+a)
				}
				rangeAttr := "x" // past the sort key: no such attribute
				if eq < 3 {
					rangeAttr = sortAttrs[eq]
				}
				switch op {
				case "":
					if eq > 0 {
						q += ", sk: [" + strings.Join(eqs, ", ") + "]"
					}
				case "between":
					q += fmt.Sprintf(", sk: {eq: [%s], between: [%s, %s]}", strings.Join(eqs, ", "), value(rangeAttr), value(rangeAttr))
					conds = append(conds, rangeAttr+" BETWEEN :"+rangeAttr+" AND :"+rangeAttr+"2")
				case "gt":
					q += fmt.Sprintf(", sk: {eq: [%s], gt: %s}", strings.Join(eqs, ", "), value(rangeAttr))
					conds = append(conds, rangeAttr+" > :"+rangeAttr)
				case "begins_with":
					q += fmt.Sprintf(", sk: {eq: [%s], begins_with: %s}", strings.Join(eqs, ", "), value(rangeAttr))
					conds = append(conds, "begins_with("+rangeAttr+", :"+rangeAttr+")")
				}
				q = strings.ReplaceAll(q, "{eq: [], ", "{")
				src := header + q + "}\n"
				f, err := Parse("m.yaml", []byte(src))
				if err != nil {
					t.Fatalf("%s\n%v", src, err)
				}
				mappingOK := Check(f) == nil
				cond := strings.Join(conds, " AND ")
				dynamoErr := query(cond)
				checked++
				if mappingOK {
					accepted++
				}
				if mappingOK != (dynamoErr == nil) {
					t.Errorf("%s: the mapping says %v (%v), DynamoDB Local says %v", cond, mappingOK, Check(f), dynamoErr)
				}
			}
		}
	}
	t.Logf("%d key condition shapes, %d accepted by both", checked, accepted)
	if checked < 40 || accepted < 8 {
		t.Errorf("%d shapes checked, %d accepted: the comparison proves little", checked, accepted)
	}

	// What the mapping language cannot even say, DynamoDB refuses too.
	for cond, want := range map[string]string{
		"a = :a":                       "HASH key attributes b must have equality conditions specified in the query",
		"a = :a AND b = :b AND d > :d": "RANGE key attributes c must have equality conditions specified in the query because a condition is present on key attribute d",
		"a = :a AND b = :b AND c > :c AND d > :d": "RANGE key attributes c must have equality conditions specified in the query because a condition is present on key attribute d",
	} {
		err := query(cond)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a ValidationException %q", cond, err, want)
		}
	}
}
