package followback

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/mapping"
)

// LockKeyText is the key text of follow-back's own lock item in the table
// (every key attribute holds it; a number key holds lockKeyNumber): one
// follow-back of a table at a time.
const LockKeyText = "#remodel#follow-back"

const lockKeyNumber = "-9.9999999999999999999999999999999999998E+125"

// The lock item's attributes: those of migrate's lock (migrate/lock.go),
// read by the same names, so that a lock is told the same way.
const (
	attrOwner     = "remodel_owner"
	attrHost      = "remodel_host"
	attrPID       = "remodel_pid"
	attrPIDStart  = "remodel_pid_start"
	attrStarted   = "remodel_started"
	attrHeartbeat = "remodel_heartbeat"
)

// DefaultLockStale is how old a lock's heartbeat must be for its run to be
// taken to have died (as migrate's).
const DefaultLockStale = 2 * time.Minute

// lockKey is the key of follow-back's lock item.
func lockKey(t *mapping.Table) mapping.Item {
	v := func(typ string) types.AttributeValue {
		switch typ {
		case "N":
			return &types.AttributeValueMemberN{Value: lockKeyNumber}
		case "B":
			return &types.AttributeValueMemberB{Value: []byte(LockKeyText)}
		}
		return &types.AttributeValueMemberS{Value: LockKeyText}
	}
	k := mapping.Item{t.PK.Name: v(t.PK.Type)}
	if t.SK != nil {
		k[t.SK.Name] = v(t.SK.Type)
	}
	return k
}

// isOwnLock says whether a key is follow-back's lock item.
func isOwnLock(t *mapping.Table, keys mapping.Item) bool {
	return mapping.EqualItem(lockKey(t), t.KeyOf(keys))
}

// holder is what a lock item says about the run holding it.
type holder struct {
	owner     string
	proc      process.ID
	started   string
	heartbeat time.Time
}

func readHolder(it mapping.Item) holder {
	s := func(n string) string {
		switch v := it[n].(type) {
		case *types.AttributeValueMemberS:
			return v.Value
		case *types.AttributeValueMemberN:
			return v.Value
		}
		return "?"
	}
	h := holder{owner: s(attrOwner), started: s(attrStarted), proc: process.ID{Host: s(attrHost), Start: s(attrPIDStart)}}
	if h.proc.Start == "?" {
		h.proc.Start = ""
	}
	h.proc.PID, _ = strconv.ParseInt(s(attrPID), 10, 64)
	if ms, err := strconv.ParseInt(s(attrHeartbeat), 10, 64); err == nil {
		h.heartbeat = time.UnixMilli(ms)
	}
	return h
}

func (h holder) String() string {
	return fmt.Sprintf("owner %s on host %s (pid %d), started %s, last heartbeat %s ago", h.owner, h.proc.Host, h.proc.PID, h.started, time.Since(h.heartbeat).Round(time.Second))
}

// alive says whether the holder's run may still be running: its heartbeat
// is recent and its process is not known gone from this host.
func (h holder) alive(stale time.Duration) bool {
	if time.Since(h.heartbeat) > stale {
		return false
	}
	return !h.proc.Self() && (h.proc.Host != process.Self().Host || h.proc.Running())
}

// checkForward refuses to start while a forward follower (migrate) holds
// the table's lock: what it writes must never come back (the loop rule).
func checkForward(ctx context.Context, db TableAPI, t *mapping.Table, table string, stale time.Duration) (string, error) {
	got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: t.LockKey(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return "", fmt.Errorf("followback: reading the lock item of table %s: %w", table, err)
	}
	if got.Item == nil {
		return "", nil
	}
	h := readHolder(got.Item)
	if h.alive(stale) {
		return "", fmt.Errorf("followback: a migrate run holds the lock of table %s (%s): follow-back does not start while the forward follower writes into the table, or its changes would be applied back; stop it (SIGINT) at the switch, then start follow-back", table, h)
	}
	return fmt.Sprintf("the lock item of a migrate run that is gone is in table %s (%s): it is no forward follower running", table, h), nil
}

// lock is follow-back's lock item, held while it runs.
type lock struct {
	db    TableAPI
	table string
	key   mapping.Item
	pk    string
	me    holder
	stale time.Duration
}

