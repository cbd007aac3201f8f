package migrate

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/mapping"
)

// --bulk-put: once the objects and the manifest are written, DynamoDB
// loads them into a table that already exists (StartBulkPutItems), which,
// unlike ImportTable, keeps the table's local indexes and its items. remodel
// waits for the operation (DescribeBulkOperation, every importPoll), reads
// its error report back from S3 and records every item it refused as a
// rejected row, with its key and the reason (never dropped), cancels it on
// a signal (CancelBulkOperation), and records its client token and ARN in
// the checkpoint before and after it starts, so that a run killed while it
// runs finds it again on --resume instead of starting a second one.
// StartBulkPutItems cannot run against DynamoDB Local: the tests check it
// against a stand-in of the API (s3bulk_test.go).

// MinBulkWriteUnits is the least MaxWriteRequestUnits StartBulkPutItems
// takes.
const MinBulkWriteUnits = 1024

// BulkPut is how migrate --to loads its objects into an existing table.
type BulkPut struct {
	// Tier is the PerformanceTier: "standard" (the default) or
	// "accelerated".
	Tier string
	// units is MaxWriteRequestUnits: the run's --rate-limit (0: none).
	units int64
}

type bulkKey struct{}

// WithBulkPut has the S3 route of Run (Options.To) load its objects into
// the existing table Options.Table with StartBulkPutItems (--bulk-put).
// Options.RateLimit becomes its MaxWriteRequestUnits, and the copy into
// the objects is not rate limited. (The setting rides on the context
// until Options, in pipeline.go, gets a field for it.)
func WithBulkPut(ctx context.Context, b BulkPut) context.Context {
	return context.WithValue(ctx, bulkKey{}, &b)
}

// bulkPutOf is the run's bulk put, or nil.
func bulkPutOf(ctx context.Context) *BulkPut {
	b, _ := ctx.Value(bulkKey{}).(*BulkPut)
	if b == nil {
		return nil
	}
	c := *b
	return &c
}

// BulkReport is what the bulk put did.
type BulkReport struct {
	ARN         string `json:"arn"`
	ClientToken string `json:"client_token"`
	Status      string `json:"status"`
	Tier        string `json:"performance_tier"`
	// MaxWriteUnits is MaxWriteRequestUnits (0: not limited).
	MaxWriteUnits  int64  `json:"max_write_request_units,omitempty"`
	ProcessedItems int64  `json:"processed_items"`
	FailedItems    int64  `json:"failed_items"`
	ProcessedBytes int64  `json:"processed_input_bytes"`
	TotalBytes     int64  `json:"total_input_bytes,omitempty"`
	Failure        string `json:"failure,omitempty"`
	// ErrorReport is where DynamoDB writes the items it refused (beside
	// the prefix, never under it).
	ErrorReport string `json:"error_report"`
	// Rejected is the refused items recorded as rejected rows.
	Rejected int64 `json:"rejected"`
	// Attached says the operation was started by an earlier run of the
	// job (found again by its ARN or client token), not this one.
	Attached bool `json:"attached,omitempty"`
	// Attempt counts the operations the job started (one, unless an
	// earlier one was cancelled or failed).
	Attempt int `json:"attempt"`
	// Cancelled says this run cancelled it (a signal).
	Cancelled bool `json:"cancelled,omitempty"`
}

// bulkState is the bulk put of a job as its checkpoint records it: the
// client token before StartBulkPutItems is called, the ARN once it answers.
type bulkState struct {
	Token   string `json:"client_token"`
	ARN     string `json:"arn,omitempty"`
	Attempt int    `json:"attempt"`
	Table   string `json:"table"`
}

