package verify_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestLockItemIgnored: the lock item a migrate run keeps in the table (of a
// run still writing, or of one that died) is no item of the data: verify's
// counts and stray check leave it out. Another item of no entity is still
// named.
func TestLockItemIgnored(t *testing.T) {
	eng := testenv.Engines[0]
	o := migrated(t, eng.Name, eng.Fresh, exampleMapping(t))
	lock := o.Plan.Table.LockKey()
	lock["remodel_owner"] = &types.AttributeValueMemberS{Value: "0123456789abcdef"}
	if _, err := o.DB.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(o.Table), Item: lock}); err != nil {
		t.Fatal(err)
	}
	o.SkipItems = true
	if rep := run(t, o); !rep.OK || rep.Stray.Total != 0 {
		t.Fatalf("verify with a lock item in the table: ok=%v stray=%+v", rep.OK, rep.Stray)
	}
	// The same key with another sort key is not the lock.
	lock["SK"] = &types.AttributeValueMemberS{Value: "OTHER"}
	if _, err := o.DB.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(o.Table), Item: lock}); err != nil {
		t.Fatal(err)
	}
	if rep := run(t, o); rep.OK || rep.Stray.Total != 1 || rep.Stray.List[0].Key != "PK=#remodel#lock SK=OTHER" {
		t.Fatalf("verify did not name the item that is not the lock: ok=%v stray=%+v", rep.OK, rep.Stray)
	}
}