func newOwner() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// acquire puts the lock item, unless another follow-back holds it; the
// lock of the run a --resume goes on from (prev) and of a run whose
// process is gone from this host are taken over at once.
func acquire(ctx context.Context, db TableAPI, t *mapping.Table, table, prev string, stale time.Duration) (*lock, string, error) {
	l := &lock{db: db, table: table, key: lockKey(t), pk: t.PK.Name, stale: stale,
		me: holder{owner: newOwner(), proc: process.Self(), started: time.Now().UTC().Format(time.RFC3339)}}
	var note string
	for range 3 {
		err := l.put(ctx, "attribute_not_exists(#pk) OR #hb < :stale", prev)
		var cf *types.ConditionalCheckFailedException
		if err == nil {
			return l, note, nil
		}
		if !errors.As(err, &cf) {
			return nil, "", fmt.Errorf("followback: putting the lock item into table %s: %w", table, err)
		}
		got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: l.key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			return nil, "", fmt.Errorf("followback: reading the lock item of table %s: %w", table, err)
		}
		if got.Item == nil {
			continue
		}
		h := readHolder(got.Item)
		if h.alive(stale) {
			return nil, "", fmt.Errorf("followback: another follow-back holds the lock of table %s (%s): two never run at once (a lock whose heartbeat is older than %s is taken over)", table, h, stale)
		}
		prev, note = h.owner, fmt.Sprintf("took over the lock of a follow-back that is gone: %s", h)
	}
	return nil, "", fmt.Errorf("followback: table %s: could not take the lock: another run keeps taking and releasing it", table)
}

// put writes the lock item with a fresh heartbeat under cond (or as the
// previous owner prev's).
func (l *lock) put(ctx context.Context, cond, prev string) error {
	it := mapping.Item{}
	for k, v := range l.key {
		it[k] = v
	}
	it[attrOwner] = &types.AttributeValueMemberS{Value: l.me.owner}
	it[attrHost] = &types.AttributeValueMemberS{Value: l.me.proc.Host}
	it[attrPID] = &types.AttributeValueMemberN{Value: strconv.FormatInt(l.me.proc.PID, 10)}
	if l.me.proc.Start != "" {
		it[attrPIDStart] = &types.AttributeValueMemberS{Value: l.me.proc.Start}
	}
	it[attrStarted] = &types.AttributeValueMemberS{Value: l.me.started}
	it[attrHeartbeat] = &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().UnixMilli(), 10)}
	in := &dynamodb.PutItemInput{
		TableName: aws.String(l.table), Item: it, ConditionExpression: aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#pk": l.pk, "#hb": attrHeartbeat},
		ExpressionAttributeValues: map[string]types.AttributeValue{":stale": &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Add(-l.stale).UnixMilli(), 10)}},
	}
	if strings.Contains(cond, ":me") {
		in.ExpressionAttributeNames["#owner"] = attrOwner
		in.ExpressionAttributeValues[":me"] = &types.AttributeValueMemberS{Value: l.me.owner}
	}
	if !strings.Contains(cond, ":stale") {
		delete(in.ExpressionAttributeValues, ":stale")
		delete(in.ExpressionAttributeNames, "#hb")
	}
	if !strings.Contains(cond, "#pk") {
		delete(in.ExpressionAttributeNames, "#pk")
	}
	if prev != "" {
		*in.ConditionExpression += " OR #owner = :prev"
		in.ExpressionAttributeNames["#owner"] = attrOwner
		in.ExpressionAttributeValues[":prev"] = &types.AttributeValueMemberS{Value: prev}
	}
	_, err := l.db.PutItem(ctx, in)
	return err
}

// refresh renews the heartbeat; a lock another run took is an error.
func (l *lock) refresh(ctx context.Context) error {
	err := l.put(ctx, "#owner = :me OR #hb < :stale", "")
	var cf *types.ConditionalCheckFailedException
	if errors.As(err, &cf) {
		return fmt.Errorf("followback: lost the lock of table %s: another follow-back took it over; stopping", l.table)
	}
	if err != nil {
		return fmt.Errorf("followback: refreshing the lock of table %s: %w", l.table, err)
	}
	return nil
}

// release deletes the lock item if it is still this run's.
func (l *lock) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, _ = l.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(l.table), Key: l.key,
		ConditionExpression:       aws.String("#owner = :me"),
		ExpressionAttributeNames:  map[string]string{"#owner": attrOwner},
		ExpressionAttributeValues: map[string]types.AttributeValue{":me": &types.AttributeValueMemberS{Value: l.me.owner}},
	})
}
