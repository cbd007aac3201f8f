package migrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/mapping"
)

// The lock item's attributes, besides its key (mapping.LockKeyText).
const (
	lockOwner     = "remodel_owner"     // a random id of the run
	lockHost      = "remodel_host"      // the host name of the run
	lockPID       = "remodel_pid"       // its process id
	lockPIDStart  = "remodel_pid_start" // when that process started (process.ID.Start)
	lockStarted   = "remodel_started"   // when it took the lock, RFC 3339 UTC
	lockHeartbeat = "remodel_heartbeat" // the last refresh, epoch milliseconds
	lockJob       = "remodel_job"       // a shard's --job; absent when not given
)

// errLockLost wraps the error that stops a run whose lock another run took
// over, or which could not refresh it for too long.
var errLockLost = errors.New("lost the lock")

// lock is the lock item a run keeps in its table while it writes: one item
// with the key mapping.LockKeyText, put only if no lock item exists or its
// heartbeat is older than stale, refreshed every stale/4, and deleted at the
// end of the run, however it ends. The heartbeat is compared with the clock
// of the run that wants the lock: hosts whose clocks differ by more than a
// fraction of stale can take a live lock over or wait for a dead one longer.
type lock struct {
	db    dynamo.API
	table *mapping.Table
	key   func() mapping.Item // the lock item's key: the table's, or a shard's (Options.Shard)
	what  string              // "table shop", "shard 2/3 of table shop"
	name  string
	stale time.Duration
	call  func(*dynamodb.Options)
	held  lockHolder
}

// lockHolder is what a lock item says about the run holding it.
type lockHolder struct {
	owner, host string
	job         string // a shard's --job ("": none, or a lock of a version that did not record it)
	pid         int64
	pidStart    string
	started     string
	heartbeat   time.Time
}

// proc names the holder's process.
func (h lockHolder) proc() process.ID {
	return process.ID{Host: h.host, PID: h.pid, Start: h.pidStart}
}

func (h lockHolder) String() string {
	return fmt.Sprintf("owner %s%s on host %s (pid %d), started %s, last heartbeat %s ago",
		h.owner, ofJob(h.job), h.host, h.pid, h.started, time.Since(h.heartbeat).Round(time.Second))
}

func readHolder(it map[string]types.AttributeValue) lockHolder {
	s := func(name string) string { return attrText(it, name, "?") }
	h := lockHolder{owner: s(lockOwner), host: s(lockHost), started: s(lockStarted), job: attrText(it, lockJob, "")}
	if _, ok := it[lockPIDStart]; ok {
		h.pidStart = s(lockPIDStart)
	}
	h.pid, _ = strconv.ParseInt(s(lockPID), 10, 64)
	if ms, err := strconv.ParseInt(s(lockHeartbeat), 10, 64); err == nil {
		h.heartbeat = time.UnixMilli(ms)
	}
	return h
}

// attrText is the text of the string or number attribute name of the
// item it (one of remodel's own items: the lock, the split plan); or, when
// the item has none, or of another type, missing.
func attrText(it map[string]types.AttributeValue, name, missing string) string {
	switch v := it[name].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	}
	return missing
}

func millis(t time.Time) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.UnixMilli(), 10)}
}

// newOwner is a random id for a run's lock.
func newOwner() string {
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	return hex.EncodeToString(id)
}

