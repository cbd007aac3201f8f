package verify

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// pattern checks one access pattern for sampled parameter values: the items
// the Query returns (every page) must be exactly the items of the rows the
// SQL returns. A pattern that cannot be checked (its SQL fails, the Query
// is refused) fails with a KindPatternError problem and the run goes on; only
// the end of ctx stops it.
func (v *verifier) pattern(ctx context.Context, ap *mapping.AccessPattern, prog *progress.Counter) (PatternCheck, error) {
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
	err := v.guarded(ctx, func() error {
		var err error
		samples, err = v.samples(ctx, ap)
		return err
	})
	if err != nil {
		return fail("", fmt.Errorf("sampling parameter values: %w", err))
	}
	if len(samples) == 0 {
		// Nothing checked is not a pass: skipped, like a check not run.
		pc.OK, pc.NotChecked = true, true
		pc.Note = "skipped: no parameter values to sample (the source has no rows for it)"
		return pc, nil
	}
	prog.SetTotal(int64(len(samples)), true)
	for _, params := range samples {
		pc.Samples++
		prog.Add(1)
		label := paramLabel(ap, params)
		pc.Params = append(pc.Params, label)
		if err := v.patternSample(ctx, ap, &pc, params, label); err != nil {
			return fail(label, err)
		}
	}
	pc.OK = pc.Problems.OK()
	return pc, nil
}

// guarded runs fn with the one snapshot reader, which serves every
// pattern in turn.
func (v *verifier) guarded(ctx context.Context, fn func() error) error {
	v.rmu.Lock()
	defer v.rmu.Unlock()
	return v.r.Guard(ctx, fn)
}

// patternSample checks the pattern for one sample of parameter values
// (named label), adding what differs to pc's problems; an error is one
// that keeps the pattern from being checked.
func (v *verifier) patternSample(ctx context.Context, ap *mapping.AccessPattern, pc *PatternCheck, params []any, label string) error {
	var want expectation
	err := v.guarded(ctx, func() error {
		var err error
		want, err = v.expectedKeys(ctx, ap, params)
		return err
	})
	if err != nil {
		var re *mapping.RowError
		if errors.As(err, &re) && ctx.Err() == nil {
			pc.Problems.Add(Problem{Kind: KindUnrenderable, Pattern: ap.Name, Params: label, Entity: re.Entity, SourceKey: re.Key,
				Message: fmt.Sprintf("%s: %v", label, err)})
			return nil
		}
		return err
	}
	if ap.Limit > 0 && want.rows > ap.Limit {
		pc.Problems.Addf(Problem{Kind: KindPatternError, Pattern: ap.Name, Params: label},
			"%s: the SQL returns %d rows, more than the pattern's limit %d: end it with LIMIT %d", label, want.rows, ap.Limit, ap.Limit)
		return nil
	}
	kc, err := ap.KeyCondition(params)
	if err != nil {
		pc.Problems.Add(Problem{Kind: KindPatternError, Pattern: ap.Name, Params: label, Message: fmt.Sprintf("%s: %v", label, err)})
		return nil
	}
	have, d, err := v.querySettled(ctx, ap, kc, want)
	if err != nil {
		return err
	}
	pc.Items += int64(len(have.items))
	addDiff(pc, ap, label, d)
	return nil
}

// querySettled runs the pattern's Query and compares it with want. Global
// indexes are eventually consistent: right after a migration one may lag
// behind the table. So it queries again until the keys agree or the run's
// settle time is over.
func (v *verifier) querySettled(ctx context.Context, ap *mapping.AccessPattern, kc mapping.KeyCond, want expectation) (queryResult, patternDiff, error) {
	have, err := v.query(ctx, ap, kc)
	d := compare(ap, want, have)
	for wait := 250 * time.Millisecond; err == nil && !d.ok() && ap.Index != nil && !ap.Index.Local && time.Now().Add(wait).Before(v.settleUntil); wait *= 2 {
		select {
		case <-ctx.Done():
			return have, d, ctx.Err()
		case <-time.After(wait):
		}
		have, err = v.query(ctx, ap, kc)
		d = compare(ap, want, have)
	}
	return have, d, err
}

