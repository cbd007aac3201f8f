package examples_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
)

// TestLeaderboardVerifyCatchesBrokenTable migrates the leaderboard example,
// then breaks the table as a faulty score job would: the sixth best player of
// the first week gets a stored TopScore above the week's best (so the weekly
// top 10 comes in another order), and one friend's weekly best is not fanned
// out to user 1. verify must fail and name both.
func TestLeaderboardVerifyCatchesBrokenTable(t *testing.T) {
	const m = "leaderboard/mapping.yaml"
	dsn, endpoint, db, table := migratedExample(t, "leaderboard")
	ctx := context.Background()

	// The first week's top 10, best first; the sixth gets the best's score + 1.
	top := queryIndex(t, db, table, "WeeklyRanking", "Week", "2014-04-11,2014-04-17", 10)
	if len(top) != 10 {
		t.Fatalf("week 1 has %d items in its top 10", len(top))
	}
	best := num(t, top[0]["TopScore"])
	sixth := top[5]
	tampered := strconv.Itoa(best + 1)
	setNumber(t, db, table, map[string]types.AttributeValue{"Id": sixth["Id"], "SK": sixth["SK"]}, "TopScore", tampered)

	// User 1's friends ranking of week 2 (the first sample of
	// weeklyFriendsRanking's params): drop the item of the last friend.
	ranking := queryIndex(t, db, table, "FriendsRanking", "FriendIdAndWeek", "1,2014-04-18,2014-04-24", 0)
	lost := ranking[len(ranking)-1]
	if len(ranking) < 2 || nstr(lost["Id"]) == "1" {
		t.Fatalf("user 1's week 2 ranking has no friend in last place: %d items", len(ranking))
	}
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(table),
		Key:       map[string]types.AttributeValue{"Id": lost["Id"], "SK": lost["SK"]},
	}); err != nil {
		t.Fatal(err)
	}

	// --samples 8 samples every week for weeklyTop10 (its params are the
	// weeks in order) and users 1 to 8 for weeklyFriendsRanking.
	out := verifyFails(t, dsn, m, endpoint, table, "8")
	if !regexp.MustCompile(`FAIL +friend_best +source rows +4485 +items +4484\n`).MatchString(out) {
		t.Errorf("the counts do not fail friend_best with 4485 rows and 4484 items")
	}
	// Keys are named by their attributes (Id, SK). A date parameter is matched
	// with or without a time of day: the report prints it as verify formats it.
	sixthKey := "Id=" + nstr(sixth["Id"]) + " SK=" + str(sixth["SK"])
	lostKey := "Id=" + nstr(lost["Id"]) + " SK=" + str(lost["SK"])
	q := regexp.QuoteMeta
	day := func(d string) string { return q(d) + "(T00:00:00Z)?" }
	for _, want := range []string{
		q("item " + sixthKey + " (entity weekly_best, row user_id=" + nstr(sixth["Id"]) + ", week_id=1) differs: TopScore is N " + tampered + ", want N " + nstr(sixth["TopScore"])),
		q("missing item " + lostKey + " (entity friend_best, row viewer_id=1, user_id=" + nstr(lost["Id"]) + ", week_id=2)"),
		`FAIL +weeklyTop10 `,
		`\{starts_on=` + day("2014-04-11") + `, ends_on=` + day("2014-04-17") + `\}: ` +
			q("position 1 of the desc order: the SQL returns Id="+nstr(top[0]["Id"])+" SK="+str(top[0]["SK"])+", the Query "+sixthKey+" (TopScore="+tampered+"); the Query returns it at position 2"),
		`FAIL +weeklyFriendsRanking `,
		`\{viewer_id=1, starts_on=` + day("2014-04-18") + `, ends_on=` + day("2014-04-24") + `\}: ` +
			q("the Query misses item "+lostKey+" (entity friend_best) that the SQL returns"),
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the report does not match %s", want)
		}
	}
	// Weeks 5 and 6 hold ties (the 10th and 11th, the first two): verify's
	// tie rule accepts them in any order, so their samples do not fail.
	if m := regexp.MustCompile(`starts_on=2014-05-(09|16)`).FindString(out); m != "" {
		t.Errorf("weeklyTop10 fails a week with a tie (%s)", m)
	}
	// recentWeeks compares keys only, which neither breakage touches.
	// (personalBest may pass or fail: it depends on whether verify samples
	// the tampered user.)
	if !regexp.MustCompile(`PASS +recentWeeks `).MatchString(out) {
		t.Errorf("recentWeeks, which the breakage does not touch, does not pass")
	}
}

// queryIndex returns the items of partition pkName = pk on a global index in
// descending sort key order, at most limit of them (0: all).
func queryIndex(t *testing.T, db dynamo.API, table, index, pkName, pk string, limit int32) []map[string]types.AttributeValue {
	t.Helper()
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String(pkName + " = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		ScanIndexForward:          aws.Bool(false),
	}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	res, err := db.Query(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 {
		t.Fatalf("no item on %s with %s = %s", index, pkName, pk)
	}
	return res.Items
}

func nstr(v types.AttributeValue) string {
	if n, ok := v.(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

// setNumber sets the number attribute attr of the item with this key, as
// a faulty job writing it would.
func setNumber(t *testing.T, db dynamo.API, table string, key map[string]types.AttributeValue, attr, value string) {
	t.Helper()
	if _, err := db.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:                 aws.String(table),
		Key:                       key,
		UpdateExpression:          aws.String("SET #a = :n"),
		ExpressionAttributeNames:  map[string]string{"#a": attr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: value}},
	}); err != nil {
		t.Fatal(err)
	}
}

func num(t *testing.T, v types.AttributeValue) int {
	t.Helper()
	n, err := strconv.Atoi(nstr(v))
	if err != nil {
		t.Fatalf("not a whole number: %#v", v)
	}
	return n
}
