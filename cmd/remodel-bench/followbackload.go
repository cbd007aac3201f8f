package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/mapping"
)

// The follow-back bench's workload: an application writing into the
// table through the AWS SDK after the switch, on the personalization
// example's items with each user's settings and subscriptions embedded
// (personalization-embed.yaml). Several workers, each owning its users
// (an existing share and the ones it puts) and the contents it puts, so
// that the changes of one item come from one worker, in order.
//
// The changes, each one item change (one stream record; a key move is
// two): a user's name updated (UpdateItem); a user's settings edited (the
// item read, one embedded setting's updatedAt changed and a setting
// "bench" added or removed, put back: an update, an insert or a delete of
// a child row); a user put with a setting and a subscription, and deleted
// later; a content (subscribe) put, its key moved to another
// content_origin_id (a transaction of a delete and a put), and deleted.
//
// Before each write the workload notes the moment under the item's key
// (writtenAt); follow-back's process says when it has done each record
// (the key and the moment): the lag of that change is the difference.

// backWorker is one worker's share of the items.
type backWorker struct {
	i        int
	rng      *rand.Rand
	users    []int64 // existing users it owns
	newUsers []int64 // users it put
	contents []int64 // content_origin_ids of the contents it put
	made     int64
}

// backLoad writes item changes into the table.
type backLoad struct {
	db      *dynamodb.Client
	table   string
	plan    *mapping.Plan
	workers []*backWorker
	user    mapping.Item // an existing user with a setting and a subscription: the model of those put
	content mapping.Item // the content its subscription names: the model of the contents put
	times   []string     // updatedAt values of the data, given to the settings edited
	seq     atomic.Int64 // new ids
	made    atomic.Int64 // item changes written
	failed  atomic.Int64
	errMu   sync.Mutex
	errs    []error

	mu      sync.Mutex
	pending map[string][]time.Time // per item key, the moments of its writes not yet done
	lags    []time.Duration        // of the changes done since the last take
	done    int64
	strange int64 // records done for no write of the workload's
}

// openBackLoad reads the users and the models from the source and the
// table, and deals the users out to workers.
func openBackLoad(ctx context.Context, db *dynamodb.Client, table string, plan *mapping.Plan, workers int, seed uint64) (*backLoad, error) {
	l := &backLoad{db: db, table: table, plan: plan, pending: map[string][]time.Time{}}
	for i := range workers {
		l.workers = append(l.workers, &backWorker{i: i, rng: rand.New(rand.NewPCG(seed, uint64(100+i)))})
	}
	if err := l.readUsers(ctx, workers); err != nil {
		return nil, err
	}
	for i, lw := range l.workers {
		if len(lw.users) == 0 {
			return nil, fmt.Errorf("bench: follow-back workload: worker %d of %d has no users: the source has too few", i+1, workers)
		}
	}
	if err := l.readModels(ctx); err != nil {
		return nil, err
	}
	l.seq.Store(time.Now().UnixMilli() % 1_000_000_000 * 1000) // ids no earlier run used
	return l, nil
}

