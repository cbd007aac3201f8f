package mapping

import (
	"bytes"
	"math/big"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// LockKeyText is the value of every key attribute of the lock item that
// migrate keeps in a table while it writes into it: PK = "#remodel#lock"
// (and SK the same, when the table has a sort key). A key attribute of type
// B holds these bytes; one of type N holds LockKeyNumber, the lowest number
// DynamoDB stores. No source row may render this key (migrate rejects it),
// and the checks that count a table's items (migrate's, verify's) leave the
// lock item out.
const LockKeyText = "#remodel#lock"

// LockKeyNumber is the lock item's key value for a key attribute of type N.
const LockKeyNumber = "-9.9999999999999999999999999999999999999E+125"

func lockValue(typ string) types.AttributeValue {
	switch typ {
	case "N":
		return &types.AttributeValueMemberN{Value: LockKeyNumber}
	case "B":
		return &types.AttributeValueMemberB{Value: []byte(LockKeyText)}
	}
	return &types.AttributeValueMemberS{Value: LockKeyText}
}

// LockKey returns the key of the table's lock item.
func (t *Table) LockKey() Item {
	k := Item{t.PK.Name: lockValue(t.PK.Type)}
	if t.SK != nil {
		k[t.SK.Name] = lockValue(t.SK.Type)
	}
	return k
}

// IsLock says whether the item (or key) is the table's lock item. Numbers
// are compared by value, as DynamoDB stores them normalised.
func (t *Table) IsLock(item Item) bool {
	if !isLockValue(item[t.PK.Name], t.PK.Type) {
		return false
	}
	return t.SK == nil || isLockValue(item[t.SK.Name], t.SK.Type)
}

// isLockValue says whether av is the lock's value for a key of type typ.
func isLockValue(av types.AttributeValue, typ string) bool {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return typ != "N" && typ != "B" && x.Value == LockKeyText
	case *types.AttributeValueMemberB:
		return typ == "B" && bytes.Equal(x.Value, []byte(LockKeyText))
	case *types.AttributeValueMemberN:
		if typ != "N" {
			return false
		}
		if len(x.Value) == 0 || x.Value[0] != '-' { // quick: the lock's number is negative
			return false
		}
		got, ok1 := new(big.Rat).SetString(x.Value)
		want, ok2 := new(big.Rat).SetString(LockKeyNumber)
		return ok1 && ok2 && got.Cmp(want) == 0
	}
	return false
}
