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

// TestVerifyTableShape: verify checks the table itself against the
// mapping, not only its items: the table migrate made (TTL on, indexes
// projecting ALL, on-demand) passes; with its TTL turned off, verify fails
// and says so.
func TestVerifyTableShape(t *testing.T) {
	eng := testenv.Engines[0]
	m := strings.Replace(exampleMapping(t), "  billing: on-demand\n", "  billing: on-demand\n  ttl: expiresAt\n", 1)
	if !strings.Contains(m, "ttl: expiresAt") {
		t.Fatal("the example mapping has no billing: on-demand line to put the TTL after")
	}
	o := migrated(t, eng.Name, eng.Fresh, m)
	o.SkipItems = true
	if rep := run(t, o); !rep.OK {
		t.Fatalf("verify failed on the table migrate made:\n%s", text(rep))
	}

	ctx := context.Background()
	if _, err := o.DB.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(o.Table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Run(ctx, o)
	want := "verify: table " + o.Table + " is not as the mapping describes it: TTL is disabled, the mapping's TTL attribute is expiresAt"
	if err == nil || err.Error() != want || rep.OK {
		t.Fatalf("verify with the TTL off: %v (report OK %v), want the error %q", err, rep.OK, want)
	}
}
