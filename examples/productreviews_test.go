package examples_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestProductReviewsVerifyCatchesBrokenOrder migrates the product-reviews
// example, then breaks the order of product 2's ranking as a faulty likes
// counter would: its fifth best review gets more likes on its item than the
// best one has. The index ReviewRank sorts by that attribute, so both index
// patterns return the review first; the table's sort key still holds the old
// count, so the table patterns still pass. verify must fail, naming the
// item's likes and the order of both index patterns.
func TestProductReviewsVerifyCatchesBrokenOrder(t *testing.T) {
	const m = "product-reviews/mapping.yaml"
	dsn, endpoint, db, table := migratedExample(t, "product-reviews")
	ctx := context.Background()

	res, err := db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :sk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "PRODUCT#2"}, ":sk": &types.AttributeValueMemberS{Value: "REVIEW#body=1#"}},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(5),
	})
	if err != nil || len(res.Items) != 5 {
		t.Fatalf("product 2's top 5 with a body: %d items, %v", len(res.Items), err)
	}
	best, fifth := res.Items[0], res.Items[4]
	tampered := strconv.Itoa(num(t, best["likes"]) + 1)
	setNumber(t, db, table, map[string]types.AttributeValue{"PK": fifth["PK"], "SK": fifth["SK"]}, "likes", tampered)

	// The params list the products in order: --samples 3 checks 1, 2 and 3.
	out := verifyFails(t, dsn, m, endpoint, table, "3")
	q := regexp.QuoteMeta
	fifthKey := "PK=PRODUCT#2 SK=" + str(fifth["SK"])
	bestKey := "PK=PRODUCT#2 SK=" + str(best["SK"])
	for _, want := range []string{
		q("item " + fifthKey + " (entity review, row review_id=" + nstr(fifth["reviewId"]) + ") differs: likes is N " + tampered + ", want N " + nstr(fifth["likes"])),
		`FAIL +rankedReviews `,
		`FAIL +rankedReviewsWithBody `,
		q("{product_id=2}: position 1 of the desc order: the SQL returns " + bestKey + ", the Query " + fifthKey),
		`PASS +topReviews `,
		`PASS +topReviewsWithBody `,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the report does not match %s", want)
		}
	}
	// Products 1 and 2 hold reviews tied on every sort attribute of the
	// index (product 2's cut by the limit 20): verify's tie rule accepts
	// them in any order, so neither product 1 nor 3 fails.
	if m := regexp.MustCompile(`\{product_id=[13]\}`).FindString(out); m != "" {
		t.Errorf("a product the breakage does not touch fails: %s", m)
	}
}
