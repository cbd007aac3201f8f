package examples_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
)

// TestBoardVerifyCatchesBrokenTable migrates the board example, then breaks
// the table the way a faulty hand-written migration would: one direction of
// a tag relation is lost, and one post's relation item under its author
// carries the wrong state prefix. verify must fail and name both.
func TestBoardVerifyCatchesBrokenTable(t *testing.T) {
	const m = "board/mapping.yaml"
	dsn, endpoint, db, table := migratedExample(t, "board")
	ctx := context.Background()

	// The oldest post under tag 1, seen from the tag: TAG-1:post.
	tagPost := firstItem(t, db, table, "TAG-1:post", "")
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key(tagPost)}); err != nil {
		t.Fatal(err)
	}
	// A published question of user 1 that the relation item now calls a draft.
	userPost := firstItem(t, db, table, "USER-1:question", "PUBLISHED:")
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key(userPost)}); err != nil {
		t.Fatal(err)
	}
	published := str(userPost["SK"])
	draft := "DRAFT:" + strings.TrimPrefix(published, "PUBLISHED:")
	userPost["SK"] = &types.AttributeValueMemberS{Value: draft}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: userPost}); err != nil {
		t.Fatal(err)
	}

	// --samples 400 samples every tag and every user with posts, so
	// findPostsByTag meets tag 1 and findDraftQuestionsByUser user 1.
	out := verifyFails(t, dsn, m, endpoint, table, "400")
	tagKey := "TAG-1:post/" + str(tagPost["SK"])
	if !regexp.MustCompile(`FAIL +tag_post +source rows +3511 .*items +3510\n`).MatchString(out) {
		t.Errorf("the counts do not fail tag_post with 3511 rows and 3510 items")
	}
	for _, want := range []string{
		"missing item PK=TAG-1:post SK=" + str(tagPost["SK"]) + " (entity tag_post, row post_id=" + strings.TrimPrefix(str(tagPost["Data"]), "POST-"),
		"missing item PK=USER-1:question SK=" + published + " (entity user_post, row post_id=" + strings.TrimPrefix(str(userPost["Data"]), "POST-"),
		"FAIL  findPostsByTag",
		"{tag_id=1}: the Query misses item PK=TAG-1:post SK=" + str(tagPost["SK"]) + " (entity tag_post) that the SQL returns",
		"FAIL  findDraftQuestionsByUser",
		"{user_id=1}: the Query returns item PK=USER-1:question SK=" + draft + " (entity user_post) that the SQL does not",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q (broken: %s, %s -> %s)", want, tagKey, published, draft)
		}
	}
}

// firstItem returns the first item of partition pk (on the table) whose sort
// key begins with prefix.
func firstItem(t *testing.T, db dynamo.API, table, pk, prefix string) map[string]types.AttributeValue {
	t.Helper()
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}, ":p": &types.AttributeValueMemberS{Value: prefix}},
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(1),
	}
	if prefix == "" {
		in.KeyConditionExpression = aws.String("PK = :pk")
		delete(in.ExpressionAttributeValues, ":p")
	}
	res, err := db.Query(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 {
		t.Fatalf("no item in partition %s with a sort key that begins with %q", pk, prefix)
	}
	return res.Items[0]
}

func key(it map[string]types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]}
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
