package migrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/av"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/mapping"
)

// maxStrayKeys is how many stray items the report names.
const maxStrayKeys = 20

// keySet records a 16-byte digest of every key this run wrote, to tell the
// items of a table that held items before which ones the run did not write.
// It is kept only for a run with --allow-non-empty into a table that held
// items, or a resumed run, and holds its digests on disk, not on the heap
// (keyset.Spill): strays later spills the table's keys the same way and
// compares one bucket pair at a time, with the written digests of that
// bucket sorted in memory (keyset.Probe, within its limit).
type keySet struct {
	spill      *keyset.Spill
	probeLimit int64 // digests held at once comparing (0: keyset.DefaultProbeLimit)
}

func newKeySet() *keySet { return &keySet{spill: keyset.NewSpill("the digests of the keys written")} }

// add records an item's key as written. A failure to write the file is
// kept and returned by strays (the run itself goes on).
func (s *keySet) add(t *mapping.Table, item mapping.Item) {
	_ = s.spill.Add(keyDigest(t, item), nil)
}

// close closes the files (and so frees their space).
func (s *keySet) close() {
	if s != nil {
		s.spill.Close()
	}
}

// unwritten calls fn for every key of tk that was not written, bucket by
// bucket (keyset.Probe): a bucket's written digests are read and sorted,
// at most keyset.DefaultProbeLimit of them at once (probeLimit), then its
// table keys are each looked up in them.
func (s *keySet) unwritten(t *mapping.Table, tk *tableKeys, fn func(key mapping.Item) error) error {
	_, err := keyset.Probe(s.spill, tk.spill, readTableKey(), s.probeLimit, func(_ [16]byte, rest []byte, found bool) error {
		if found {
			return nil
		}
		item, err := decodeItemKey(t, rest[uvarintLen(rest):])
		if err != nil {
			return err
		}
		return fn(item)
	})
	if err != nil {
		return fmt.Errorf("migrate: comparing the keys written with the table's: %w", err)
	}
	return nil
}

// tableKeys is the other side: the keys of the table's items, each with
// its digest, in buckets by the digest as the written ones are.
type tableKeys struct {
	spill    *keyset.Spill
	mu       sync.Mutex
	key, rec []byte // scratch
}

func newTableKeys() *tableKeys {
	return &tableKeys{spill: keyset.NewSpill("the keys of the table's items")}
}

// add records one key read from the table: digest, length, the key
// encoded exactly (appendKey), to name it and delete it later.
func (k *tableKeys) add(t *mapping.Table, item mapping.Item) error {
	d := keyDigest(t, item)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.key = appendKey(k.key[:0], t, item)
	k.rec = append(binary.AppendUvarint(k.rec[:0], uint64(len(k.key))), k.key...)
	if err := k.spill.Add(d, k.rec); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// readTableKey is a reader of tableKeys' records: the digest, the key's
// length and the key (rest: the length and the key, as add wrote them).
func readTableKey() keyset.RecordReader {
	var buf []byte
	return func(r *bufio.Reader) (d [16]byte, rest []byte, err error) {
		if _, err := io.ReadFull(r, d[:]); err != nil {
			return d, nil, err
		}
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return d, nil, noEOF(err)
		}
		buf = binary.AppendUvarint(buf[:0], n)
		at := len(buf)
		buf = slices.Grow(buf, int(n))[:at+int(n)]
		if _, err := io.ReadFull(r, buf[at:]); err != nil {
			return d, nil, noEOF(err)
		}
		return d, buf, nil
	}
}

// noEOF is err, but io.ErrUnexpectedEOF for io.EOF: the records ended
// inside one.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// uvarintLen is the length of the uvarint that b starts with.
func uvarintLen(b []byte) int {
	_, n := binary.Uvarint(b)
	return n
}

