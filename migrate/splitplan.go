package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// The split of a sharded job (--shard i/n). Each shard computes the key
// ranges of every read from the source in its own snapshot; if the source
// changed between the shards' snapshots, or the shards were given another
// --ranges, mapping or n, they would cut the reads differently and rows
// between differing boundaries would be read by two shards or by none.
// So the shards of a job agree on one split plan: every read's entities and
// boundaries, with n, --ranges and the mapping's digest, named by its
// digest (SHA-256 of its JSON).
//
// Into a table (agreeSplit): the first shard records its plan in the split
// plan item (mapping.Table.SplitPlanKey, a conditional put); a later shard
// of the same n, --ranges, mapping and --job adopts the recorded
// boundaries instead of its own, so that every row is read by exactly one
// shard whatever happened between the snapshots. A shard whose n,
// --ranges, mapping or --job differ, or whose reads are not the plan's, is
// refused before it writes any item, as long as the recorded plan is in
// use: a shard of it finished with it, or holds a live lock item; a plan
// that is not in use (its shards all failed before finishing) is replaced,
// with a warning. A plan too large for an item (maxSplitPlanBytes) is
// recorded by its digest alone: a shard whose own plan has another digest
// is refused instead of adopting it. Every shard that finishes marks
// itself done in the item; the one that completes the n removes it. A
// resumed shard reads its checkpoint's ranges and is refused if the
// checkpoint's plan digest, or its --job, is not the recorded one.
//
// --job is what tells two jobs of the same options apart: without it, a
// plan left by an earlier job whose shards partly finished is adopted,
// and those shards' marks count towards the new job's n, so the item can
// be removed before the new job's last shard starts (which then cuts a
// plan of its own). With it, that plan is another job's: refused while in
// use, replaced when not.
//
// Into S3 (--to) there is no item to meet at: each shard writes its plan's
// digest into its claim and its manifest; a shard whose sibling's claim or
// manifest names other options or another digest is refused at its start
// (s3claim.go), and migrate --import --shards-done and verify --files
// refuse manifests whose digests differ.

// maxSplitPlanBytes is the largest plan recorded whole in the split plan
// item (DynamoDB's items hold 400 KB).
const maxSplitPlanBytes = 350_000

// The split plan item's attributes, besides its key.
const (
	splitDigestAttr  = "remodel_split_digest"  // the plan's digest
	splitShardsAttr  = "remodel_split_shards"  // n
	splitRangesAttr  = "remodel_split_ranges"  // --ranges
	splitMappingAttr = "remodel_split_mapping" // the mapping file's digest
	splitPlanAttr    = "remodel_split_plan"    // the plan's JSON; absent when too large
	splitByAttr      = "remodel_split_by"      // which shard recorded it, where and when
	splitJobAttr     = "remodel_split_job"     // the shards' --job; absent when not given
	splitDoneAttr    = "remodel_split_done"    // the shards that finished with it (NS)
)

// splitPlan is how a sharded job cuts its reads into key ranges: the
// reads in the job's order, each with its entities (one, or a shared
// read's) and its boundaries (Ranges-1 at most; none: one range).
type splitPlan struct {
	Shards  int         `json:"shards"`
	Ranges  int         `json:"ranges"`
	Mapping string      `json:"mapping_digest"`
	Reads   []splitRead `json:"reads"`
}

type splitRead struct {
	Entities []string     `json:"entities"`
	Bounds   [][]keyValue `json:"bounds,omitempty"`
}

// plannedRead is a read of the job with the boundaries of its key ranges
// (nil: one range, or a resumed job's, whose ranges are its checkpoint's).
type plannedRead struct {
	readSpec
	bounds []source.KeyBound
}

