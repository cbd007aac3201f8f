package mapping

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestShardLockKey: each shard's lock item has a key of its own, for every
// key type, which IsLock knows (numbers by value, also in the normalised
// form DynamoDB gives them back); numbers near it are not locks. The split
// plan item's key (SplitPlanKey) is another of its own, which IsLock knows.
func TestShardLockKey(t *testing.T) {
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	for _, tb := range []*Table{
		{PK: KeyAttr{Name: "PK", Type: "S"}},
		{PK: KeyAttr{Name: "PK", Type: "S"}, SK: &KeyAttr{Name: "SK", Type: "S"}},
		{PK: KeyAttr{Name: "id", Type: "N"}, SK: &KeyAttr{Name: "at", Type: "B"}},
		{PK: KeyAttr{Name: "id", Type: "N"}},
	} {
		seen := map[string]bool{tb.KeyString(tb.LockKey()): true, tb.KeyString(tb.SplitPlanKey()): true}
		if tb.KeyString(tb.SplitPlanKey()) == tb.KeyString(tb.LockKey()) || !tb.IsLock(tb.SplitPlanKey()) {
			t.Errorf("the split plan key %s is the lock's, or not known to IsLock", tb.KeyString(tb.SplitPlanKey()))
		}
		for count := 1; count <= 12; count++ {
			for i := 1; i <= count; i++ {
				k := tb.ShardLockKey(i, count)
				if !tb.IsLock(k) {
					t.Errorf("IsLock(ShardLockKey(%d, %d) = %s) is false", i, count, tb.KeyString(k))
				}
				if s := tb.KeyString(k); seen[s] {
					t.Errorf("ShardLockKey(%d, %d) = %s is another lock's key too", i, count, s)
				} else {
					seen[s] = true
				}
			}
		}
	}
	if got := (&Table{PK: KeyAttr{Name: "PK", Type: "S"}}).KeyString((&Table{PK: KeyAttr{Name: "PK", Type: "S"}}).ShardLockKey(2, 3)); got != "PK=#remodel#lock#shard#2/3" {
		t.Errorf("shard 2/3's lock key %s", got)
	}
	if got := (&Table{PK: KeyAttr{Name: "PK", Type: "S"}}).KeyString((&Table{PK: KeyAttr{Name: "PK", Type: "S"}}).SplitPlanKey()); got != "PK=#remodel#lock#plan" {
		t.Errorf("the split plan key %s", got)
	}
	num := &Table{PK: KeyAttr{Name: "id", Type: "N"}}
	for v, want := range map[string]bool{
		"-9.999999999999999999999999900000200001E+125":                true, // 2/10, normalised
		"-99999999999999999999999999000002000003" + string(make0(88)): true,
		"-9.9999999999999999999999999000003000002E+125":               false, // 3/2
		"-9.9999999999999999999999999000000000003E+125":               false, // 0/3
		"-9.99999999999999999999999990000020000035E+125":              false,
		"-9.9999999999999999999999999999999999998E+125":               false,
		"-9.9999999999999999999999999E+125":                           true, // the split plan's
		"-9.9999999999999999999999998E+125":                           false,
	} {
		if got := num.IsLock(Item{"id": n(v)}); got != want {
			t.Errorf("IsLock(id=%s) = %v, want %v", v, got, want)
		}
	}
}
