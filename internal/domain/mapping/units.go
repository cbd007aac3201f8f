package mapping

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// WriteUnits is what DynamoDB charges to put a new item of size bytes
// (ItemSize) into a table or an index: one write unit per started KB.
func WriteUnits(size int) int { return max(1, (size+1023)/1024) }

// Holds says whether the index holds the item: DynamoDB puts an item in a
// secondary index when it has every one of the index's key attributes,
// the partition key's of a key type (S, N or B; an item whose index key is
// of another type is refused by DynamoDB).
func (ix *Index) Holds(item Item) bool {
	for _, k := range ix.SK {
		if item[k.Name] == nil {
			return false
		}
	}
	for _, k := range ix.PK {
		switch item[k.Name].(type) {
		case *types.AttributeValueMemberS, *types.AttributeValueMemberN, *types.AttributeValueMemberB:
		default:
			return false
		}
	}
	return true
}

// IndexesHolding counts the secondary indexes that hold the item.
func (t *Table) IndexesHolding(item Item) int {
	n := 0
	for _, ix := range t.Indexes {
		if ix.Holds(item) {
			n++
		}
	}
	return n
}