// splitReads is the job's reads (planReads), each with its key range
// boundaries in the snapshot r reads (source's KeyBoundaries) when a new
// job splits them (--ranges N).
func splitReads(ctx context.Context, o Options, r source.Reader, tr *tracker) ([]plannedRead, error) {
	reads, err := planReads(ctx, o, r, tr)
	if err != nil {
		return nil, err
	}
	fresh := tr == nil || !tr.resumed
	out := make([]plannedRead, len(reads))
	for i, rd := range reads {
		out[i].readSpec = rd
		if o.Ranges > 1 && fresh { // an entity with embeds too: its child rows are read by the same bounds
			t, where := rd.table()
			if out[i].bounds, err = r.KeyBoundaries(ctx, t, where, o.Ranges); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// newSplitPlan is the plan of the reads.
func newSplitPlan(o Options, reads []plannedRead) (*splitPlan, error) {
	p := &splitPlan{Shards: o.Shard.Count, Ranges: max(o.Ranges, 1), Mapping: o.MappingDigest}
	for _, rd := range reads {
		sr := splitRead{}
		for _, e := range rd.entities() {
			sr.Entities = append(sr.Entities, e.Name)
		}
		for _, b := range rd.bounds {
			kv, err := encodeKey(b)
			if err != nil {
				return nil, fmt.Errorf("migrate: the split of %s: %w", sr.Entities[0], err)
			}
			sr.Bounds = append(sr.Bounds, kv)
		}
		p.Reads = append(p.Reads, sr)
	}
	return p, nil
}

// encode is the plan's canonical JSON (its fields in a fixed order, no
// maps) and its digest, the hex SHA-256 of that JSON.
func (p *splitPlan) encode() ([]byte, string) {
	b, _ := json.Marshal(p) // strings and numbers only
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

// optionsDiffer names what a shard was given differently from the plan's
// shards: n, --ranges, the mapping file.
func (p *splitPlan) optionsDiffer(shards, ranges int, mappingDigest string) []string {
	var diffs []string
	if p.Shards != shards {
		diffs = append(diffs, fmt.Sprintf("it is of %d shards, this shard of %d", p.Shards, shards))
	}
	if p.Ranges != ranges {
		diffs = append(diffs, fmt.Sprintf("it was made with --ranges %d, this shard with --ranges %d", p.Ranges, ranges))
	}
	if p.Mapping != mappingDigest {
		diffs = append(diffs, fmt.Sprintf("it was made with another mapping file (digest %s, this shard's %s)", short(p.Mapping), short(mappingDigest)))
	}
	return diffs
}

// adopt replaces the reads' boundaries by the plan's. The plan must have
// the same reads, of the same entities, in the same order.
func adopt(reads []plannedRead, p *splitPlan) error {
	if len(reads) != len(p.Reads) {
		return fmt.Errorf("it has %d reads, this shard %d", len(p.Reads), len(reads))
	}
	bounds := make([][]source.KeyBound, len(reads))
	for i, rd := range reads {
		var names []string
		for _, e := range rd.entities() {
			names = append(names, e.Name)
		}
		if !slices.Equal(names, p.Reads[i].Entities) {
			return fmt.Errorf("its read %d is of %s, this shard's of %s", i+1, strings.Join(p.Reads[i].Entities, ", "), strings.Join(names, ", "))
		}
		for _, kv := range p.Reads[i].Bounds {
			b, err := decodeKey(kv)
			if err != nil {
				return fmt.Errorf("a boundary of %s: %w", names[0], err)
			}
			bounds[i] = append(bounds[i], b)
		}
	}
	for i := range reads {
		reads[i].bounds = bounds[i]
	}
	return nil
}

// recordedSplit is the split plan item.
type recordedSplit struct {
	digest, by string
	job        string // --job; "": not named
	shards     int
	ranges     int
	mapping    string
	plan       *splitPlan // nil: recorded by its digest alone
	done       []string
}

func readRecordedSplit(it map[string]types.AttributeValue) (*recordedSplit, error) {
	s := func(name string) string { return attrText(it, name, "") }
	r := &recordedSplit{digest: s(splitDigestAttr), by: s(splitByAttr), mapping: s(splitMappingAttr), job: s(splitJobAttr)}
	r.shards, _ = strconv.Atoi(s(splitShardsAttr))
	r.ranges, _ = strconv.Atoi(s(splitRangesAttr))
	if ns, ok := it[splitDoneAttr].(*types.AttributeValueMemberNS); ok {
		r.done = ns.Value
	}
	if body := s(splitPlanAttr); body != "" {
		var p splitPlan
		if err := json.Unmarshal([]byte(body), &p); err != nil {
			return nil, fmt.Errorf("its plan cannot be read: %w", err)
		}
		if _, d := p.encode(); d != r.digest {
			return nil, fmt.Errorf("its plan's digest is %s, not the %s it names", short(d), short(r.digest))
		}
		r.plan = &p
	}
	if r.digest == "" || r.shards < 1 {
		return nil, errors.New("it names no digest or no number of shards")
	}
	return r, nil
}

func (r *recordedSplit) String() string {
	return fmt.Sprintf("split plan %s%s of %d shards with --ranges %d, recorded by %s", short(r.digest), ofJob(r.job), r.shards, r.ranges, r.by)
}

// splitItem is the table's split plan item for plan p.
func splitItem(o Options, p *splitPlan, body []byte, digest string) mapping.Item {
	self := process.Self()
	item := o.Plan.Table.SplitPlanKey()
	item[splitDigestAttr] = &types.AttributeValueMemberS{Value: digest}
	item[splitShardsAttr] = &types.AttributeValueMemberN{Value: strconv.Itoa(p.Shards)}
	item[splitRangesAttr] = &types.AttributeValueMemberN{Value: strconv.Itoa(p.Ranges)}
	item[splitMappingAttr] = &types.AttributeValueMemberS{Value: p.Mapping}
	if o.Job != "" {
		item[splitJobAttr] = &types.AttributeValueMemberS{Value: o.Job}
	}
	item[splitByAttr] = &types.AttributeValueMemberS{Value: fmt.Sprintf("shard %s on host %s (pid %d) at %s", o.Shard, self.Host, self.PID, time.Now().UTC().Format(time.RFC3339))}
	if body != nil && len(body) <= maxSplitPlanBytes { // nil: recorded again by a resumed shard, by its digest
		item[splitPlanAttr] = &types.AttributeValueMemberS{Value: string(body)}
	}
	return item
}

// agreeSplit makes this shard's reads the job's split (the table's split
// plan item: the comment above) and returns the plan's digest. It is
// called after the shard took its lock and before it writes any item.
func agreeSplit(ctx context.Context, o Options, rep *Report, reads []plannedRead) (string, error) {
	mine, err := newSplitPlan(o, reads)
	if err != nil {
		return "", err
	}
	body, digest := mine.encode()
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	t := &o.Plan.Table
	what := "shard " + o.Shard.String() + " of table " + o.Table
	for range 3 {
		err := recordPlan(ctx, o, splitItem(o, mine, body, digest))
		var cf *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			if len(body) > maxSplitPlanBytes {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("the split plan (%d bytes) is too large for an item: the table's split plan item holds its digest %s alone, and a shard whose snapshot gives other key ranges is refused instead of adopting these", len(body), short(digest)))
			}
			return digest, nil
		case !errors.As(err, &cf):
			return "", fmt.Errorf("migrate: %s: recording the split plan item: %w", what, err)
		}
		got, err := o.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(o.Table), Key: t.SplitPlanKey(), ConsistentRead: aws.Bool(true)}, call)
		if err != nil {
			return "", fmt.Errorf("migrate: %s: reading the split plan item: %w", what, err)
		}
		if got.Item == nil {
			continue // removed in between: put ours
		}
		rec, err := readRecordedSplit(got.Item)
		if err != nil {
			return "", fmt.Errorf("migrate: %s: the split plan item (key %s) is damaged: %w; delete it and run every shard of the job again", what, t.KeyString(t.SplitPlanKey()), err)
		}
		diffs := (&splitPlan{Shards: rec.shards, Ranges: rec.ranges, Mapping: rec.mapping}).optionsDiffer(mine.Shards, mine.Ranges, mine.Mapping)
		if rec.job != o.Job { // another job's plan is never adopted, even one of the same options
			diffs = append(diffs, fmt.Sprintf("it is of %s, this shard of %s", s3out.JobName(rec.job), s3out.JobName(o.Job)))
		}
		switch {
		case len(diffs) > 0:
		case rec.digest == digest:
			return digest, notDone(ctx, o, rec.digest)
		case rec.plan == nil:
			diffs = append(diffs, fmt.Sprintf("its key ranges differ from this shard's (digest %s): the source changed between the shards' snapshots, and the item records the plan by its digest alone (too large for an item, or recorded again by a resumed shard), so this shard cannot read the same ranges", short(digest)))
		default:
			if aerr := adopt(reads, rec.plan); aerr != nil {
				diffs = append(diffs, "its reads are not this shard's: "+aerr.Error())
				break
			}
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the key ranges of this shard's snapshot differ from the %s (the source changed between the snapshots): this shard reads the recorded ranges, so that every row is read by one shard of the job", rec))
			return rec.digest, notDone(ctx, o, rec.digest)
		}
		inUse, err := splitInUse(ctx, o, rec)
		if err != nil {
			return "", fmt.Errorf("migrate: %s: %w", what, err)
		}
		if inUse != "" {
			return "", fmt.Errorf("migrate: %s: the job's %s, does not fit this shard: %s; and that plan is in use: %s. Refusing to read a split of its own: rows would be read by two shards or by none. Give every shard of a job the same mapping, --ranges, n and --job; if that job is abandoned, delete its split plan item (key %s) and start again",
				what, rec, strings.Join(diffs, "; "), inUse, t.KeyString(t.SplitPlanKey()))
		}
		// No shard of the recorded plan finished or runs: a new job replaces it.
		cond, names, values := planIs(rec.digest, rec.job)
		_, err = o.DB.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(o.Table), Item: splitItem(o, mine, body, digest),
			ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		}, call)
		switch {
		case err == nil:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("replaced the %s: no shard of it finished or runs (%s)", rec, strings.Join(diffs, "; ")))
			return digest, nil
		case !errors.As(err, &cf):
			return "", fmt.Errorf("migrate: %s: replacing the split plan item: %w", what, err)
		}
	}
	return "", fmt.Errorf("migrate: %s: could not agree on the split plan: its item keeps changing", what)
}

