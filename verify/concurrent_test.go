package verify_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/verify"
)

// TestConcurrentEntitiesKeepTheirProblems breaks one item of each of four
// entities in its own way, and adds a stray item of a fifth, then verifies
// with the entities checked one at a time and four at a time (beside the
// table scan and the access patterns): each problem is reported once, under
// its own entity, and the two reports are the same, byte for byte (the
// time taken aside), on every run.
func TestConcurrentEntitiesKeepTheirProblems(t *testing.T) {
	ctx := context.Background()
	eng := testenv.Engines[0]
	o := migrated(t, eng.Name, eng.Fresh, exampleMapping(t))
	o.Seed = 7
	del := func(pk, sk string) {
		t.Helper()
		if _, err := o.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.Table), Key: key(pk, sk)}); err != nil {
			t.Fatal(err)
		}
	}
	set := func(pk, sk, attr, value string) {
		t.Helper()
		item := getItem(t, o, pk, sk)
		if item == nil {
			t.Fatalf("no item %s %s to change", pk, sk)
		}
		item[attr] = &types.AttributeValueMemberS{Value: value}
		putItem(t, o, item)
	}
	del("USER#7", "USER#")                                         // user: missing
	set("USER#7", "PERSONAL#news#theme", "settingType", "changed") // personal: different
	sub := getItem(t, o, "USER#3", "USER#")                        // any user's subscriptions: find one below
	if sub == nil {
		t.Fatal("no user 3")
	}
	out, err := o.DB.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(o.Table), KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "USER#3"}, ":sk": &types.AttributeValueMemberS{Value: "SUBSCRIBE#"}},
		Limit: aws.Int32(1),
	})
	if err != nil || len(out.Items) != 1 {
		t.Fatalf("no subscription of user 3: %v", err)
	}
	subSK := out.Items[0]["SK"].(*types.AttributeValueMemberS).Value
	del("USER#3", subSK)                                   // subscribe_user: missing
	set("SERVICE#news", "SERVICE#", "displayName", "Olds") // service: different
	ghost := key("USER#99999", "PERSONAL#none#none")       // personal: a stray of a known entity
	ghost["_type"] = &types.AttributeValueMemberS{Value: "personal"}
	putItem(t, o, ghost)

	want := map[string][]string{ // entity: the keys of its item problems
		"user":           {"PK=USER#7 SK=USER#"},
		"service":        {"PK=SERVICE#news SK=SERVICE#"},
		"personal":       {"PK=USER#7 SK=PERSONAL#news#theme"},
		"subscribe":      nil,
		"subscribe_user": {"PK=USER#3 SK=" + subSK},
	}
	var first []byte
	for _, readers := range []int{1, 4, 4, 1} {
		o.Readers = readers
		rep, err := verify.Run(ctx, o)
		if err != nil {
			t.Fatalf("verify with %d readers: %v", readers, err)
		}
		if rep.OK {
			t.Fatalf("verify with %d readers passed a broken table:\n%s", readers, text(rep))
		}
		if len(rep.Items) != 5 {
			t.Fatalf("verify with %d readers has %d item checks, want 5:\n%s", readers, len(rep.Items), text(rep))
		}
		for i, ic := range rep.Items {
			if name := o.Plan.Entities[i].Name; ic.Entity != name {
				t.Errorf("with %d readers item check %d is of %s, want %s (mapping order)", readers, i, ic.Entity, name)
			}
			var got []string
			for _, p := range ic.Problems.List {
				if p.Entity != ic.Entity {
					t.Errorf("with %d readers the item check of %s lists a problem of %s: %s", readers, ic.Entity, p.Entity, p.Message)
				}
				got = append(got, p.Key)
			}
			if fmt.Sprint(got) != fmt.Sprint(want[ic.Entity]) || ic.Problems.Total != int64(len(want[ic.Entity])) {
				t.Errorf("with %d readers the item check of %s names %v (of %d), want %v", readers, ic.Entity, got, ic.Problems.Total, want[ic.Entity])
			}
		}
		if rep.Stray.Total != 1 || rep.Stray.List[0].Entity != "personal" || rep.Stray.List[0].Key != "PK=USER#99999 SK=PERSONAL#none#none" {
			t.Errorf("with %d readers the strays are %+v, want the one ghost of personal", readers, rep.Stray)
		}
		rep.Seconds = 0
		var b bytes.Buffer
		if err := report.WriteJSON(&b, rep); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatalf("the report with %d readers differs from the first run's:\n--- first\n%s\n--- now\n%s", readers, first, b.Bytes())
		}
	}
}
