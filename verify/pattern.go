package verify

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// pattern checks one access pattern for sampled parameter values: the items
// the Query returns (every page) must be exactly the items of the rows the
// SQL returns. A pattern that cannot be checked (its SQL fails, the Query
// is refused) fails with a KindPatternError problem and the run goes on; only
// the end of ctx stops it.
func (v *verifier) pattern(ctx context.Context, ap *mapping.AccessPattern) (PatternCheck, error) {
	pc := PatternCheck{Name: ap.Name, Target: ap.Target(), Problems: v.problems()}
	fail := func(label string, err error) (PatternCheck, error) {
		if ctx.Err() != nil {
			return pc, ctx.Err()
		}
		msg := err.Error()
		if label != "" {
			msg = label + ": " + msg
		}
		pc.Problems.Add(Problem{Kind: KindPatternError, Pattern: ap.Name, Params: label, Message: msg})
		pc.OK = false
		return pc, nil
	}
	var samples [][]any
	err := v.r.Guard(ctx, func() error {
		var err error
		samples, err = v.samples(ctx, ap)
		return err
	})
	if err != nil {
		return fail("", fmt.Errorf("sampling parameter values: %w", err))
	}
	if len(samples) == 0 {
		pc.OK = true
		pc.Note = "no parameter values to sample: the source has no rows for it"
		return pc, nil
	}
	for _, params := range samples {
		pc.Samples++
		label := paramLabel(ap, params)
		pc.Params = append(pc.Params, label)
		var want map[string]string
		err := v.r.Guard(ctx, func() error {
			var err error
			want, err = v.expectedKeys(ctx, ap, params)
			return err
		})
		if err != nil {
			var re *mapping.RowError
			if errors.As(err, &re) && ctx.Err() == nil {
				pc.Problems.Add(Problem{Kind: KindUnrenderable, Pattern: ap.Name, Params: label, Entity: re.Entity, SourceKey: re.Key,
					Message: fmt.Sprintf("%s: %v", label, err)})
				continue
			}
			return fail(label, err)
		}
		pk, sk, err := ap.KeyCondition(params)
		if err != nil {
			pc.Problems.Add(Problem{Kind: KindPatternError, Pattern: ap.Name, Params: label, Message: fmt.Sprintf("%s: %v", label, err)})
			continue
		}
		have, err := v.query(ctx, ap, pk, sk)
		// Global indexes are eventually consistent: right after a migration
		// one may lag behind the table. Query again until the keys agree or
		// the run's settle time is over.
		for wait := 250 * time.Millisecond; err == nil && !sameKeys(want, have) && ap.Index != nil && !ap.Index.Local && time.Now().Add(wait).Before(v.settleUntil); wait *= 2 {
			select {
			case <-ctx.Done():
				return pc, ctx.Err()
			case <-time.After(wait):
			}
			have, err = v.query(ctx, ap, pk, sk)
		}
		if err != nil {
			return fail(label, err)
		}
		pc.Items += int64(len(have))
		for _, k := range sortedKeys(want) {
			if _, ok := have[k]; !ok {
				pc.Problems.Addf(Problem{Kind: KindQueryMissing, Pattern: ap.Name, Params: label, Entity: want[k], Key: k},
					"%s: the Query misses item %s (entity %s) that the SQL returns", label, k, want[k])
			}
		}
		for _, k := range sortedKeys(have) {
			if _, ok := want[k]; !ok {
				pc.Problems.Addf(Problem{Kind: KindQueryExtra, Pattern: ap.Name, Params: label, Entity: have[k], Key: k},
					"%s: the Query returns item %s (entity %s) that the SQL does not", label, k, have[k])
			}
		}
	}
	pc.OK = pc.Problems.OK()
	return pc, nil
}

