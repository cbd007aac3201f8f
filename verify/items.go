package verify

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/mapping"
)

// ItemCheck compares the rows of an entity (all, or a deterministic sample)
// with the stored items two ways: the item each row renders, attribute by
// attribute, and every column attribute against the source engine's own
// JSON rendering of the row (the oracle).
type ItemCheck struct {
	Entity string `json:"entity"`
	// Rows is how many source rows were read; Sampled how many of them the
	// sample chose (all of them at sample rate 1); Compared how many items
	// were looked up in the table.
	Rows       int64    `json:"source_rows"`
	SampleRate float64  `json:"sample_rate"`
	Sampled    int64    `json:"sampled_rows"`
	Compared   int64    `json:"compared"`
	Missing    int64    `json:"missing"`
	Different  int64    `json:"different"`
	Rejected   int64    `json:"unrenderable_rows"`
	Problems   Problems `json:"problems"`
	OK         bool     `json:"ok"`
}

// getBatch is BatchGetItem's limit on keys per request.
const getBatch = 100

// srcRow is one sampled source row on its way to a comparing worker.
type srcRow struct {
	row []any             // canonical values, in the entity's column order
	js  any               // the engine's JSON rendering of the row (text)
	ejs []any             // the engine's JSON arrays of the row's child rows, per embed
	key string            // the row's source key
	dup *mapping.RowError // set when the row's key names several rows
}

// chunkResult is what comparing one chunk of rows found.
type chunkResult struct {
	compared, missing, different, rejected int64
	problems                               []Problem
}

