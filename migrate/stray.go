package migrate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math/big"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/mapping"
)

// scanSegments is how many parallel Scan segments read a table to count
// its items or find its stray ones.
const scanSegments = 4

// maxStrayKeys is how many stray items the report names.
const maxStrayKeys = 20

// keySet holds a 16-byte digest of every key this run wrote, to tell the
// items of a table that held items before which ones the run did not write.
// It costs about 80 bytes an item (the digest and the map's overhead) and is
// kept only for a run with --allow-non-empty into a table that held items.
type keySet struct {
	mu sync.Mutex
	m  map[[16]byte]struct{}
}

func newKeySet() *keySet { return &keySet{m: map[[16]byte]struct{}{}} }

func (s *keySet) add(t *mapping.Table, item mapping.Item) {
	d := keyDigest(t, item)
	s.mu.Lock()
	s.m[d] = struct{}{}
	s.mu.Unlock()
}

func (s *keySet) has(t *mapping.Table, item mapping.Item) bool {
	d := keyDigest(t, item)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[d]
	return ok
}

// keyDigest digests an item's key. Numbers are taken by value: DynamoDB
// stores them normalised, so the text read back may differ from the text
// written (1.50 and 1.5).
func keyDigest(t *mapping.Table, item mapping.Item) [16]byte {
	h := sha256.New()
	part := func(av types.AttributeValue) {
		switch x := av.(type) {
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
			fmt.Fprintf(h, "?%T", av)
		}
	}
	part(item[t.PK.Name])
	if t.SK != nil {
		part(item[t.SK.Name])
	}
	return [16]byte(h.Sum(nil))
}

// notLock is a filter that leaves the lock item out of a Scan.
func notLock(t *mapping.Table) (expr string, names map[string]string, values map[string]types.AttributeValue) {
	key := t.LockKey()
	names = map[string]string{"#lpk": t.PK.Name}
	values = map[string]types.AttributeValue{":lpk": key[t.PK.Name]}
	expr = "NOT (#lpk = :lpk)"
	if t.SK != nil {
		names["#lsk"] = t.SK.Name
		values[":lsk"] = key[t.SK.Name]
		expr = "NOT (#lpk = :lpk AND #lsk = :lsk)"
	}
	return expr, names, values
}

// countItems counts the table's items, the lock item left out, with a Scan
// of every segment (Select COUNT: it reads, and costs the read units of,
// the whole table).
func countItems(ctx context.Context, o Options, call func(*dynamodb.Options)) (int64, error) {
	expr, names, values := notLock(&o.Plan.Table)
	var mu sync.Mutex
	var n int64
	err := scanAll(ctx, o.DB, o.Table, func(in *dynamodb.ScanInput) {
		in.Select = types.SelectCount
		in.FilterExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = aws.String(expr), names, values
	}, func(page *dynamodb.ScanOutput) error {
		mu.Lock()
		n += int64(page.Count)
		mu.Unlock()
		return nil
	}, call)
	if err != nil {
		return 0, fmt.Errorf("migrate: counting the items of %s: %w", o.Table, err)
	}
	return n, nil
}

// scanAll scans the table in parallel segments with consistent reads;
// setup completes each segment's input, page is called for every page
// (from several goroutines).
func scanAll(ctx context.Context, db *dynamodb.Client, name string, setup func(*dynamodb.ScanInput), page func(*dynamodb.ScanOutput) error, call func(*dynamodb.Options)) error {
	g, ctx := errgroup.WithContext(ctx)
	for seg := range scanSegments {
		g.Go(func() error {
			in := &dynamodb.ScanInput{
				TableName:      aws.String(name),
				Segment:        aws.Int32(int32(seg)),
				TotalSegments:  aws.Int32(scanSegments),
				ConsistentRead: aws.Bool(true),
			}
			setup(in)
			p := dynamodb.NewScanPaginator(db, in)
			for p.HasMorePages() {
				out, err := p.NextPage(ctx, call)
				if err != nil {
					return err
				}
				if err := page(out); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// strays finds the items of the table that this run did not write (the
// lock item aside), counts them and names the first ones in the report,
// and with DeleteStale deletes them with BatchWriteItem. It reads the whole
// table once (its keys only).
func strays(ctx context.Context, o Options, w *writer, rep *Report, call func(*dynamodb.Options)) error {
	t := &o.Plan.Table
	names := map[string]string{"#pk": t.PK.Name}
	proj := "#pk"
	if t.SK != nil {
		names["#sk"] = t.SK.Name
		proj += ", #sk"
	}
	var mu sync.Mutex
	var werr error // a delete that failed: its error names the items
	err := scanAll(ctx, o.DB, o.Table, func(in *dynamodb.ScanInput) {
		in.ProjectionExpression, in.ExpressionAttributeNames = aws.String(proj), names
	}, func(page *dynamodb.ScanOutput) error {
		var batch []pending
		for _, it := range page.Items {
			if t.IsLock(it) || w.written.has(t, it) {
				continue
			}
			key := t.KeyString(it)
			mu.Lock()
			rep.StrayItems++
			if len(rep.StrayKeys) < maxStrayKeys {
				rep.StrayKeys = append(rep.StrayKeys, key)
			}
			mu.Unlock()
			if o.DeleteStale {
				batch = append(batch, pending{item: t.KeyOf(it), source: key, del: true})
			}
		}
		for len(batch) > 0 {
			n := min(len(batch), MaxBatch)
			if err := w.write(ctx, batch[:n]); err != nil {
				mu.Lock()
				werr = err
				mu.Unlock()
				return err
			}
			batch = batch[n:]
		}
		return nil
	}, call)
	switch {
	case werr != nil:
		return werr
	case err != nil:
		return fmt.Errorf("migrate: finding the items of %s this run did not write: %w", o.Table, err)
	}
	return nil
}
