package av

import (
	"crypto/sha256"
	"fmt"
	"math/big"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// KeyDigest digests an item's key: its attributes pk and, unless sk is
// "", sk. Numbers are taken by value: DynamoDB stores them normalised, so
// the text read back may differ from the text written (1.50 and 1.5).
func KeyDigest(item map[string]types.AttributeValue, pk, sk string) [16]byte {
	h := sha256.New()
	part := func(v types.AttributeValue) {
		switch x := v.(type) {
		case *types.AttributeValueMemberS:
			fmt.Fprintf(h, "S%d:%s", len(x.Value), x.Value)
		case *types.AttributeValueMemberB:
			fmt.Fprintf(h, "B%d:%s", len(x.Value), x.Value)
		case *types.AttributeValueMemberN:
			if r, ok := new(big.Rat).SetString(x.Value); ok {
				s := r.RatString()
				fmt.Fprintf(h, "N%d:%s", len(s), s)
			} else {
				fmt.Fprintf(h, "N?%d:%s", len(x.Value), x.Value)
			}
		default:
			fmt.Fprintf(h, "?%T", v)
		}
	}
	part(item[pk])
	if sk != "" {
		part(item[sk])
	}
	return [16]byte(h.Sum(nil))
}