// refuseBulk refuses what a bulk put cannot do, before anything is written.
func refuseBulk(o Options, b *BulkPut) error {
	switch {
	case o.Import:
		return errors.New("migrate: --bulk-put and --import are two ways to load the objects: --import creates a new table (ImportTable), --bulk-put writes into an existing one (StartBulkPutItems); give one")
	case o.Shard.Sharded() || o.ShardsDone > 0:
		return errors.New("migrate: --bulk-put does not go with --shard or --shards-done yet: bulk put the objects of one unsharded run")
	case o.To != nil && o.To.Dir:
		return fmt.Errorf("migrate: --bulk-put does not go with a local directory (--to %s): StartBulkPutItems reads its objects from S3", o.To)
	case o.RateLimit > 0 && o.RateLimit < MinBulkWriteUnits:
		return fmt.Errorf("migrate: --rate-limit %d with --bulk-put: the rate limit becomes the bulk put's MaxWriteRequestUnits, which DynamoDB takes from %d write units a second up; give --rate-limit %d or more, or none", o.RateLimit, MinBulkWriteUnits, MinBulkWriteUnits)
	}
	switch strings.ToLower(b.Tier) {
	case "", "standard", "accelerated":
	default:
		return fmt.Errorf("migrate: --bulk-tier %q: standard or accelerated", b.Tier)
	}
	return nil
}

// checkBulkTable makes sure, before anything is written, that the table
// exists with the mapping's keys and indexes, and that it is empty unless
// --allow-non-empty.
func checkBulkTable(ctx context.Context, o Options) error {
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	if err := CheckTable(ctx, o.DB, &o.Plan.Table, o.Table, call); err != nil {
		if strings.Contains(err.Error(), "does not exist") {
			return fmt.Errorf("migrate: --bulk-put: table %s does not exist: StartBulkPutItems writes into an existing table (create it with remodel migrate --create-table's definition first, or use --import, which creates it)", o.Table)
		}
		return err
	}
	if o.AllowNonEmpty || o.Resume {
		return nil
	}
	empty, err := IsEmpty(ctx, o.DB, &o.Plan.Table, o.Table, call)
	if err != nil {
		return err
	}
	if !empty {
		return fmt.Errorf("migrate: --bulk-put: table %s is not empty: the bulk put replaces items of the same key and leaves the others; add --allow-non-empty to write into it anyway", o.Table)
	}
	return nil
}

// bulkOutputPrefix is where the bulk put's error report goes: beside the
// prefix (StartBulkPutItems reads every object under it), one folder per
// operation.
func bulkOutputPrefix(loc s3out.Location, token string) string {
	return loc.ManifestsPrefix() + "remodel-bulk-report/" + token + "/"
}

// bulkToken is the client token of the job's attempt-th bulk put: from
// the objects and the table (the same objects into the same table, the
// same operation), and the attempt (a cancelled operation's token names it
// for 8 hours: the next one needs its own).
func bulkToken(manifest []byte, table string, attempt int) string {
	sum := sha256.Sum256(fmt.Appendf(slices.Clone(manifest), "\x00bulk-put\x00%s\x00%d", table, attempt))
	return hex.EncodeToString(sum[:16])
}

// bulkRequest is the StartBulkPutItems request for the job's objects.
func bulkRequest(o Options, b *BulkPut, token string) *dynamodb.StartBulkPutItemsInput {
	in := &dynamodb.StartBulkPutItemsInput{
		ClientToken: aws.String(token),
		TableName:   aws.String(o.Table),
		InputS3Configuration: &types.InputS3Configuration{
			S3Bucket: aws.String(o.To.Bucket), S3KeyPrefix: aws.String(o.To.Prefix),
			InputFormat:          types.BulkOperationInputFormatDynamodbJson,
			InputCompressionType: types.InputCompressionType(o.Compression.ImportType()),
		},
		OutputS3Configuration: &types.OutputS3Configuration{
			S3Bucket: aws.String(o.To.Bucket), S3KeyPrefix: aws.String(bulkOutputPrefix(*o.To, token)),
			OutputType: []types.OutputTypeEnum{types.OutputTypeEnumError},
		},
		PerformanceTier: types.BulkOperationPerformanceTierStandard,
	}
	if strings.EqualFold(b.Tier, "accelerated") {
		in.PerformanceTier = types.BulkOperationPerformanceTierAccelerated
	}
	if b.units > 0 {
		in.MaxWriteRequestUnits = aws.Int64(b.units)
	}
	return in
}