// decodeItemKey rebuilds an item key from appendKey's encoding.
func decodeItemKey(t *mapping.Table, b []byte) (mapping.Item, error) {
	item := mapping.Item{}
	names := []string{t.PK.Name}
	if t.SK != nil {
		names = append(names, t.SK.Name)
	}
	for _, name := range names {
		if len(b) < 1 {
			return nil, fmt.Errorf("migrate: a key in the file of the table's keys is cut short")
		}
		typ := b[0]
		n, w := binary.Uvarint(b[1:])
		if w <= 0 || uint64(len(b)-1-w) < n {
			return nil, fmt.Errorf("migrate: a key in the file of the table's keys is cut short")
		}
		v := b[1+w : 1+w+int(n)]
		b = b[1+w+int(n):]
		switch typ {
		case 'S':
			item[name] = &types.AttributeValueMemberS{Value: string(v)}
		case 'N':
			item[name] = &types.AttributeValueMemberN{Value: string(v)}
		case 'B':
			item[name] = &types.AttributeValueMemberB{Value: bytes.Clone(v)}
		default:
			return nil, fmt.Errorf("migrate: a key attribute %s of a type other than S, N or B", name)
		}
	}
	return item, nil
}

// keyDigest digests an item's table key (av.KeyDigest).
func keyDigest(t *mapping.Table, item mapping.Item) [16]byte {
	sk := ""
	if t.SK != nil {
		sk = t.SK.Name
	}
	return av.KeyDigest(item, t.PK.Name, sk)
}

// notLock is a filter that leaves the lock item and the split plan item
// of a sharded job (splitplan.go) out of a Scan.
func notLock(t *mapping.Table) (expr string, names map[string]string, values map[string]types.AttributeValue) {
	names = map[string]string{"#lpk": t.PK.Name}
	values = map[string]types.AttributeValue{}
	var parts []string
	for i, key := range []mapping.Item{t.LockKey(), t.SplitPlanKey()} {
		p := ":k" + strconv.Itoa(i)
		values[p+"pk"] = key[t.PK.Name]
		cond := "#lpk = " + p + "pk"
		if t.SK != nil {
			names["#lsk"] = t.SK.Name
			values[p+"sk"] = key[t.SK.Name]
			cond += " AND #lsk = " + p + "sk"
		}
		parts = append(parts, "NOT ("+cond+")")
	}
	return strings.Join(parts, " AND "), names, values
}