// items streams the entity's rows from one query (the columns and the
// engine's JSON rendering of each row), keeps the sampled ones, and compares
// them in chunks of 100 keys: a fixed pool of workers each renders a chunk,
// reads its items with BatchGetItem and compares. The problems kept are the
// first in Problem order, whatever the workers' timing.
func (v *verifier) items(ctx context.Context, e *mapping.Entity, rs readerSet, prog *progress.Counter) (ItemCheck, error) {
	rate := v.o.SampleRate
	if rate <= 0 || rate > 1 {
		rate = 1
	}
	ic := ItemCheck{Entity: e.Name, SampleRate: rate, Problems: v.problems()}
	workers := v.o.Workers
	if workers < 1 {
		workers = 8
	}
	q := newItemQuery(v.o.Source.Engine(), e)
	ncols := len(e.Columns)

	g, gctx := errgroup.WithContext(ctx)
	chunks := make(chan []srcRow, workers)
	var mu sync.Mutex

	g.Go(func() error {
		defer close(chunks)
		cur := make([]srcRow, 0, getBatch)
		send := func() error {
			if len(cur) == 0 {
				return nil
			}
			select {
			case chunks <- cur:
			case <-gctx.Done():
				return gctx.Err()
			}
			cur = make([]srcRow, 0, getBatch)
			return nil
		}
		// Stream holds back the rows of a key that the database does not
		// enforce (a view's, a query's) until the key changes, and names
		// every row of a key that is not unique.
		scan := func(each func([]any) error) error {
			return rs.r.Query(gctx, q.sql, nil, q.kindOf, func(names []string, vals []any) error {
				if len(vals) != ncols+1+len(q.embeds) || names[ncols] != q.jsonCol {
					return fmt.Errorf("the item query returned %d columns, want %d", len(vals), ncols+1+len(q.embeds))
				}
				return each(vals)
			})
		}
		err := e.StreamEmbedded(gctx, scan, func(ctx context.Context, i int, each func([]any) error) error {
			m := e.Embeds()[i]
			return rs.kr[i].ScanTable(ctx, m.Scan(0), m.Where, 0, each)
		}, func(vals []any, kids [][][]any, dup *mapping.RowError) error {
			ic.Rows++
			prog.Add(1)
			row := e.WithChildren(vals[:ncols], kids)
			if v.acceptedReject(e, row) {
				return nil // migrate rejected it, and the rejects file says so
			}
			key := e.SourceKey(row)
			if rate < 1 && !sampled(key, rate) {
				return nil
			}
			ic.Sampled++
			cur = append(cur, srcRow{row: slices.Clone(row), js: vals[ncols], ejs: slices.Clone(vals[ncols+1:]), key: key, dup: dup})
			if len(cur) == getBatch {
				return send()
			}
			return nil
		})
		if err != nil {
			return err
		}
		return send()
	})
	for range workers {
		g.Go(func() error {
			for rows := range chunks {
				res, err := v.compareChunk(gctx, e, q, rows)
				if err != nil {
					return err
				}
				mu.Lock()
				ic.Compared += res.compared
				ic.Missing += res.missing
				ic.Different += res.different
				ic.Rejected += res.rejected
				for _, p := range res.problems {
					ic.Problems.Add(p)
				}
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return ic, fmt.Errorf("verify: comparing items of entity %s: %w", e.Name, err)
	}
	ic.OK = ic.Missing == 0 && ic.Different == 0 && ic.Rejected == 0
	return ic, nil
}

// sampled reports whether the row with this source key is in the sample:
// the first 8 bytes of the key's SHA-256, as a fraction of 2^64, are below
// rate. The same rows are chosen on every run.
func sampled(key string, rate float64) bool {
	sum := sha256.Sum256([]byte(key))
	return float64(binary.BigEndian.Uint64(sum[:8])) < rate*math.MaxUint64
}

// expected is one row's rendered item.
type expected struct {
	item mapping.Item
	key  string // table key text
	src  *srcRow
}

// compareChunk renders the chunk's rows, reads their items and compares.
func (v *verifier) compareChunk(ctx context.Context, e *mapping.Entity, q *itemQuery, rows []srcRow) (chunkResult, error) {
	var res chunkResult
	add := func(p Problem, format string, args ...any) {
		p.Message = fmt.Sprintf(format, args...)
		res.problems = append(res.problems, p)
	}
	exps := make([]expected, 0, len(rows))
	byKey := make(map[string]int, len(rows))
	for i := range rows {
		r := &rows[i]
		var item mapping.Item
		var err error
		if r.dup != nil {
			err = r.dup // the key names several rows: none becomes an item
		} else {
			item, err = e.Render(r.row)
		}
		if err != nil {
			var re *mapping.RowError
			if !errors.As(err, &re) {
				return res, err
			}
			res.rejected++
			add(Problem{Kind: KindUnrenderable, Entity: e.Name, SourceKey: re.Key},
				"row %s of entity %s cannot become an item: %s", re.Key, e.Name, re.Reason)
			continue
		}
		k := v.t.KeyString(item)
		if j, dup := byKey[k]; dup {
			res.different++
			add(Problem{Kind: KindDuplicateKey, Entity: e.Name, Key: k, SourceKey: r.key},
				"rows %s and %s of entity %s render the same key %s", exps[j].src.key, r.key, e.Name, k)
			continue
		}
		byKey[k] = len(exps)
		exps = append(exps, expected{item: item, key: k, src: r})
	}
	if len(exps) == 0 {
		return res, nil
	}
	keys := make([]mapping.Item, len(exps))
	for i, x := range exps {
		keys[i] = v.t.KeyOf(x.item)
	}
	got, err := v.batchGet(ctx, keys)
	if err != nil {
		return res, err
	}
	for _, x := range exps {
		res.compared++
		have, ok := got[x.key]
		if !ok {
			res.missing++
			add(Problem{Kind: KindMissing, Entity: e.Name, Key: x.key, SourceKey: x.src.key},
				"missing item %s (entity %s, row %s)", x.key, e.Name, x.src.key)
			continue
		}
		v.claim(x.key)
		diffs := diffAttrs(x.item, have)
		flagged := make(map[string]bool, len(diffs))
		for _, d := range diffs {
			flagged[d.name] = true
			p := Problem{Kind: KindDifferent, Entity: e.Name, Key: x.key, SourceKey: x.src.key, Attribute: d.name}
			if d.want != nil {
				p.Want = av.Text(d.want)
			}
			if d.have != nil {
				p.Got = av.Text(d.have)
			}
			add(p, "item %s (entity %s, row %s) differs: %s", x.key, e.Name, x.src.key, d)
		}
		var findings []finding
		js, err := parseRowJSON(x.src.js)
		if err != nil {
			findings = []finding{{attr: "*", note: err.Error()}}
		} else {
			findings = q.oracle.check(js, x.src.row, have, flagged)
		}
		findings = append(findings, q.oracle.checkEmbeds(q.embeds, x.src.ejs, x.src.row, have)...)
		for _, f := range findings {
			p := Problem{Kind: KindValueMismatch, Entity: e.Name, Key: x.key, SourceKey: x.src.key, Attribute: f.attr, Want: f.want, Got: f.got}
			if f.note != "" {
				add(p, "item %s (entity %s, row %s): attribute %s (%s) cannot be checked against the source's own JSON rendering of column %s: %s", x.key, e.Name, x.src.key, f.attr, f.got, f.column, f.note)
			} else {
				add(p, "item %s (entity %s, row %s): attribute %s is %s, but the source's own JSON rendering of column %s is %s", x.key, e.Name, x.src.key, f.attr, f.got, f.column, f.want)
			}
		}
		if len(diffs) > 0 || len(findings) > 0 {
			res.different++
		}
	}
	return res, nil
}

var (
	retryables = retry.IsErrorRetryables(retry.DefaultRetryables)
	throttles  = retry.IsErrorThrottles(retry.DefaultThrottles)
)

// batchGet reads the items with these keys (consistent reads) and returns
// them by key text. Keys DynamoDB leaves unprocessed, throttling and 5xx
// answers are retried with the backoff policy until its deadline, and at
// least once.
func (v *verifier) batchGet(ctx context.Context, keys []mapping.Item) (map[string]mapping.Item, error) {
	pol := v.o.Backoff
	if pol == (backoff.Policy{}) {
		pol = backoff.Default
	}
	got := make(map[string]mapping.Item, len(keys))
	err := pol.Do(ctx, func(int) (bool, error) {
		out, err := v.o.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
			RequestItems: map[string]types.KeysAndAttributes{v.o.Table: {Keys: keys, ConsistentRead: aws.Bool(true)}},
		}, dynamo.NoRetry) // retries are pol's
		switch {
		case err == nil:
			for _, it := range out.Responses[v.o.Table] {
				got[v.t.KeyString(it)] = it
			}
			keys = out.UnprocessedKeys[v.o.Table].Keys
			return len(keys) > 0, nil
		case ctx.Err() != nil:
			return false, ctx.Err()
		case retryables.IsErrorRetryable(err) != aws.TrueTernary && throttles.IsErrorThrottle(err) != aws.TrueTernary:
			return false, fmt.Errorf("reading %d items from %s: %w", len(keys), v.o.Table, err)
		}
		return true, err
	})
	if g := (*backoff.GaveUp)(nil); errors.As(err, &g) { // as migrate's writer: at least one retry
		reason := "left unprocessed"
		if g.Last != nil {
			reason = g.Last.Error()
		}
		return nil, fmt.Errorf("%d items still not read after retrying for %s (%s): %s", len(keys), pol.Deadline, keyList(v.t, keys), reason)
	}
	if err != nil {
		return nil, err
	}
	return got, nil
}

// keyList names up to three keys, and how many more there are.
func keyList(t *mapping.Table, keys []mapping.Item) string {
	names := make([]string, 0, 3)
	for _, k := range keys {
		if len(names) == 3 {
			break
		}
		names = append(names, t.KeyString(k))
	}
	sort.Strings(names)
	s := strings.Join(names, "; ")
	if len(keys) > 3 {
		s += fmt.Sprintf("; and %d more", len(keys)-3)
	}
	return s
}