// recordPlan puts the split plan item, unless the table holds one (a
// types.ConditionalCheckFailedException then).
func recordPlan(ctx context.Context, o Options, item mapping.Item) error {
	_, err := o.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(o.Table), Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": o.Plan.Table.PK.Name},
	}, dynamo.AttemptTimeout(o.RequestTimeout))
	return err
}

// notDone takes this shard out of the plan's finished shards: it runs
// again (a new job of the same split, or a second run of the shard).
func notDone(ctx context.Context, o Options, digest string) error {
	cond, names, values := planIs(digest, o.Job)
	names["#done"] = splitDoneAttr
	values[":i"] = &types.AttributeValueMemberNS{Value: []string{strconv.Itoa(o.Shard.Index)}}
	_, err := o.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(o.Table), Key: o.Plan.Table.SplitPlanKey(),
		UpdateExpression:    aws.String("DELETE #done :i"),
		ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	}, dynamo.AttemptTimeout(o.RequestTimeout))
	var cf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &cf) {
		return fmt.Errorf("migrate: shard %s of table %s: updating the split plan item: %w", o.Shard, o.Table, err)
	}
	return nil
}

// splitInUse says why the recorded plan is in use ("" if it is not): a
// shard finished with it, or a shard of its n and its --job (this one's own
// lock left out) holds a lock item whose heartbeat is younger than
// LockStale. Without --job, the shards of a new job that start at once
// cannot be told from the plan's: their locks count.
func splitInUse(ctx context.Context, o Options, rec *recordedSplit) (string, error) {
	if len(rec.done) > 0 {
		done := slices.Clone(rec.done)
		slices.SortFunc(done, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
		return fmt.Sprintf("shard %s/%d finished with it", strings.Join(done, ", "), rec.shards), nil
	}
	t := &o.Plan.Table
	var keys []mapping.Item
	for i := 1; i <= rec.shards; i++ {
		if rec.shards != o.Shard.Count || i != o.Shard.Index {
			keys = append(keys, t.ShardLockKey(i, rec.shards))
		}
	}
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	stale := time.Now().Add(-o.LockStale)
	began := time.Now()
	for len(keys) > 0 {
		n := min(len(keys), 100)
		req := map[string]types.KeysAndAttributes{o.Table: {Keys: keys[:n], ConsistentRead: aws.Bool(true)}}
		keys = keys[n:]
		for tries := 0; len(req) > 0; tries++ {
			if tries > 0 {
				if o.Backoff.GiveUp(tries, time.Since(began)) {
					return "", errors.New("reading the shards' lock items: DynamoDB left keys unprocessed until the retries' deadline")
				}
				if err := backoff.Sleep(ctx, o.Backoff.Delay(tries)); err != nil {
					return "", fmt.Errorf("reading the shards' lock items: %w", err)
				}
			}
			out, err := o.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req}, call)
			if err != nil {
				return "", fmt.Errorf("reading the shards' lock items: %w", err)
			}
			for _, it := range out.Responses[o.Table] {
				// A lock of another --job is a shard of another job (this
				// one's siblings, starting with it), not of the plan's.
				if h := readHolder(it); h.heartbeat.After(stale) && h.job == rec.job {
					return fmt.Sprintf("a shard of it holds its lock: %s", h), nil
				}
			}
			req = out.UnprocessedKeys
		}
	}
	return "", nil
}