// setBulk records the bulk put in the checkpoint and saves it (nothing
// without a checkpoint).
func (tr *tracker) setBulk(st *bulkState) error {
	if tr == nil || tr.file.S3 == nil {
		return nil
	}
	tr.mu.Lock()
	tr.file.S3.Bulk = st
	tr.mu.Unlock()
	return tr.save()
}

// bulkEarlier is the bulk put an interrupted run of the job recorded.
func (tr *tracker) bulkEarlier() *bulkState {
	if tr == nil || !tr.resumed || tr.file.S3 == nil || tr.file.S3.Bulk == nil {
		return nil
	}
	st := *tr.file.S3.Bulk
	return &st
}

func bulkDone(s types.BulkOperationStatus) bool {
	switch s {
	case types.BulkOperationStatusCompleted, types.BulkOperationStatusCompletedWithErrors, types.BulkOperationStatusFailed, types.BulkOperationStatusCancelled:
		return true
	}
	return false
}

// bulkPut loads the objects of rep.S3 into the table and waits for it.
func bulkPut(ctx context.Context, o Options, rep *Report, tr *tracker, c *counters, rej *rejects, b *BulkPut) error {
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	br := &BulkReport{Tier: "STANDARD", MaxWriteUnits: b.units, Attempt: 1}
	if strings.EqualFold(b.Tier, "accelerated") {
		br.Tier = "ACCELERATED"
	}
	rep.S3.Bulk = br
	var d *types.BulkOperationDescription
	if st := tr.bulkEarlier(); st != nil && st.Table == o.Table {
		br.Attempt = st.Attempt
		if st.ARN != "" {
			got, err := o.DB.DescribeBulkOperation(ctx, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String(st.ARN)}, call)
			var nf *types.ResourceNotFoundException
			switch {
			case errors.As(err, &nf):
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("the bulk put %s the checkpoint names is not known to DynamoDB any more: starting another", st.ARN))
				br.Attempt++
			case err != nil:
				return fmt.Errorf("migrate: --bulk-put: DescribeBulkOperation %s (the checkpoint's): %w", st.ARN, err)
			case got.BulkOperationDescription == nil:
				return fmt.Errorf("migrate: --bulk-put: DescribeBulkOperation %s described nothing", st.ARN)
			default:
				d = got.BulkOperationDescription
				switch d.BulkOperationStatus {
				case types.BulkOperationStatusCancelled, types.BulkOperationStatusCancelling, types.BulkOperationStatusFailed:
					// Going on means loading the objects again: a put
					// replaces an item, so a second operation is harmless.
					rep.Warnings = append(rep.Warnings, fmt.Sprintf("the bulk put %s of an earlier run ended %s%s: starting another (items it wrote are written again, replaced)", st.ARN, d.BulkOperationStatus, failureOf(d)))
					d = nil
					br.Attempt++
				default:
					br.Attached = true
				}
			}
		}
		// A token without an ARN: the earlier run was stopped before
		// StartBulkPutItems answered; the same token gives the same
		// operation (for 8 hours), or starts it if it never started.
	}
	if d == nil {
		token := bulkToken(rep.S3.manifest, o.Table, br.Attempt)
		if err := tr.setBulk(&bulkState{Token: token, Attempt: br.Attempt, Table: o.Table}); err != nil {
			return err
		}
		// One attempt: a retried StartBulkPutItems is the same operation
		// (its ClientToken), but a lost answer is only told apart from a
		// refusal by asking again, which a resumed run does.
		out, err := o.DB.StartBulkPutItems(ctx, bulkRequest(o, b, token), call)
		if err != nil {
			return fmt.Errorf("migrate: --bulk-put: StartBulkPutItems: %w", err)
		}
		if d = out.BulkOperationDescription; d == nil || d.BulkOperationArn == nil {
			return errors.New("migrate: --bulk-put: StartBulkPutItems did not name the operation")
		}
		br.Attached = br.Attached || d.StartTime != nil && d.StartTime.Before(rep.Started)
	}
	br.ARN = aws.ToString(d.BulkOperationArn)
	br.ClientToken = aws.ToString(d.ClientToken)
	if br.ClientToken == "" {
		br.ClientToken = bulkToken(rep.S3.manifest, o.Table, br.Attempt)
	}
	out := bulkOutputPrefix(*o.To, br.ClientToken)
	if d.OutputS3Configuration != nil && d.OutputS3Configuration.S3KeyPrefix != nil {
		out = *d.OutputS3Configuration.S3KeyPrefix
	}
	br.ErrorReport = o.To.URL(out)
	if err := tr.setBulk(&bulkState{Token: br.ClientToken, ARN: br.ARN, Attempt: br.Attempt, Table: o.Table}); err != nil {
		return err
	}
	d, err := waitBulk(ctx, o, rep, br, d)
	if err != nil {
		return err
	}
	switch d.BulkOperationStatus {
	case types.BulkOperationStatusFailed, types.BulkOperationStatusCancelled:
		return fmt.Errorf("migrate: --bulk-put: bulk put %s ended %s%s (%d items processed, %d failed): the table holds what it wrote; migrate --resume with the checkpoint starts another", br.ARN, d.BulkOperationStatus, failureOf(d), br.ProcessedItems, br.FailedItems)
	}
	if br.FailedItems > 0 || d.BulkOperationStatus == types.BulkOperationStatusCompletedWithErrors {
		n, err := bulkRejects(ctx, o, c, rej, out)
		br.Rejected = n
		if err != nil {
			return err
		}
		if n != br.FailedItems {
			return fmt.Errorf("migrate: --bulk-put: bulk put %s failed %d items, but its error report %s names %d: the others are not known; the rejects file holds those it names", br.ARN, br.FailedItems, br.ErrorReport, n)
		}
	}
	if br.ProcessedItems != rep.S3.items {
		return fmt.Errorf("migrate: --bulk-put: bulk put %s processed %d items, but the objects hold %d", br.ARN, br.ProcessedItems, rep.S3.items)
	}
	return nil
}