// addDiff adds to pc a problem for each way the Query's items differ from
// the SQL's rows (d), for the sample named label.
func addDiff(pc *PatternCheck, ap *mapping.AccessPattern, label string, d patternDiff) {
	for _, w := range d.missing {
		pc.Problems.Addf(Problem{Kind: KindQueryMissing, Pattern: ap.Name, Params: label, Entity: w.entity, Key: w.key},
			"%s: the Query misses item %s (entity %s) that the SQL returns", label, w.key, w.entity)
	}
	for _, q := range d.extra {
		pc.Problems.Addf(Problem{Kind: KindQueryExtra, Pattern: ap.Name, Params: label, Entity: q.entity, Key: q.key},
			"%s: the Query returns item %s (entity %s) that the SQL does not", label, q.key, q.entity)
	}
	for _, x := range d.different {
		p := Problem{Kind: KindQueryValue, Pattern: ap.Name, Params: label, Entity: x.want.entity, Key: x.want.key, Attribute: x.diff.name}
		if x.diff.want != nil {
			p.Want = av.Text(x.diff.want)
		}
		if x.diff.have != nil {
			p.Got = av.Text(x.diff.have)
		}
		pc.Problems.Addf(p, "%s: the Query returns item %s (entity %s) with other values than the SQL's row renders: %s", label, x.want.key, x.want.entity, x.diff)
	}
	if o := d.order; o != nil {
		pc.Problems.Add(Problem{Kind: KindQueryOrder, Pattern: ap.Name, Params: label, Entity: o.got.entity, Key: o.got.key,
			Want: o.want.key, Got: o.got.key, Message: label + ": " + o.message(ap)})
	}
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

// wantItem is an item the SQL says the Query returns: its table key and
// entity, and for a Query on an index that does not project all
// attributes the ones compared (projectedAttrs) as the row renders them
// (an attribute the row renders none of is absent).
type wantItem struct {
	key, entity string
	attrs       map[string]types.AttributeValue
	names       []string // the attributes compared, sorted
}

// expectation is what the SQL of one sample returns: the items, in the
// SQL's order, and how many rows that took (rows accepted as rejected have
// no item).
type expectation struct {
	items []wantItem
	rows  int
}

// expectedKeys runs each entity's SQL with the parameters bound and renders
// the table key of every returned row, in the order of the rows.
func (v *verifier) expectedKeys(ctx context.Context, ap *mapping.AccessPattern, params []any) (expectation, error) {
	var want expectation
	seen := map[string]bool{}
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
			want.rows++
			row, err := e.RowFor(cols, vals)
			if err != nil {
				return err
			}
			if v.o.Rejects.accepts(e, row) {
				return nil // accepted as rejected: expected to have no item
			}
			w := wantItem{entity: e.Name}
			key, err := e.RenderKey(row)
			if err != nil {
				return err
			}
			w.key = v.t.KeyString(key)
			if names := projectedAttrs(v.t, ap.Index, e, cols); names != nil {
				// The item as the row renders it (without embedded
				// rows), for the attributes the index projects; a row
				// whose item cannot be rendered is the item check's to
				// report.
				if item, err := e.Render(e.WithChildren(row, nil)); err == nil {
					w.names, w.attrs = names, map[string]types.AttributeValue{}
					for _, n := range names {
						if a, ok := item[n]; ok {
							w.attrs[n] = a
						}
					}
				}
			}
			if !seen[w.key] { // two rows with one key are one item (the item check reports them)
				seen[w.key] = true
				want.items = append(want.items, w)
			}
			return nil
		})
		if err != nil {
			var re *mapping.RowError
			if errors.As(err, &re) {
				return expectation{}, err
			}
			return expectation{}, fmt.Errorf("running the SQL of entity %s: %w", e.Name, err)
		}
	}
	return want, nil
}

// projectedAttrs are the attributes a pattern's Query on an index that
// projects some attributes only (KEYS_ONLY, INCLUDE) is checked on, for an
// item of entity e whose row the SQL returns with these columns: the
// projected ones the entity takes from a column the SQL returns as it is
// stored, and the entity attribute when projected, sorted; the table's key (rendered from
// templates) is compared as the items' identity, and attributes from
// other templates and from embedded rows are left to the item check.
// nil when the index projects all attributes (the item check compares
// them all) or for a Query on the table.
func projectedAttrs(t *mapping.Table, ix *mapping.Index, e *mapping.Entity, cols []string) []string {
	if ix == nil || ix.ProjectsAll() {
		return nil
	}
	names := []string{}
	if ix.Projects(t.EntityAttr) {
		names = append(names, t.EntityAttr)
	}
	for _, a := range e.ColumnAttributes() {
		// A column read in another form than the SQL returns it (a type
		// of attributes.types) is left to the item check.
		plain := a.Column.Read == "" && a.Column.Expr == ""
		if plain && ix.Projects(a.Attr) && slices.Contains(cols, a.Column.Name) && !slices.Contains(names, a.Attr) {
			names = append(names, a.Attr)
		}
	}
	slices.Sort(names)
	return names
}

func paramNames(ap *mapping.AccessPattern) []string {
	out := make([]string, len(ap.Params))
	for i, p := range ap.Params {
		out[i] = p.Name
	}
	return out
}

// queried is an item a Query returned: its table key, its entity and the
// values of the queried target's sort key attributes ("score=40, ts=…"),
// and the item as returned (the table's key, the entity attribute, the
// target's sort key and, on an index that projects some attributes only,
// the projected ones).
type queried struct {
	key, entity, sort string
	item              map[string]types.AttributeValue
}