// readUsers deals the users of the table out to the workers: those
// whose items hold no empty map. DynamoDB Local 3.x writes an empty map
// of a stream image without its type ({} for {"M":{}}; the DynamoDB
// service does not), which the SDK reads as another value: follow-back
// would find the item's old image in no row and dead-letter the change as
// a conflict, as it must.
func (l *backLoad) readUsers(ctx context.Context, workers int) error {
	in := &dynamodb.ScanInput{TableName: aws.String(l.table), FilterExpression: aws.String("#t = :u"),
		ExpressionAttributeNames: map[string]string{"#t": l.plan.Table.EntityAttr}, ExpressionAttributeValues: map[string]types.AttributeValue{":u": str("user")}}
	for {
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		out, err := l.db.Scan(sctx, in)
		cancel()
		if err != nil {
			return fmt.Errorf("bench: follow-back workload: reading the users: %w", err)
		}
		for _, it := range out.Items {
			u, err := strconv.ParseInt(text(it["user_id"]), 10, 64)
			if err != nil {
				return fmt.Errorf("bench: follow-back workload: a user without a user_id: %s", l.plan.Table.KeyString(it))
			}
			if !emptyMap(&types.AttributeValueMemberM{Value: it}) {
				lw := l.workers[int(u%int64(workers))]
				lw.users = append(lw.users, u)
			}
		}
		if out.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// emptyMap says whether v holds an empty map.
func emptyMap(v types.AttributeValue) bool {
	switch x := v.(type) {
	case *types.AttributeValueMemberM:
		if len(x.Value) == 0 {
			return true
		}
		for _, e := range x.Value {
			if emptyMap(e) {
				return true
			}
		}
	case *types.AttributeValueMemberL:
		for _, e := range x.Value {
			if emptyMap(e) {
				return true
			}
		}
	}
	return false
}

// readModels reads a user with a setting and a subscription, the content
// it subscribes to, and the settings' updatedAt values, from the table.
func (l *backLoad) readModels(ctx context.Context) error {
	for _, u := range l.workers[0].users {
		it, err := l.get(ctx, userKey(u))
		if err != nil {
			return err
		}
		set, subs := list(it, "settings"), list(it, "subscriptions")
		for _, s := range set {
			if t, ok := member(s, "updatedAt").(*types.AttributeValueMemberS); ok && !slices.Contains(l.times, t.Value) {
				l.times = append(l.times, t.Value)
			}
		}
		if l.user == nil && len(set) > 0 && len(subs) > 0 {
			sub := subs[0].(*types.AttributeValueMemberM).Value
			key := mapping.Item{"PK": str("SUBSCRIBE#" + text(sub["service"]) + "#" + text(sub["contentType"]) + "#" + text(sub["contentOriginId"])), "SK": str("SUBSCRIBE#")}
			if l.content, err = l.get(ctx, key); err != nil {
				return err
			}
			if l.content != nil {
				l.user = it
			}
		}
		if l.user != nil && len(l.times) >= 8 {
			return nil
		}
	}
	return errors.New("bench: follow-back workload: no user of the table has a setting and a subscription to a content of the table, or the settings have fewer than 8 updatedAt values: is it the personalization example's data migrated with personalization-embed.yaml?")
}

// get reads an item (nil: none), strongly consistent: the worker's own
// last write.
func (l *backLoad) get(ctx context.Context, key mapping.Item) (mapping.Item, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	out, err := l.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(l.table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("bench: follow-back workload: reading %s: %w", l.plan.Table.KeyString(key), err)
	}
	return out.Item, nil
}

func userKey(id int64) mapping.Item {
	return mapping.Item{"PK": str("USER#" + strconv.FormatInt(id, 10)), "SK": str("USER#")}
}

func (l *backLoad) contentKey(origin int64) mapping.Item {
	m := l.content
	return mapping.Item{"PK": str("SUBSCRIBE#" + text(m["service"]) + "#" + text(m["contentType"]) + "#" + strconv.FormatInt(origin, 10)), "SK": str("SUBSCRIBE#")}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// text is the text of an S or N value.
func text(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	}
	return ""
}

func list(it mapping.Item, name string) []types.AttributeValue {
	if l, ok := it[name].(*types.AttributeValueMemberL); ok {
		return l.Value
	}
	return nil
}

func member(v types.AttributeValue, name string) types.AttributeValue {
	if m, ok := v.(*types.AttributeValueMemberM); ok {
		return m.Value[name]
	}
	return nil
}

// runUntil writes changes as fast as the table takes them until n item
// changes are written, and returns how many were.
func (l *backLoad) runUntil(ctx context.Context, n int64) int64 {
	start := l.made.Load()
	var wg sync.WaitGroup
	for _, lw := range l.workers {
		wg.Go(func() {
			for ctx.Err() == nil && l.made.Load()-start < n && l.failed.Load() == 0 {
				l.change(ctx, lw)
			}
		})
	}
	wg.Wait()
	return l.made.Load() - start
}

// runAt writes changes at rate item changes per second, spread over the
// workers (a tick of a worker behind its share writes one, paceWorkers),
// until stop is closed, ctx is done or a change failed; it returns the item
// changes written.
func (l *backLoad) runAt(ctx context.Context, rate float64, stop <-chan struct{}) int64 {
	start := l.made.Load()
	paceWorkers(ctx, l.workers, rate, stop,
		func(lw *backWorker) int64 { return lw.made },
		func(lw *backWorker) { l.change(ctx, lw) },
		func() bool { return l.failed.Load() != 0 })
	return l.made.Load() - start
}

// change writes one change of lw's, chosen at random among those it can
// make.
func (l *backLoad) change(ctx context.Context, lw *backWorker) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	var n int64
	var err error
	switch p := lw.rng.IntN(100); {
	case p < 20:
		n, err = l.rename(ctx, lw)
	case p < 45:
		n, err = l.editSettings(ctx, lw)
	case p < 55 || p < 60 && len(lw.newUsers) == 0:
		n, err = l.putUser(ctx, lw)
	case p < 60:
		n, err = l.deleteUser(ctx, lw)
	case p < 75 || len(lw.contents) == 0:
		n, err = l.putContent(ctx, lw)
	case p < 90:
		n, err = l.moveContent(ctx, lw)
	default:
		n, err = l.deleteContent(ctx, lw)
	}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return // stopped
		}
		l.failed.Add(1)
		l.errMu.Lock()
		if len(l.errs) < 3 {
			l.errs = append(l.errs, err)
		}
		l.errMu.Unlock()
		return
	}
	lw.made += n
	l.made.Add(n)
}