// shardSplit is where a shard's reads meet the job's split plan in the
// table: a new shard agrees on it (agreeSplit: reads may take the recorded
// boundaries) and its checkpoint names it; a resumed shard reads its
// checkpoint's, which startCheckpoint checked is still the job's
// (checkResumedSplit) before it saved the checkpoint again. It returns the
// plan's digest.
func shardSplit(ctx context.Context, o Options, rep *Report, reads []plannedRead, tr *tracker) (string, error) {
	if tr != nil && tr.resumed {
		return tr.file.SplitDigest, nil
	}
	digest, err := agreeSplit(ctx, o, rep, reads)
	if err != nil {
		return "", err
	}
	tr.setSplitDigest(digest, max(o.Ranges, 1))
	return digest, nil
}

// s3SplitDigest is the digest of a shard's split plan for its manifest
// (--to: no table to record it in): its own, or a resumed shard's
// checkpoint's.
func s3SplitDigest(o Options, reads []plannedRead, tr *tracker) (string, error) {
	if tr != nil && tr.resumed {
		return tr.file.SplitDigest, nil
	}
	p, err := newSplitPlan(o, reads)
	if err != nil {
		return "", err
	}
	_, digest := p.encode()
	tr.setSplitDigest(digest, p.Ranges)
	return digest, nil
}