func sameKeys(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func paramLabel(ap *mapping.AccessPattern, params []any) string {
	parts := make([]string, len(ap.Params))
	for i, p := range ap.Params {
		parts[i] = fmt.Sprintf("%s=%v", p.Name, params[i])
		if t, ok := params[i].(interface{ Format(string) string }); ok {
			parts[i] = p.Name + "=" + t.Format("2006-01-02T15:04:05.999999Z07:00")
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// samples returns parameter value sets in ap.Params order.
func (v *verifier) samples(ctx context.Context, ap *mapping.AccessPattern) ([][]any, error) {
	if len(ap.Params) == 0 {
		return [][]any{{}}, nil
	}
	if ap.ParamsSQL == nil {
		names := make([]string, len(ap.Params))
		for i, p := range ap.Params {
			names[i] = p.Name
		}
		return v.r.Sample(ctx, ap.SampleFrom.Table, names, ap.SampleFrom.Where, v.o.Samples, patternSeed(v.o.Seed, ap.Name))
	}
	text, _ := ap.ParamsSQL.Text(v.r.Placeholder)
	var out [][]any
	err := v.r.Query(ctx, text, nil, paramKinds(ap), func(names []string, row []any) error {
		if len(out) == v.o.Samples {
			return errEnough // stop reading the rest of the result
		}
		params := make([]any, len(ap.Params))
		for i, p := range ap.Params {
			j := indexOf(names, p.Name)
			if j < 0 {
				return fmt.Errorf("the params SQL returns no column %s", p.Name)
			}
			params[i] = row[j]
		}
		out = append(out, params)
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	return out, err
}

var errEnough = errors.New("enough samples")

// patternSeed derives an access pattern's sampling seed from the run's seed
// and the pattern's name: patterns that sample the same columns still check
// different values, and the run's seed alone repeats them all.
func patternSeed(seed int64, name string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", seed, name)
	return int64(h.Sum64() >> 1)
}

func paramKinds(ap *mapping.AccessPattern) func(string) *introspect.Column {
	return func(name string) *introspect.Column {
		for _, p := range ap.Params {
			if p.Name == name {
				return p
			}
		}
		return nil
	}
}

func indexOf(names []string, n string) int {
	for i, x := range names {
		if x == n {
			return i
		}
	}
	return -1
}

// expectedKeys runs each entity's SQL with the parameters bound and renders
// the table key of every returned row: key string → entity.
func (v *verifier) expectedKeys(ctx context.Context, ap *mapping.AccessPattern, params []any) (map[string]string, error) {
	want := map[string]string{}
	all := paramNames(ap)
	for _, q := range ap.Queries {
		text, names := q.SQL.Text(v.r.Placeholder)
		args := make([]any, len(names))
		for i, n := range names {
			args[i] = params[indexOf(all, n)]
		}
		e := q.Entity
		kindOf := func(name string) *introspect.Column { return e.Table.Column(name) }
		err := v.r.Query(ctx, text, args, kindOf, func(cols []string, vals []any) error {
			row, err := e.RowFor(cols, vals)
			if err != nil {
				return err
			}
			if v.o.Rejects.accepts(e, row) {
				return nil // accepted as rejected: expected to have no item
			}
			key, err := e.RenderKey(row)
			if err != nil {
				return err
			}
			want[v.t.KeyString(key)] = e.Name
			return nil
		})
		if err != nil {
			var re *mapping.RowError
			if errors.As(err, &re) {
				return nil, err
			}
			return nil, fmt.Errorf("running the SQL of entity %s: %w", e.Name, err)
		}
	}
	return want, nil
}

func paramNames(ap *mapping.AccessPattern) []string {
	out := make([]string, len(ap.Params))
	for i, p := range ap.Params {
		out[i] = p.Name
	}
	return out
}

// query runs the access pattern's Query, every page, and returns the table
// keys of the items: key string → entity.
func (v *verifier) query(ctx context.Context, ap *mapping.AccessPattern, pk types.AttributeValue, sk []types.AttributeValue) (map[string]string, error) {
	cond := expression.Key(ap.PK.Name).Equal(expression.Value(pk))
	if ap.SKOp != "" {
		k := expression.Key(ap.SK.Name)
		var c expression.KeyConditionBuilder
		switch ap.SKOp {
		case "=":
			c = k.Equal(expression.Value(sk[0]))
		case "begins_with":
			c = k.BeginsWith(mapping.AVText(sk[0]))
		case "between":
			c = k.Between(expression.Value(sk[0]), expression.Value(sk[1]))
		case "<":
			c = k.LessThan(expression.Value(sk[0]))
		case "<=":
			c = k.LessThanEqual(expression.Value(sk[0]))
		case ">":
			c = k.GreaterThan(expression.Value(sk[0]))
		case ">=":
			c = k.GreaterThanEqual(expression.Value(sk[0]))
		}
		cond = cond.And(c)
	}
	proj := expression.NamesList(expression.Name(v.t.EntityAttr), expression.Name(v.t.PK.Name))
	if v.t.SK != nil {
		proj = proj.AddNames(expression.Name(v.t.SK.Name))
	}
	expr, err := expression.NewBuilder().WithKeyCondition(cond).WithProjection(proj).Build()
	if err != nil {
		return nil, fmt.Errorf("building the key condition: %w", err)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(v.o.Table),
		KeyConditionExpression:    expr.KeyCondition(),
		ProjectionExpression:      expr.Projection(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	}
	if ap.Index != nil {
		in.IndexName = aws.String(ap.Index.Name)
	} else {
		in.ConsistentRead = aws.Bool(true)
	}
	have := map[string]string{}
	p := dynamodb.NewQueryPaginator(v.o.DB, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("querying %s: %w", ap.Target(), err)
		}
		for _, it := range page.Items {
			ent := "?"
			if s, ok := it[v.t.EntityAttr].(*types.AttributeValueMemberS); ok {
				ent = s.Value
			}
			have[v.t.KeyString(it)] = ent
		}
	}
	return have, nil
}