// acquireLock puts the run's lock item into the table. Another run's lock
// whose heartbeat is recent refuses the run, naming that run, unless that
// run's process is gone from this host (killed before it could remove the
// lock); a stale one is taken over, and the report says so.
func acquireLock(ctx context.Context, o Options, rep *Report) (*lock, error) {
	owner := o.lockOwner
	if owner == "" {
		owner = newOwner()
	}
	self := process.Self()
	now := time.Now()
	l := &lock{
		db: o.DB, table: &o.Plan.Table, key: o.Plan.Table.LockKey, what: "table " + o.Table, name: o.Table, stale: o.LockStale,
		call: dynamo.AttemptTimeout(o.RequestTimeout),
		held: lockHolder{owner: owner, host: self.Host, pid: self.PID, pidStart: self.Start, started: now.UTC().Format(time.RFC3339), heartbeat: now, job: o.Job},
	}
	if sh := o.Shard; sh.Sharded() { // each shard its own lock item: the shards write at once, one run per shard
		l.key = func() mapping.Item { return l.table.ShardLockKey(sh.Index, sh.Count) }
		l.what = "shard " + sh.String() + " of table " + o.Table
	}
	takeover := slices.Clone(o.resumeOwners) // --resume: the interrupted run's lock is taken over at once
	var dead []string                        // owners of locks whose process is gone from this host
	// A lock released between the put and the read is tried again.
	for range 3 {
		item := l.key()
		item[lockOwner] = &types.AttributeValueMemberS{Value: l.held.owner}
		item[lockHost] = &types.AttributeValueMemberS{Value: l.held.host}
		item[lockPID] = &types.AttributeValueMemberN{Value: strconv.FormatInt(l.held.pid, 10)}
		if l.held.pidStart != "" {
			item[lockPIDStart] = &types.AttributeValueMemberS{Value: l.held.pidStart}
		}
		item[lockStarted] = &types.AttributeValueMemberS{Value: l.held.started}
		item[lockHeartbeat] = millis(time.Now())
		if l.held.job != "" {
			item[lockJob] = &types.AttributeValueMemberS{Value: l.held.job}
		}
		in := &dynamodb.PutItemInput{
			TableName:                 aws.String(l.name),
			Item:                      item,
			ConditionExpression:       aws.String("attribute_not_exists(#pk) OR #hb < :stale"),
			ExpressionAttributeNames:  map[string]string{"#pk": l.table.PK.Name, "#hb": lockHeartbeat},
			ExpressionAttributeValues: map[string]types.AttributeValue{":stale": millis(time.Now().Add(-l.stale))},
			ReturnValues:              types.ReturnValueAllOld,
		}
		if len(takeover) > 0 {
			var prev []string
			for i, owner := range takeover {
				p := ":prev" + strconv.Itoa(i)
				prev = append(prev, p)
				in.ExpressionAttributeValues[p] = &types.AttributeValueMemberS{Value: owner}
			}
			*in.ConditionExpression += " OR #owner IN (" + strings.Join(prev, ", ") + ")"
			in.ExpressionAttributeNames["#owner"] = lockOwner
		}
		out, err := l.db.PutItem(ctx, in, l.call)
		var cf *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			prev := readHolder(out.Attributes)
			switch {
			case len(out.Attributes) == 0:
			case slices.Contains(o.resumeOwners, prev.owner):
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("took over the lock of the interrupted run on %s: %s", l.what, prev))
			case slices.Contains(dead, prev.owner):
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("took over the lock of a run that died on this host on %s: %s (its process is gone)", l.what, prev))
			default:
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("took over a stale lock on %s: %s (older than %s: that run is taken to have died)",
					l.what, readHolder(out.Attributes), l.stale))
			}
			return l, nil
		case !errors.As(err, &cf):
			return nil, fmt.Errorf("migrate: putting the lock item into table %s: %w", l.name, err)
		}
		got, err := l.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(l.name), Key: l.key(), ConsistentRead: aws.Bool(true)}, l.call)
		if err != nil {
			return nil, fmt.Errorf("migrate: reading the lock item of table %s: %w", l.name, err)
		}
		if got.Item != nil {
			if h := readHolder(got.Item); !h.proc().Running() && !slices.Contains(takeover, h.owner) {
				dead = append(dead, h.owner)
				takeover = append(takeover, h.owner)
				continue
			}
			return nil, fmt.Errorf("migrate: %s is locked by another migrate run: %s; refusing to write into it at the same time (a lock whose heartbeat is older than %s is taken over; if that run was interrupted, migrate --resume takes its lock over at once)",
				l.what, readHolder(got.Item), l.stale)
		}
	}
	return nil, fmt.Errorf("migrate: table %s: could not take the lock: another run keeps taking and releasing it", l.name)
}

// keepAlive refreshes the lock's heartbeat every stale/4 until the returned
// stop is called. If another run took the lock over, or the heartbeat
// could not be refreshed for stale, it stops the run with lost.
func (l *lock) keepAlive(ctx context.Context, lost context.CancelCauseFunc) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(max(l.stale/4, time.Millisecond))
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now := time.Now()
			_, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 aws.String(l.name),
				Key:                       l.key(),
				UpdateExpression:          aws.String("SET #hb = :now"),
				ConditionExpression:       aws.String("#owner = :me"),
				ExpressionAttributeNames:  map[string]string{"#hb": lockHeartbeat, "#owner": lockOwner},
				ExpressionAttributeValues: map[string]types.AttributeValue{":now": millis(now), ":me": &types.AttributeValueMemberS{Value: l.held.owner}},
			}, l.call)
			var cf *types.ConditionalCheckFailedException
			switch {
			case err == nil:
				last = now
			case ctx.Err() != nil:
				return
			case errors.As(err, &cf):
				lost(fmt.Errorf("migrate: %w on table %s: another run took it over or removed it (this run's heartbeat was older than %s); stopping", errLockLost, l.name, l.stale))
				return
			case time.Since(last) > l.stale:
				lost(fmt.Errorf("migrate: %w on table %s: its heartbeat could not be refreshed for %s (%v); stopping", errLockLost, l.name, l.stale, err))
				return
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// release deletes the lock item if it is still this run's, also when ctx
// is canceled (within one request timeout). It returns a warning when the
// lock could not be removed.
func (l *lock) release(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultRequestTimeout)
	defer cancel()
	_, err := l.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(l.name),
		Key:                       l.key(),
		ConditionExpression:       aws.String("#owner = :me"),
		ExpressionAttributeNames:  map[string]string{"#owner": lockOwner},
		ExpressionAttributeValues: map[string]types.AttributeValue{":me": &types.AttributeValueMemberS{Value: l.held.owner}},
	}, l.call)
	var cf *types.ConditionalCheckFailedException
	var nf *types.ResourceNotFoundException
	switch {
	case err == nil, errors.As(err, &nf): // no table, no lock item: it went with the table
		return ""
	case errors.As(err, &cf):
		return fmt.Sprintf("the lock item of table %s belongs to another run now: left it in place", l.name)
	}
	return fmt.Sprintf("could not remove the lock item of table %s (%v): the next run waits until its heartbeat is %s old, or delete the item with key %s", l.name, err, l.stale, l.table.KeyString(l.key()))
}
