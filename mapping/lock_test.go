package mapping

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestLockKey: the lock item's key for every key type, and IsLock telling
// it from other items (numbers by value: DynamoDB gives them back
// normalised).
func TestLockKey(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	b := func(v string) types.AttributeValue { return &types.AttributeValueMemberB{Value: []byte(v)} }
	pkOnly := &Table{PK: KeyAttr{Name: "PK", Type: "S"}}
	both := &Table{PK: KeyAttr{Name: "id", Type: "N"}, SK: &KeyAttr{Name: "at", Type: "B"}}
	if got := pkOnly.KeyString(pkOnly.LockKey()); got != "PK=#remodel#lock" {
		t.Errorf("lock key %s", got)
	}
	if got := both.KeyString(both.LockKey()); got != "id=-9.9999999999999999999999999999999999999E+125 at=2372656d6f64656c236c6f636b" {
		t.Errorf("lock key %s", got)
	}
	for _, c := range []struct {
		table *Table
		item  Item
		want  bool
	}{
		{pkOnly, pkOnly.LockKey(), true},
		{pkOnly, Item{"PK": s("#remodel#lock"), "x": s("y")}, true},
		{pkOnly, Item{"PK": s("#remodel#lock2")}, false},
		{pkOnly, Item{"PK": b("#remodel#lock")}, false},
		{pkOnly, Item{}, false},
		{both, both.LockKey(), true},
		{both, Item{"id": n("-99999999999999999999999999999999999999" + string(make0(88))), "at": b("#remodel#lock")}, true},
		{both, Item{"id": n("-9.9999999999999999999999999999999999998E+125"), "at": b("#remodel#lock")}, false},
		{both, Item{"id": n("-9.9999999999999999999999999999999999999E+125"), "at": b("#remodel#loc")}, false},
		{both, Item{"id": n("-9.9999999999999999999999999999999999999E+125")}, false},
		{both, Item{"id": n("5"), "at": b("#remodel#lock")}, false},
	} {
		if got := c.table.IsLock(c.item); got != c.want {
			t.Errorf("IsLock(%v) = %v, want %v", c.item, got, c.want)
		}
	}
}

func make0(n int) []byte {
	z := make([]byte, n)
	for i := range z {
		z[i] = '0'
	}
	return z
}
