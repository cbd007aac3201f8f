package mapping

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"

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

// isShardLockNumber says whether v is the number of a shard's lock item:
// -(shardLockNumber's digits, then i and n, six digits each) E+125, with
// 1 <= i <= n; or of the split plan item (i and n 0: shardLockCeiling).
func isShardLockNumber(v *big.Rat) bool {
	base, _ := new(big.Rat).SetString(shardLockCeiling)
	d := new(big.Rat).Sub(base, v) // (i*10^6 + n) * 10^(125-37)
	unit := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(125-37), nil))
	d.Quo(d, unit)
	if !d.IsInt() || d.Sign() < 0 {
		return false
	}
	if d.Sign() == 0 { // shardLockCeiling itself: the split plan's (SplitPlanKey)
		return true
	}
	x := d.Num()
	if x.Cmp(big.NewInt(1_000_000_000_000)) >= 0 {
		return false
	}
	i, n := x.Int64()/1_000_000, x.Int64()%1_000_000
	return i >= 1 && i <= n
}

// shardLockPrefix starts the key value of a shard's lock item (migrate
// --shard i/n): LockKeyText + "#shard#i/n". shardLockNumber starts its
// number for a key attribute of type N: followed by i and n, six digits
// each, and "E+125" (38 significant digits, all between LockKeyNumber and
// shardLockCeiling).
const (
	shardLockPrefix  = LockKeyText + "#shard#"
	shardLockNumber  = "-9.9999999999999999999999999"
	shardLockCeiling = shardLockNumber + "E+125"
)

func shardLockValue(typ string, i, n int) types.AttributeValue {
	switch typ {
	case "N":
		return &types.AttributeValueMemberN{Value: fmt.Sprintf("%s%06d%06dE+125", shardLockNumber, i, n)}
	case "B":
		return &types.AttributeValueMemberB{Value: fmt.Appendf(nil, "%s%d/%d", shardLockPrefix, i, n)}
	}
	return &types.AttributeValueMemberS{Value: fmt.Sprintf("%s%d/%d", shardLockPrefix, i, n)}
}

// ShardLockKey returns the key of the lock item of shard i of n (migrate
// --shard i/n, 1 <= i <= n < 1000000): each shard of a job has its own, so
// that the shards write at once while a second run of one shard is
// refused. IsLock knows these keys too.
func (t *Table) ShardLockKey(i, n int) Item {
	k := Item{t.PK.Name: shardLockValue(t.PK.Type, i, n)}
	if t.SK != nil {
		k[t.SK.Name] = shardLockValue(t.SK.Type, i, n)
	}
	return k
}

// SplitPlanText is the value of every key attribute of the split plan
// item of a sharded job (migrate --shard i/n): the key ranges every shard
// of the job reads, recorded by the first shard. A key attribute of type B
// holds these bytes; one of type N holds shardLockCeiling (i and n 0). It
// is left out wherever lock items are (IsLock).
const SplitPlanText = LockKeyText + "#plan"

func splitPlanValue(typ string) types.AttributeValue {
	switch typ {
	case "N":
		return &types.AttributeValueMemberN{Value: shardLockCeiling}
	case "B":
		return &types.AttributeValueMemberB{Value: []byte(SplitPlanText)}
	}
	return &types.AttributeValueMemberS{Value: SplitPlanText}
}

// SplitPlanKey returns the key of the split plan item of a sharded job:
// one per table, whatever the n, so that shards of different n meet there.
func (t *Table) SplitPlanKey() Item {
	k := Item{t.PK.Name: splitPlanValue(t.PK.Type)}
	if t.SK != nil {
		k[t.SK.Name] = splitPlanValue(t.SK.Type)
	}
	return k
}

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

// IsLock says whether the item (or key) is the table's lock item, the
// lock item of a shard (ShardLockKey) or the split plan item of a sharded
// job (SplitPlanKey): none is an item of the data. Numbers are compared by value, as
// DynamoDB stores them normalised.
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
		return typ != "N" && typ != "B" && (x.Value == LockKeyText || x.Value == SplitPlanText || strings.HasPrefix(x.Value, shardLockPrefix))
	case *types.AttributeValueMemberB:
		return typ == "B" && (bytes.Equal(x.Value, []byte(LockKeyText)) || bytes.Equal(x.Value, []byte(SplitPlanText)) || bytes.HasPrefix(x.Value, []byte(shardLockPrefix)))
	case *types.AttributeValueMemberN:
		if typ != "N" {
			return false
		}
		if len(x.Value) == 0 || x.Value[0] != '-' { // quick: the lock's number is negative
			return false
		}
		got, ok1 := new(big.Rat).SetString(x.Value)
		want, ok2 := new(big.Rat).SetString(LockKeyNumber)
		return ok1 && ok2 && (got.Cmp(want) == 0 || isShardLockNumber(got))
	}
	return false
}