// queryResult is what a Query returned, in order. When the pattern has a
// limit, items are the first Limit items and tail the items right after
// them whose sort key values equal the last one's (ties that the limit cut).
type queryResult struct {
	items, tail []queried
	cut         bool // the limit stopped the Query
}

// query runs the access pattern's Query, every page, or for a pattern with
// a limit the pages until it has that many items (DynamoDB's Limit caps the
// items a page evaluates, not the items a user wants), then the ties after
// them.
func (v *verifier) query(ctx context.Context, ap *mapping.AccessPattern, kc mapping.KeyCond) (queryResult, error) {
	var conds []expression.KeyConditionBuilder
	for i, k := range ap.PK {
		conds = append(conds, expression.Key(k.Name).Equal(expression.Value(kc.PK[i])))
	}
	for i, val := range kc.SKEq {
		conds = append(conds, expression.Key(ap.SK[i].Name).Equal(expression.Value(val)))
	}
	if ap.SKOp != "" {
		k, sk := expression.Key(ap.SK[ap.SKEq].Name), kc.SK
		switch ap.SKOp {
		case "begins_with":
			conds = append(conds, k.BeginsWith(av.KeyText(sk[0])))
		case "between":
			conds = append(conds, k.Between(expression.Value(sk[0]), expression.Value(sk[1])))
		case "<":
			conds = append(conds, k.LessThan(expression.Value(sk[0])))
		case "<=":
			conds = append(conds, k.LessThanEqual(expression.Value(sk[0])))
		case ">":
			conds = append(conds, k.GreaterThan(expression.Value(sk[0])))
		case ">=":
			conds = append(conds, k.GreaterThanEqual(expression.Value(sk[0])))
		}
	}
	cond := conds[0]
	if len(conds) > 1 {
		cond = expression.KeyAnd(conds...)
	}
	names := []string{v.t.EntityAttr, v.t.PK.Name}
	if v.t.SK != nil {
		names = append(names, v.t.SK.Name)
	}
	for _, k := range slices.Concat(ap.PK, ap.SK) { // an index's keys may be plain attributes, which the rows' items are compared on
		names = append(names, k.Name)
	}
	if ix := ap.Index; ix != nil && !ix.ProjectsAll() {
		// Only what the index projects: a global index cannot fetch
		// the rest, a local one would read it from the table.
		names = append(names, ix.Include...)
		names = slices.DeleteFunc(names, func(n string) bool { return !ix.Projects(n) })
	}
	slices.Sort(names)
	names = slices.Compact(names)
	proj := expression.NamesList(expression.Name(names[0]))
	for _, n := range names[1:] {
		proj = proj.AddNames(expression.Name(n))
	}
	expr, err := expression.NewBuilder().WithKeyCondition(cond).WithProjection(proj).Build()
	if err != nil {
		return queryResult{}, fmt.Errorf("building the key condition: %w", err)
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(v.o.Table),
		KeyConditionExpression:    expr.KeyCondition(),
		ProjectionExpression:      expr.Projection(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ScanIndexForward:          aws.Bool(ap.Order != "desc"),
	}
	if ap.Index != nil {
		in.IndexName = aws.String(ap.Index.Name)
	} else {
		in.ConsistentRead = aws.Bool(true)
	}
	var res queryResult
	for {
		switch {
		case ap.Limit == 0:
		case len(res.items) < ap.Limit:
			in.Limit = aws.Int32(int32(ap.Limit - len(res.items)))
		default:
			in.Limit = aws.Int32(tiePage)
		}
		page, err := v.o.DB.Query(ctx, in)
		if err != nil {
			return queryResult{}, fmt.Errorf("querying %s: %w", ap.Target(), err)
		}
		for _, it := range page.Items {
			q := v.queried(ap, it)
			switch {
			case ap.Limit == 0 || len(res.items) < ap.Limit:
				res.items = append(res.items, q)
			case q.sort == res.items[len(res.items)-1].sort:
				res.tail = append(res.tail, q)
			default:
				return res, nil // past the ties of the last item
			}
		}
		if ap.Limit > 0 && len(res.items) == ap.Limit {
			res.cut = true
		}
		if len(page.LastEvaluatedKey) == 0 {
			return res, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// tiePage is the page size of the Query that reads the ties after a
// pattern's first Limit items.
const tiePage = 100

func (v *verifier) queried(ap *mapping.AccessPattern, it map[string]types.AttributeValue) queried {
	q := queried{key: v.t.KeyString(it), entity: "?", item: it}
	if s, ok := it[v.t.EntityAttr].(*types.AttributeValueMemberS); ok {
		q.entity = s.Value
	}
	parts := make([]string, len(ap.SK))
	for i, k := range ap.SK {
		parts[i] = k.Name + "=" + av.KeyText(it[k.Name])
	}
	q.sort = strings.Join(parts, ", ")
	return q
}