// failureOf is the failure a description gives, for messages.
func failureOf(d *types.BulkOperationDescription) string {
	if d.FailureCode == nil && d.FailureMessage == nil {
		return ""
	}
	return ": " + aws.ToString(d.FailureCode) + ": " + aws.ToString(d.FailureMessage)
}

// describe takes DescribeBulkOperation's counts.
func (br *BulkReport) describe(d *types.BulkOperationDescription) {
	br.Status = string(d.BulkOperationStatus)
	br.ProcessedItems = d.ProcessedItemCount
	br.FailedItems = d.FailedItemCount
	br.ProcessedBytes = aws.ToInt64(d.ProcessedInputBytes)
	br.TotalBytes = aws.ToInt64(d.TotalInputBytes)
	if d.FailureCode != nil || d.FailureMessage != nil {
		br.Failure = aws.ToString(d.FailureCode) + ": " + aws.ToString(d.FailureMessage)
	}
}

// waitBulk asks for the operation's progress until it ends. A signal
// (ctx done) cancels it; a wait longer than --import-timeout leaves it
// running, and says how to find it.
func waitBulk(ctx context.Context, o Options, rep *Report, br *BulkReport, d *types.BulkOperationDescription) (*types.BulkOperationDescription, error) {
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	timeout := o.ImportTimeout
	if timeout <= 0 {
		timeout = DefaultImportTimeout
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var processed atomic.Int64
	var phase *progress.Phase
	if o.Progress != nil {
		phase = o.Progress.Phase("bulk put", "items", []progress.Task{{Name: "StartBulkPutItems", Total: rep.S3.items, Exact: true, Count: processed.Load}})
	}
	for {
		br.describe(d)
		processed.Store(br.ProcessedItems)
		if bulkDone(d.BulkOperationStatus) {
			phase.End(d.BulkOperationStatus == types.BulkOperationStatusCompleted)
			return d, nil
		}
		select {
		case <-wctx.Done():
			phase.End(false)
			if ctx.Err() != nil {
				return nil, cancelBulk(o, br)
			}
			return nil, fmt.Errorf("migrate: --bulk-put: bulk put %s is still %s after %s (%d of %d items processed); it goes on: aws dynamodb describe-bulk-operation --bulk-operation-arn %s; migrate --resume with the checkpoint waits for it again (never starts a second)", br.ARN, br.Status, timeout, br.ProcessedItems, rep.S3.items, br.ARN)
		case <-time.After(importPoll):
		}
		got, err := o.DB.DescribeBulkOperation(wctx, &dynamodb.DescribeBulkOperationInput{BulkOperationArn: aws.String(br.ARN)}, call)
		if err != nil {
			if ctx.Err() != nil {
				phase.End(false)
				return nil, cancelBulk(o, br)
			}
			if wctx.Err() != nil {
				continue // the timeout, said above
			}
			return nil, fmt.Errorf("migrate: --bulk-put: DescribeBulkOperation %s: %w", br.ARN, err)
		}
		if got.BulkOperationDescription != nil {
			d = got.BulkOperationDescription
		}
	}
}

// cancelBulk cancels the operation of a run stopped by a signal, and says
// what became of it.
func cancelBulk(o Options, br *BulkReport) error {
	ctx, cancel := context.WithTimeout(context.Background(), max(o.RequestTimeout, 5*time.Second))
	defer cancel()
	out, err := o.DB.CancelBulkOperation(ctx, &dynamodb.CancelBulkOperationInput{BulkOperationArn: aws.String(br.ARN)}, dynamo.AttemptTimeout(o.RequestTimeout))
	if err != nil {
		return fmt.Errorf("migrate: --bulk-put: stopped; cancelling bulk put %s: %w: it may go on (aws dynamodb describe-bulk-operation --bulk-operation-arn %s; aws dynamodb cancel-bulk-operation)", br.ARN, err, br.ARN)
	}
	br.Cancelled, br.Status = true, string(out.BulkOperationStatus)
	return fmt.Errorf("migrate: --bulk-put: stopped: bulk put %s is %s (cancelled, after %d of its items were processed; what it wrote stays in the table); migrate --resume with the checkpoint starts another: %w", br.ARN, out.BulkOperationStatus, br.ProcessedItems, context.Canceled)
}

// bulkRecord is one line of a bulk put's error report: the input item it
// refused and why. The reader takes the names of DynamoDB's report in
// either case (Item or item; ErrorCode/ErrorMessage or errorCode/
// errorMessage, or Error/Message) and an item as an object in DynamoDB
// JSON or as the input line it was read from.
type bulkRecord struct {
	Item    json.RawMessage
	Code    string
	Message string
	Object  string
	Line    int64
}

func (r *bulkRecord) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	str := func(names ...string) string {
		for _, n := range names {
			for k, v := range m {
				if strings.EqualFold(k, n) {
					var s string
					if json.Unmarshal(v, &s) == nil {
						return s
					}
					return string(v)
				}
			}
		}
		return ""
	}
	for k, v := range m {
		switch strings.ToLower(k) {
		case "item", "inputitem", "record", "inputrecord":
			r.Item = v
		case "linenumber", "line":
			json.Unmarshal(v, &r.Line)
		}
	}
	r.Code = str("ErrorCode", "Code")
	r.Message = str("ErrorMessage", "Message", "Error", "Reason")
	r.Object = str("S3Key", "Key", "InputObject", "Object")
	return nil
}