// countItems counts the table's items, the lock item left out, with a Scan
// of every segment (Select COUNT: it reads, and costs the read units of,
// the whole table).
func countItems(ctx context.Context, o Options, call func(*dynamodb.Options)) (int64, error) {
	expr, names, values := notLock(&o.Plan.Table)
	var mu sync.Mutex
	var n int64
	err := scanAll(ctx, o.DB, o.Table, 0, func(in *dynamodb.ScanInput) {
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

// scanAll scans the table (dynamo.ScanAll: consistent reads, parallel
// segments sized by items, about how many it holds); setup completes the
// input, page is called for every page (from several goroutines).
func scanAll(ctx context.Context, db dynamo.API, name string, items int64, setup func(*dynamodb.ScanInput), page func(*dynamodb.ScanOutput) error, call func(*dynamodb.Options)) error {
	in := dynamodb.ScanInput{TableName: aws.String(name)}
	setup(&in)
	return dynamo.ScanAll(ctx, db, in, items, page, call)
}

// heldItems is about how many items the table holds once the copy is
// done, to size a Scan of it by: the items it held before the job and the
// ones the job wrote (the report's counts are not final yet): the keys
// recorded for the stray check when the run records them (a resumed run
// records its earlier runs' too), or else this run's writes.
func heldItems(rep *Report, w *writer) int64 {
	if w.written != nil {
		return rep.ItemsBefore + w.written.spill.Len()
	}
	return rep.ItemsBefore + w.c.written.Load()
}

// strays finds the items of the table that this run did not write (the
// lock item aside), counts them and names the first ones in the report,
// and with DeleteStale deletes them with BatchWriteItem. It reads the whole
// table once (its keys only) into bucket files beside the written keys'
// (keySet), then compares the two sides bucket by bucket. A table that
// holds fewer items than the job counts as written fails the run first
// (heldAsClaimed), before anything is deleted.
func strays(ctx context.Context, o Options, w *writer, rep *Report, tr *tracker, call func(*dynamodb.Options)) error {
	t := &o.Plan.Table
	ks := w.written
	if err := ks.spill.Err(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	tk := newTableKeys()
	defer tk.spill.Close()

	names := map[string]string{"#pk": t.PK.Name}
	proj := "#pk"
	if t.SK != nil {
		names["#sk"] = t.SK.Name
		proj += ", #sk"
	}
	held := heldItems(rep, w)
	ph := o.Progress.Phase("stray scan", "items", []progress.Task{{Name: "items of the table", Total: held}})
	scanned := ph.Counter(0)
	var seen atomic.Int64 // the table's items, the lock item left out
	err := scanAll(ctx, o.DB, o.Table, held, func(in *dynamodb.ScanInput) {
		in.ProjectionExpression, in.ExpressionAttributeNames = aws.String(proj), names
	}, func(page *dynamodb.ScanOutput) error {
		n := int64(len(page.Items))
		defer func() { scanned.Add(n); seen.Add(n) }()
		for _, it := range page.Items {
			if t.IsLock(it) {
				n--
				continue
			}
			if err := tk.add(t, it); err != nil {
				return err
			}
		}
		return nil
	}, call)
	ph.End(err == nil)
	if err != nil {
		return fmt.Errorf("migrate: finding the items of %s this run did not write: %w", o.Table, err)
	}
	rep.ItemsInTable = seen.Load()
	if err := heldAsClaimed(o.Table, rep.ItemsInTable, earlierItems(tr), w.c.written.Load()); err != nil {
		return err
	}

	g, gctx := errgroup.WithContext(ctx)
	deletes := make(chan []pending)
	if o.DeleteStale {
		for range max(o.Writers, 1) {
			g.Go(func() error {
				for b := range deletes {
					if err := w.write(gctx, b); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	g.Go(func() error {
		defer close(deletes)
		var batch []pending
		send := func() error {
			if len(batch) == 0 {
				return nil
			}
			select {
			case deletes <- batch:
			case <-gctx.Done():
				return gctx.Err()
			}
			batch = nil
			return nil
		}
		err := ks.unwritten(t, tk, func(key mapping.Item) error {
			name := t.KeyString(key)
			rep.StrayItems++
			if len(rep.StrayKeys) < maxStrayKeys {
				rep.StrayKeys = append(rep.StrayKeys, name)
			}
			if !o.DeleteStale {
				return nil
			}
			batch = append(batch, pending{item: key, source: name, del: true})
			if len(batch) == MaxBatch {
				return send()
			}
			return nil
		})
		if err != nil {
			return err
		}
		return send()
	})
	return g.Wait()
}

// ErrItemsMissing is a run that ends with fewer items in the table than
// the job counts as written: a checkpoint edited by hand (its checksum
// recomputed), or items deleted by someone else while the job ran. The
// run fails (migrate exits 1, docs/cli.md) rather than report them.
var ErrItemsMissing = errors.New("the table holds fewer items than the job wrote")

// earlierItems is how many items the checkpoint of a resumed run says
// its earlier runs wrote (0 for a run that is not resumed).
func earlierItems(tr *tracker) int64 {
	var n int64
	if tr != nil && tr.resumed {
		for _, et := range tr.ents {
			for _, c := range et.earlier {
				n += c.items
			}
		}
	}
	return n
}

// heldAsClaimed checks the count of the table's items that the stray scan
// saw against the items the job claims: the earlier runs' (earlier) and
// this run's (now). Every item the job wrote has a key of its own (the
// key collision check), so the table holds at least that many, with the
// items it held before, which the job may have replaced, on top.
func heldAsClaimed(table string, held, earlier, now int64) error {
	claimed := earlier + now
	if held >= claimed {
		return nil
	}
	if earlier == 0 {
		return fmt.Errorf("migrate: %w: table %s holds %d items, and this run counts %d as written: %d are missing (deleted while the run wrote, or expired by TTL); migrate again",
			ErrItemsMissing, table, held, now, claimed-held)
	}
	return fmt.Errorf("migrate: %w: table %s holds %d items, and the job counts %d as written (%d by the earlier runs its checkpoint names, %d by this run): %d are missing (a checkpoint edited by hand, or items deleted while the job ran); start over without --resume",
		ErrItemsMissing, table, held, claimed, earlier, now, claimed-held)
}