// setSplitDigest names the job's split plan, and its --ranges, in the
// checkpoint.
func (tr *tracker) setSplitDigest(digest string, ranges int) {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.file.SplitDigest, tr.file.SplitRanges = digest, ranges
}

// checkResumedSplit refuses a resumed shard whose checkpoint's ranges are
// not of the job's recorded split plan (digest: the checkpoint's; "" for a
// checkpoint written before plans were recorded: not checked), or whose
// --job is not the plan's. When the item is gone (deleted by hand), it
// records the plan again by its digest alone (ranges: the job's --ranges),
// so that a shard of the job started later reads the same ranges or is
// refused, and the shards' ends are counted in it.
func checkResumedSplit(ctx context.Context, o Options, rep *Report, digest string, ranges int) error {
	if digest == "" {
		return nil
	}
	t := &o.Plan.Table
	what := "shard " + o.Shard.String() + " of table " + o.Table
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	var got *dynamodb.GetItemOutput
	for again := true; ; again = false {
		var err error
		if got, err = o.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(o.Table), Key: t.SplitPlanKey(), ConsistentRead: aws.Bool(true)}, call); err != nil {
			return fmt.Errorf("migrate: --resume: %s: reading the split plan item: %w", what, err)
		}
		if got.Item != nil {
			break
		}
		if ranges < 1 || !again {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the job's split plan item is gone from table %s: this shard reads its checkpoint's key ranges (split plan %s), which no recorded plan can confirm; shards started from now on make a plan of their own", o.Table, short(digest)))
			return nil
		}
		p := &splitPlan{Shards: o.Shard.Count, Ranges: ranges, Mapping: o.MappingDigest}
		err = recordPlan(ctx, o, splitItem(o, p, nil, digest))
		var cf *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the job's split plan item was gone from table %s: this shard recorded its plan %s again, by its digest alone, so that a shard of the job started from now on reads the same key ranges or is refused", o.Table, short(digest)))
			return nil
		case !errors.As(err, &cf):
			return fmt.Errorf("migrate: --resume: %s: recording the split plan item again: %w", what, err)
		}
		// Recorded by another shard in between: compare with it.
	}
	rec, err := readRecordedSplit(got.Item)
	if err != nil {
		return fmt.Errorf("migrate: --resume: %s: the split plan item (key %s) is damaged: %w", what, t.KeyString(t.SplitPlanKey()), err)
	}
	if rec.digest != digest {
		return fmt.Errorf("migrate: --resume: %s: the checkpoint's key ranges are of split plan %s, but the table's is the %s: another job replaced the plan since, and this shard's ranges do not fit its shards'. Start the job over", what, short(digest), rec)
	}
	if rec.job != o.Job {
		// The same ranges, but another job's plan: this shard's end would
		// count as one of that job's shards' in it.
		return fmt.Errorf("migrate: --resume: %s: the table's %s is of another job than this shard's (%s): another job replaced the plan since, and this shard's end would count as one of its shards'. Start this job over; or, if that job is abandoned, delete its split plan item (key %s) and resume: this shard then records its own plan again", what, rec, s3out.JobName(o.Job), t.KeyString(t.SplitPlanKey()))
	}
	return nil
}

