package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/dynamo"
)

// listedTables is how many table names a missing-table error lists.
const listedTables = 20

// checkTable makes sure the table exists with the mapping's key before any
// check runs. A missing table is an error that lists the tables the
// endpoint has: a wrong --table, region or endpoint shows at once.
func (v *verifier) checkTable(ctx context.Context) error {
	out, err := v.o.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(v.o.Table)})
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
		return fmt.Errorf("verify: table %s does not exist at %s; %s", v.o.Table, v.where(), v.tables(ctx))
	}
	if err != nil {
		return fmt.Errorf("verify: describing table %s: %w", v.o.Table, err)
	}
	var hash, rng string
	for _, k := range out.Table.KeySchema {
		switch k.KeyType {
		case types.KeyTypeHash:
			hash = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			rng = aws.ToString(k.AttributeName)
		}
	}
	wantRange := ""
	if v.t.SK != nil {
		wantRange = v.t.SK.Name
	}
	if hash != v.t.PK.Name || rng != wantRange {
		return fmt.Errorf("verify: table %s has the key %s, the mapping's table key is %s", v.o.Table, keyNames(hash, rng), keyNames(v.t.PK.Name, wantRange))
	}
	v.tableItems = aws.ToInt64(out.Table.ItemCount) // how many segments the scan reads
	return nil
}

func keyNames(pk, sk string) string {
	if sk == "" {
		return "(" + pk + ")"
	}
	return "(" + pk + ", " + sk + ")"
}

// where names the endpoint, or the region when the SDK picks the endpoint.
func (v *verifier) where() string { return dynamo.Where(v.o.DB) }

// tables lists the first tables of the endpoint, for the missing-table error.
func (v *verifier) tables(ctx context.Context) string {
	out, err := v.o.DB.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(listedTables)})
	if err != nil {
		return fmt.Sprintf("listing its tables failed too: %v", err)
	}
	if len(out.TableNames) == 0 {
		return "it has no tables"
	}
	s := "its tables: " + strings.Join(out.TableNames, ", ")
	if out.LastEvaluatedTableName != nil {
		s += ", …"
	}
	return s
}