// itemOf reads the refused item of a record.
func (r *bulkRecord) itemOf() (mapping.Item, error) {
	raw := bytes.TrimSpace(r.Item)
	if len(raw) == 0 {
		return nil, errors.New("the record names no item")
	}
	if raw[0] == '"' { // the input line, as text
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = []byte(s)
		if it, err := av.ParseImportLine(append(raw, '\n')); err == nil {
			return it, nil
		}
	}
	return av.ParseImportLine(append(append([]byte(`{"Item":`), raw...), '}', '\n'))
}

// bulkRejects reads the error report under out and records every item it
// names as a rejected row: its entity and source key when the mapping
// reads the item back (the key attributes otherwise), and DynamoDB's
// reason. An error report line remodel cannot read stops the run after the
// others are recorded, naming it.
func bulkRejects(ctx context.Context, o Options, c *counters, rej *rejects, out string) (int64, error) {
	listed, err := o.S3.List(ctx, o.To.Bucket, out)
	if err != nil {
		return 0, fmt.Errorf("migrate: --bulk-put: the error report: %w", err)
	}
	var n int64
	var unread []string
	var over error
	for _, l := range listed {
		name := strings.TrimPrefix(l.Key, out)
		if strings.Contains(strings.ToLower(name), "manifest") {
			continue // the report's own manifest and summary, not records
		}
		raw, err := o.S3.Get(ctx, o.To.Bucket, l.Key)
		if err != nil {
			return n, fmt.Errorf("migrate: --bulk-put: the error report: %w", err)
		}
		var r io.Reader = bytes.NewReader(raw)
		switch {
		case bytes.HasPrefix(raw, []byte{0x1f, 0x8b}):
			r, err = s3out.Gzip.NewReader(r)
		case bytes.HasPrefix(raw, []byte{0x28, 0xb5, 0x2f, 0xfd}):
			r, err = s3out.Zstd.NewReader(r)
		}
		if err != nil {
			return n, fmt.Errorf("migrate: --bulk-put: the error report %s: %w", o.To.URL(l.Key), err)
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for line := 1; sc.Scan(); line++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			where := fmt.Sprintf("%s line %d", o.To.URL(l.Key), line)
			var rec bulkRecord
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				unread = append(unread, where+": "+err.Error())
				continue
			}
			item, err := rec.itemOf()
			if err != nil {
				unread = append(unread, where+": "+err.Error())
				continue
			}
			rj := refusedRow(o.Plan, item)
			reason := strings.TrimPrefix(strings.TrimSpace(rec.Code+": "+rec.Message), ": ")
			if reason == "" {
				reason = "refused"
			}
			rj.Reason = "refused by the bulk put (" + where + "): " + reason
			n++
			c.written.Add(-1)
			c.rejected.Add(1)
			if ec := c.perEntity[rj.Entity]; ec != nil {
				ec.written.Add(-1)
				ec.rejected.Add(1)
			}
			if err := rej.add(rj); err != nil {
				var ex *rejectsExceeded
				if !errors.As(err, &ex) {
					return n, err
				}
				over = ex // every refused item is recorded all the same
			}
		}
		if err := sc.Err(); err != nil {
			return n, fmt.Errorf("migrate: --bulk-put: reading the error report %s: %w", o.To.URL(l.Key), err)
		}
	}
	if len(unread) > 0 {
		if len(unread) > 5 {
			unread = append(unread[:5], fmt.Sprintf("and %d more", len(unread)-5))
		}
		return n, fmt.Errorf("migrate: --bulk-put: lines of the error report name no item remodel can read (%s): their items are not recorded as rejected; read them there", strings.Join(unread, "; "))
	}
	return n, over
}

// refusedRow is the rejected row of an item the bulk put refused: the
// entity the item is of and the source key the mapping reads back from it;
// an item the mapping cannot read back is named by its key attributes.
func refusedRow(p *mapping.Plan, item mapping.Item) Rejection {
	t := &p.Table
	ents := p.MatchItem(item)
	if len(ents) != 1 {
		name := "?"
		if s, ok := item[t.EntityAttr].(*types.AttributeValueMemberS); ok && t.EntityAttr != "" {
			name = s.Value
		}
		return Rejection{Entity: name, Row: "item " + t.KeyString(item)}
	}
	e := ents[0]
	row, err := e.RowOf(item)
	if err != nil {
		return Rejection{Entity: e.Name, Row: "item " + t.KeyString(item)}
	}
	return Rejection{Entity: e.Name, Row: e.SourceKey(row.Values)}
}