// anyUser is one of lw's users, existing or put.
func (lw *backWorker) anyUser() int64 {
	i := lw.rng.IntN(len(lw.users) + len(lw.newUsers))
	if i < len(lw.users) {
		return lw.users[i]
	}
	return lw.newUsers[i-len(lw.users)]
}

// written notes the moment of a write of the items of keys, just before
// it is sent.
func (l *backLoad) written(keys ...mapping.Item) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		s := l.plan.Table.KeyString(k)
		l.pending[s] = append(l.pending[s], now)
	}
}

// doneAt is follow-back's word that the record of the item of key was
// done at at.
func (l *backLoad) doneAt(key string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.pending[key]
	if len(q) == 0 {
		l.strange++
		return
	}
	l.lags = append(l.lags, at.Sub(q[0]))
	if len(q) == 1 {
		delete(l.pending, key)
	} else {
		l.pending[key] = q[1:]
	}
	l.done++
}

// doneCount is the records done for the workload's writes so far, and
// those done for none.
func (l *backLoad) doneCount() (int64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done, l.strange
}

// takeLags returns the lags noted since the last take.
func (l *backLoad) takeLags() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lags
	l.lags = nil
	return out
}

// failures is the writes that failed, with the first errors.
func (l *backLoad) failures() (int64, []error) {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.failed.Load(), slices.Clone(l.errs)
}

func (l *backLoad) put(ctx context.Context, it mapping.Item) error {
	l.written(it)
	if _, err := l.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(l.table), Item: it}); err != nil {
		return fmt.Errorf("bench: follow-back workload: putting %s: %w", l.plan.Table.KeyString(it), err)
	}
	return nil
}

func (l *backLoad) del(ctx context.Context, key mapping.Item) error {
	l.written(key)
	if _, err := l.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(l.table), Key: key}); err != nil {
		return fmt.Errorf("bench: follow-back workload: deleting %s: %w", l.plan.Table.KeyString(key), err)
	}
	return nil
}

// rename sets a user's name.
func (l *backLoad) rename(ctx context.Context, lw *backWorker) (int64, error) {
	key := userKey(lw.anyUser())
	l.written(key)
	_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(l.table), Key: key,
		UpdateExpression: aws.String("SET #n = :n"), ExpressionAttributeNames: map[string]string{"#n": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": str(fmt.Sprintf("renamed %d", l.seq.Add(1)))}})
	if err != nil {
		return 0, fmt.Errorf("bench: follow-back workload: renaming %s: %w", l.plan.Table.KeyString(key), err)
	}
	return 1, nil
}

// editSettings reads a user and puts it back with its settings edited:
// the first other setting's updatedAt changed, the setting "bench" added
// (in the list's order: service, then setting type) or removed.
func (l *backLoad) editSettings(ctx context.Context, lw *backWorker) (int64, error) {
	key := userKey(lw.anyUser())
	it, err := l.get(ctx, key)
	if err != nil || it == nil {
		return 0, errors.Join(err, fmt.Errorf("bench: follow-back workload: user %s is not in the table", l.plan.Table.KeyString(key)))
	}
	it = maps.Clone(it)
	set := slices.Clone(list(it, "settings"))
	model := list(l.user, "settings")[0].(*types.AttributeValueMemberM).Value
	svc := text(model["service"])
	at := -1
	for i, s := range set {
		if text(member(s, "settingType")) == "bench" && text(member(s, "service")) == svc {
			at = i
			break
		}
	}
	if at >= 0 {
		set = slices.Delete(set, at, at+1)
	} else {
		add := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"service": str(svc), "settingType": str("bench"), "updatedAt": str(l.times[lw.rng.IntN(len(l.times))]),
			"settings": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"n": num(l.seq.Add(1))}}}}
		i := 0
		for i < len(set) && settingBefore(set[i], svc, "bench") {
			i++
		}
		set = slices.Insert(set, i, types.AttributeValue(add))
	}
	for i, s := range set {
		if text(member(s, "settingType")) == "bench" {
			continue
		}
		m := maps.Clone(s.(*types.AttributeValueMemberM).Value)
		old := text(m["updatedAt"])
		for text(m["updatedAt"]) == old {
			m["updatedAt"] = str(l.times[lw.rng.IntN(len(l.times))])
		}
		set[i] = &types.AttributeValueMemberM{Value: m}
		break
	}
	if len(set) == 0 {
		delete(it, "settings") // an empty embed is no attribute
	} else {
		it["settings"] = &types.AttributeValueMemberL{Value: set}
	}
	return 1, l.put(ctx, it)
}

