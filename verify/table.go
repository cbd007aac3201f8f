package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/mapping"
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
	if err := v.checkShape(ctx, out.Table); err != nil {
		return err
	}
	v.tableItems = aws.ToInt64(out.Table.ItemCount) // how many segments the scan reads
	return nil
}

// checkShape compares the rest of the table with the mapping, as
// migrate --create-table makes it: TTL enabled on the mapping's TTL
// attribute, every index with the mapping's key and projection, and
// the billing mode when the mapping states one. Every difference is named
// in one error: the items may all be right in a table that expires none
// of them, or whose index lacks attributes a Query returns.
func (v *verifier) checkShape(ctx context.Context, td *types.TableDescription) error {
	var diffs []string
	if v.t.TTL != "" {
		ttl, err := v.o.DB.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(v.o.Table)})
		if err != nil {
			return fmt.Errorf("verify: describing the TTL of table %s: %w", v.o.Table, err)
		}
		d := ttl.TimeToLiveDescription
		status, attr := types.TimeToLiveStatusDisabled, ""
		if d != nil {
			status, attr = d.TimeToLiveStatus, aws.ToString(d.AttributeName)
		}
		switch {
		case status != types.TimeToLiveStatusEnabled && status != types.TimeToLiveStatusEnabling:
			diffs = append(diffs, fmt.Sprintf("TTL is %s, the mapping's TTL attribute is %s", strings.ToLower(string(status)), v.t.TTL))
		case attr != v.t.TTL:
			diffs = append(diffs, fmt.Sprintf("TTL is on attribute %s, the mapping's is %s", attr, v.t.TTL))
		}
	}
	have := map[string]indexShape{}
	for _, x := range td.GlobalSecondaryIndexes {
		have[aws.ToString(x.IndexName)] = shapeOf(x.KeySchema, x.Projection)
	}
	for _, x := range td.LocalSecondaryIndexes {
		have[aws.ToString(x.IndexName)] = shapeOf(x.KeySchema, x.Projection)
	}
	for _, ix := range v.t.Indexes {
		h, ok := have[ix.Name]
		pk, sk := mapping.KeyNames(ix.PK), mapping.KeyNames(ix.SK)
		if ix.Local {
			pk = v.t.PK.Name
		}
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("it has no index %s", ix.Name))
		case h.pk != pk || h.sk != sk:
			diffs = append(diffs, fmt.Sprintf("index %s has the key %s, the mapping's is %s", ix.Name, keyNames(h.pk, h.sk), keyNames(pk, sk)))
		case !ix.SameProjection(h.projection):
			diffs = append(diffs, fmt.Sprintf("index %s projects %s, the mapping's projects %s", ix.Name, mapping.ProjectionText(h.projection), ix.ProjectionText()))
		}
	}
	if v.t.Billing.Line != 0 { // stated in the mapping
		mode := types.BillingModeProvisioned // a table never switched reports no summary
		if td.BillingModeSummary != nil && td.BillingModeSummary.BillingMode != "" {
			mode = td.BillingModeSummary.BillingMode
		}
		want := types.BillingModePayPerRequest
		if v.t.Billing.Provisioned {
			want = types.BillingModeProvisioned
		}
		if mode != want {
			diffs = append(diffs, fmt.Sprintf("billing is %s, the mapping's is %s", mode, want))
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("verify: table %s is not as the mapping describes it: %s", v.o.Table, strings.Join(diffs, "; "))
	}
	return nil
}

// indexShape is an index's key attribute names (several for a
// multi-attribute key, "a, b") and projection.
type indexShape struct {
	pk, sk     string
	projection *types.Projection
}

func shapeOf(ks []types.KeySchemaElement, p *types.Projection) indexShape {
	var pk, sk []string
	for _, k := range ks {
		if k.KeyType == types.KeyTypeHash {
			pk = append(pk, aws.ToString(k.AttributeName))
		} else {
			sk = append(sk, aws.ToString(k.AttributeName))
		}
	}
	return indexShape{pk: strings.Join(pk, ", "), sk: strings.Join(sk, ", "), projection: p}
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
