package verify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/verify"
)

// TestVerifyProjections migrates the personalization example with GSI1
// projecting the keys only and GSI2 the keys and subscribedAt (INCLUDE).
// verify passes; the pattern on GSI2 (its parameter pinned to one service)
// is compared on what GSI2 projects: a changed attribute it does not
// project goes unnoticed by the pattern check, a changed subscribedAt
// fails it, naming the item and the attribute. A mapping whose GSI2
// projects ALL does not describe the table: verify refuses it, naming
// both projections.
func TestVerifyProjections(t *testing.T) {
	eng := testenv.Engines[0]
	orig := exampleMapping(t)
	m := orig
	for _, r := range [][2]string{
		{"{name: GSI1, pk: SK, sk: PK}", "{name: GSI1, pk: SK, sk: PK, projection: KEYS_ONLY}"},
		{"{name: GSI2, pk: data, sk: SK}", "{name: GSI2, pk: data, sk: SK, projection: {include: [subscribedAt]}}"},
		{"    sql: SELECT * FROM subscribe_user WHERE service = {service}\n", "    sql: SELECT * FROM subscribe_user WHERE service = {service}\n    params: SELECT min(service) AS service FROM subscribe_user\n" +
			// A KEYS_ONLY index whose partition key is a plain attribute
			// (subscribed_at, renamed), which the pattern's SQL selects: the
			// Query asks for it too (it was left out, and every item was
			// reported without it).
			"  findSubscriptionsAt:\n    index: BySubscribedAt\n    query: {pk: \"{subscribed_at}\"}\n    entity: subscribe_user\n    sql: SELECT * FROM subscribe_user WHERE subscribed_at = {subscribed_at}\n"},
		{"    - {name: GSI1,", "    - {name: BySubscribedAt, pk: subscribedAt, sk: SK, projection: KEYS_ONLY}\n    - {name: GSI1,"},
	} {
		if !strings.Contains(m, r[0]) {
			t.Fatalf("the example mapping has no %q", r[0])
		}
		m = strings.Replace(m, r[0], r[1], 1)
	}
	o := migrated(t, eng.Name, eng.Fresh, m)
	o.SkipItems = true
	if rep := run(t, o); !rep.OK {
		t.Fatalf("verify failed on the table migrate made:\n%s", text(rep))
	}

	// An item the pattern returns: GSI2's first subscription, of the
	// service that sorts first (SK is SUBSCRIBE#{service}#...), which the
	// params SQL pins.
	ctx := context.Background()
	out, err := o.DB.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(o.Table), IndexName: aws.String("GSI2"), Limit: aws.Int32(1),
		KeyConditionExpression:    aws.String("#d = :d"),
		ExpressionAttributeNames:  map[string]string{"#d": "data"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": &types.AttributeValueMemberS{Value: "SUBSCRIBE_USER"}}})
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("querying GSI2: %v, %d items", err, len(out.Items))
	}
	pk, sk := out.Items[0]["PK"].(*types.AttributeValueMemberS).Value, out.Items[0]["SK"].(*types.AttributeValueMemberS).Value
	item := getItem(t, o, pk, sk)
	defer putItem(t, o, item)
	changed := func(attr string, v types.AttributeValue) map[string]types.AttributeValue {
		c := map[string]types.AttributeValue{}
		for k, x := range item {
			c[k] = x
		}
		c[attr] = v
		return c
	}

	putItem(t, o, changed("contentType", &types.AttributeValueMemberS{Value: "planted"}))
	if rep := run(t, o); !rep.OK {
		t.Errorf("verify (patterns only) failed on an attribute GSI2 does not project:\n%s", text(rep))
	}

	putItem(t, o, changed("subscribedAt", &types.AttributeValueMemberS{Value: "1999-01-01T00:00:00Z"}))
	rep := run(t, o)
	if rep.OK {
		t.Fatalf("verify passed with a projected attribute changed:\n%s", text(rep))
	}
	var found []verify.Problem
	for _, pc := range rep.Patterns {
		for _, p := range pc.Problems.List {
			found = append(found, p)
			if pc.Name != "findUserBySubscribeService" || p.Kind != verify.KindQueryValue || p.Attribute != "subscribedAt" ||
				p.Got != `S "1999-01-01T00:00:00Z"` || p.Entity != "subscribe_user" || p.Key != "PK="+pk+" SK="+sk {
				t.Errorf("pattern %s: unexpected problem %+v", pc.Name, p)
			}
		}
	}
	if len(found) != 1 {
		t.Errorf("%d problems, want the one changed attribute:\n%s", len(found), text(rep))
	}
	putItem(t, o, item)

	// The table's GSI2 projects INCLUDE; a mapping saying ALL does not
	// describe it.
	o.Plan = compile(t, o.Source, strings.Replace(m, ", projection: {include: [subscribedAt]}", "", 1))
	_, err = verify.Run(ctx, o)
	want := "verify: table " + o.Table + " is not as the mapping describes it: index GSI2 projects INCLUDE (subscribedAt), the mapping's projects ALL"
	if err == nil || err.Error() != want {
		t.Errorf("verify with GSI2 projecting ALL in the mapping: %v\nwant %s", err, want)
	}
}