// settingBefore says whether the setting s comes before (service, typ) in
// the embed's order.
func settingBefore(s types.AttributeValue, service, typ string) bool {
	a, b := text(member(s, "service")), text(member(s, "settingType"))
	return a < service || a == service && b < typ
}

// putUser puts a new user, with the model's first setting and
// subscription.
func (l *backLoad) putUser(ctx context.Context, lw *backWorker) (int64, error) {
	id := l.seq.Add(1)
	it := maps.Clone(l.user)
	maps.Copy(it, userKey(id))
	it["user_id"] = num(id)
	it["email"] = str(fmt.Sprintf("bench.%d@example.org", id))
	it["name"] = str(fmt.Sprintf("bench user %d", id))
	it["settings"] = &types.AttributeValueMemberL{Value: list(l.user, "settings")[:1]}
	it["subscriptions"] = &types.AttributeValueMemberL{Value: list(l.user, "subscriptions")[:1]}
	if err := l.put(ctx, it); err != nil {
		return 0, err
	}
	lw.newUsers = append(lw.newUsers, id)
	return 1, nil
}

// deleteUser deletes a user lw put (its settings and subscription go with it).
func (l *backLoad) deleteUser(ctx context.Context, lw *backWorker) (int64, error) {
	i := lw.rng.IntN(len(lw.newUsers))
	if err := l.del(ctx, userKey(lw.newUsers[i])); err != nil {
		return 0, err
	}
	lw.newUsers = slices.Delete(lw.newUsers, i, i+1)
	return 1, nil
}

// contentItem is the model content with content_origin_id origin.
func (l *backLoad) contentItem(origin int64) mapping.Item {
	it := maps.Clone(l.content)
	maps.Copy(it, l.contentKey(origin))
	it["contentOriginId"] = num(origin)
	it["title"] = str(fmt.Sprintf("bench content %d", origin))
	return it
}

// putContent puts a new content.
func (l *backLoad) putContent(ctx context.Context, lw *backWorker) (int64, error) {
	origin := l.seq.Add(1)
	if err := l.put(ctx, l.contentItem(origin)); err != nil {
		return 0, err
	}
	lw.contents = append(lw.contents, origin)
	return 1, nil
}

// moveContent moves a content lw put to a new content_origin_id: its key
// changes (a transaction: the old item deleted, the new one put).
func (l *backLoad) moveContent(ctx context.Context, lw *backWorker) (int64, error) {
	i := lw.rng.IntN(len(lw.contents))
	from, to := lw.contents[i], l.seq.Add(1)
	nw := l.contentItem(to)
	l.written(l.contentKey(from), nw)
	_, err := l.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(l.table), Key: l.contentKey(from)}},
		{Put: &types.Put{TableName: aws.String(l.table), Item: nw}},
	}})
	if err != nil {
		return 0, fmt.Errorf("bench: follow-back workload: moving content %d to %d: %w", from, to, err)
	}
	lw.contents[i] = to
	return 2, nil
}

// deleteContent deletes a content lw put.
func (l *backLoad) deleteContent(ctx context.Context, lw *backWorker) (int64, error) {
	i := lw.rng.IntN(len(lw.contents))
	if err := l.del(ctx, l.contentKey(lw.contents[i])); err != nil {
		return 0, err
	}
	lw.contents = slices.Delete(lw.contents, i, i+1)
	return 1, nil
}
