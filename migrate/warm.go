package migrate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// WarmThroughput is the warm throughput --create-table asks for (CreateTable's
// WarmThroughput): the write (and read) units a second the new table can
// take at once, instead of growing to them (an on-demand table starts at
// 4 000 writes a second). 0 leaves a figure to DynamoDB. DynamoDB Local
// takes the field and enforces nothing.
type WarmThroughput struct {
	Write, Read int64
}

// ParseWarmThroughput reads --warm-throughput: WRITES or WRITES,READS,
// units a second.
func ParseWarmThroughput(s string) (*WarmThroughput, error) {
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return nil, fmt.Errorf("--warm-throughput %q: want WRITES or WRITES,READS (units a second)", s)
	}
	var out WarmThroughput
	for i, p := range parts {
		n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--warm-throughput %q: %q is not a positive number of units a second (want WRITES or WRITES,READS)", s, p)
		}
		if i == 0 {
			out.Write = n
		} else {
			out.Read = n
		}
	}
	return &out, nil
}

// apply sets the table's warm throughput in a CreateTable request.
func (wt *WarmThroughput) apply(in *dynamodb.CreateTableInput) {
	if wt == nil || (wt.Write == 0 && wt.Read == 0) {
		return
	}
	in.WarmThroughput = &types.WarmThroughput{}
	if wt.Write > 0 {
		in.WarmThroughput.WriteUnitsPerSecond = aws.Int64(wt.Write)
	}
	if wt.Read > 0 {
		in.WarmThroughput.ReadUnitsPerSecond = aws.Int64(wt.Read)
	}
}
