package examples_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestGameProfileVerifyCatchesBrokenTable migrates the game-profile example,
// then breaks the table: one user's embedded first servers lose the last
// one, another user's come in the wrong order, a person of the back
// office is moved to another manager, and a login session's TTL is one
// second late. verify must fail and name all four, the embedded ones by
// element.
func TestGameProfileVerifyCatchesBrokenTable(t *testing.T) {
	const m = "game-profile/mapping.yaml"
	dsn, endpoint, db, table := migratedExample(t, "game-profile")
	ctx := context.Background()
	get := func(pk, sk string) map[string]types.AttributeValue {
		t.Helper()
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}}})
		if err != nil || out.Item == nil {
			t.Fatalf("get %s %s: %v", pk, sk, err)
		}
		return out.Item
	}
	put := func(item map[string]types.AttributeValue) {
		t.Helper()
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	// The first two users with at least three first servers.
	var users []map[string]types.AttributeValue
	for u := 1; len(users) < 2 && u <= 100; u++ {
		it := get(fmt.Sprintf("USER#USER%06d", u), "USER")
		if l, ok := it["INIT_SERVER"].(*types.AttributeValueMemberL); ok && len(l.Value) >= 3 {
			users = append(users, it)
		}
	}
	if len(users) < 2 {
		t.Fatal("no two users with three first servers among the first 100")
	}
	lost, swapped := users[0], users[1]
	l := lost["INIT_SERVER"].(*types.AttributeValueMemberL)
	l.Value = l.Value[:len(l.Value)-1]
	put(lost)
	l = swapped["INIT_SERVER"].(*types.AttributeValueMemberL)
	l.Value[0], l.Value[1] = l.Value[1], l.Value[0]
	put(swapped)
	moved := get("EMP00020", "WORKFORCE")
	oldMgr := str(moved["RES_MGR_ID"])
	newMgr := "EMP00002"
	if oldMgr == newMgr {
		newMgr = "EMP00003"
	}
	moved["RES_MGR_ID"] = &types.AttributeValueMemberS{Value: newMgr}
	put(moved)
	// created_at 2025-12-19 21:42:02 (UTC) + 30 days = 1768772522; one second late.
	const session = "SESSION#20a9442554a3d9afb4e021b775408ac6"
	late := get(session, "SESSION")
	if n, ok := late["expires_at"].(*types.AttributeValueMemberN); !ok || n.Value != "1768772522" {
		t.Fatalf("session %s has expires_at %v, want N 1768772522", session, late["expires_at"])
	}
	late["expires_at"] = &types.AttributeValueMemberN{Value: "1768772523"}
	put(late)

	// --samples 400 samples every manager for getByManager.
	out := verifyFails(t, dsn, m, endpoint, table, "400")
	id := func(it map[string]types.AttributeValue) string { return strings.TrimPrefix(str(it["PK"]), "USER#") }
	lostItem := "item PK=USER#" + id(lost) + " SK=USER (entity user, row user_id=" + id(lost) + ")"
	swappedItem := "item PK=USER#" + id(swapped) + " SK=USER (entity user, row user_id=" + id(swapped) + ")"
	for _, want := range []string{
		"FAIL  user ",
		lostItem + " differs: INIT_SERVER is L [",
		lostItem + ": attribute INIT_SERVER is L [",
		swappedItem + " differs: INIT_SERVER is L [",
		swappedItem + ": attribute INIT_SERVER[0].server_id is S ",
		swappedItem + ": attribute INIT_SERVER[1].server_id is S ",
		"item PK=EMP00020 SK=WORKFORCE (entity employee, row employee_id=EMP00020) differs: RES_MGR_ID is S \"" + newMgr + "\", want S \"" + oldMgr + "\"",
		"FAIL  getByManager",
		"{manager_id=" + oldMgr + "}: the Query misses item PK=EMP00020 SK=WORKFORCE (entity employee) that the SQL returns",
		"{manager_id=" + newMgr + "}: the Query returns item PK=EMP00020 SK=WORKFORCE (entity employee) that the SQL does not",
		"PASS  getUserWithAccounts",
		"item PK=" + session + " SK=SESSION (entity session, row session_id=20a9442554a3d9afb4e021b775408ac6) differs: expires_at is N 1768772523, want N 1768772522",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q", want)
		}
	}
}