// planIs is the condition that the split plan item is the plan of that
// digest and --job ("": of none), with its names and values: a shard
// updates or replaces only the plan it read.
func planIs(digest, job string) (string, map[string]string, map[string]types.AttributeValue) {
	names := map[string]string{"#d": splitDigestAttr, "#j": splitJobAttr}
	values := map[string]types.AttributeValue{":d": &types.AttributeValueMemberS{Value: digest}}
	if job == "" {
		return "#d = :d AND attribute_not_exists(#j)", names, values
	}
	values[":j"] = &types.AttributeValueMemberS{Value: job}
	return "#d = :d AND #j = :j", names, values
}

// splitDone marks this shard done in the split plan item; the shard that
// completes the n removes the item. It returns a warning when the item
// could not be updated (the job's items are written all the same).
func splitDone(ctx context.Context, o Options, digest string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DefaultRequestTimeout)
	defer cancel()
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	cond, names, values := planIs(digest, o.Job)
	names["#done"] = splitDoneAttr
	values[":i"] = &types.AttributeValueMemberNS{Value: []string{strconv.Itoa(o.Shard.Index)}}
	out, err := o.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(o.Table), Key: o.Plan.Table.SplitPlanKey(),
		UpdateExpression:    aws.String("ADD #done :i"),
		ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllNew,
	}, call)
	var cf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &cf):
		return fmt.Sprintf("the split plan item of table %s is gone or of another plan or job than this shard's (%s): this shard's end was not recorded in it", o.Table, short(digest))
	case err != nil:
		return fmt.Sprintf("could not record this shard's end in the split plan item of table %s (%v): the item stays when the last shard ends; delete it (key %s) once every shard is done", o.Table, err, o.Plan.Table.KeyString(o.Plan.Table.SplitPlanKey()))
	}
	ns, _ := out.Attributes[splitDoneAttr].(*types.AttributeValueMemberNS)
	if ns == nil || len(ns.Value) < o.Shard.Count {
		return ""
	}
	cond, names, values = planIs(digest, o.Job)
	names["#done"] = splitDoneAttr
	values[":n"] = &types.AttributeValueMemberN{Value: strconv.Itoa(o.Shard.Count)}
	_, err = o.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(o.Table), Key: o.Plan.Table.SplitPlanKey(),
		ConditionExpression: aws.String(cond + " AND size(#done) >= :n"), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	}, call)
	if err != nil && !errors.As(err, &cf) {
		return fmt.Sprintf("every shard is done, but the split plan item of table %s could not be removed (%v): delete it (key %s)", o.Table, err, o.Plan.Table.KeyString(o.Plan.Table.SplitPlanKey()))
	}
	return ""
}
