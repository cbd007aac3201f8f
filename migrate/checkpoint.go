package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// DefaultCheckpointEvery is how often a run saves its checkpoint.
const DefaultCheckpointEvery = 2 * time.Second

// checkpointVersion is the version of the checkpoint file's format.
const checkpointVersion = 2

// checkpointFile is what a checkpoint file holds: whose job it is (the
// mapping's digest; the table, by name and by the ARN and creation time of
// the one the settled items are in; the source without its password, by
// address and by what the database is; the runs whose lock item --resume
// may take over: the one holding it and, for a moment while a resumed run
// takes it, the one before; the process that wrote it) and, per entity,
// the key up to which every row is settled: its item acknowledged by
// DynamoDB, or the row rejected (and in the rejects file). Checksum is the
// SHA-256 of the file written with Checksum empty: a file damaged or
// edited by hand is refused.
type checkpointFile struct {
	Version      int       `json:"version"`
	Checksum     string    `json:"checksum"`
	Mapping      string    `json:"mapping_digest"`
	Table        string    `json:"table"`
	TableARN     string    `json:"table_arn"`
	TableCreated time.Time `json:"table_created"`
	Source       string    `json:"source"`
	// SourceServer is source.ServerID's: "" where the user may not read it.
	SourceServer string `json:"source_server,omitempty"`
	Engine       string `json:"engine"`
	// Shard is "i/n" for a shard of a sharded job (--shard): Entities
	// then holds only this shard's key ranges, and an entity none of whose
	// ranges is this shard's is not in it.
	Shard string `json:"shard,omitempty"`
	// SplitDigest is the digest of the sharded job's split plan whose key
	// ranges Entities holds (splitplan.go).
	SplitDigest string `json:"split_digest,omitempty"`
	// SplitRanges is the job's --ranges, which its split plan item records
	// (0 in checkpoints written before it was kept): a resumed shard that
	// finds the item gone records it again by its digest.
	SplitRanges int `json:"split_ranges,omitempty"`
	// Job is the shard's --job ("": not named); --resume must name the same.
	Job         string             `json:"job,omitempty"`
	Owners      []string           `json:"lock_owners"`
	Host        string             `json:"host"`
	PID         int64              `json:"pid"`
	PIDStart    string             `json:"pid_start,omitempty"`
	Saved       time.Time          `json:"saved"`
	RejectsFile string             `json:"rejects_file,omitempty"`
	ItemsBefore int64              `json:"items_before"`
	Entities    []checkpointEntity `json:"entities"`
	// Follow is the change stream of a followed migration (--follow).
	Follow *followState `json:"follow,omitempty"`
	// S3 is the objects of a migration into S3 (--to, s3run.go).
	S3 *s3Checkpoint `json:"s3,omitempty"`
}

// checkpointEntity is the progress of one entity, or of one key range of
// it (--ranges): the rows after RangeAfter (nil: from the first) up to
// RangeUpTo (nil: to the last). Rows, Items and Rejected count the settled
// rows up to After, over every run of the job. Also names the other
// entities of a shared read (shared.go), read with Name by one statement,
// each with its own counts: their checkpoint is the read's, After.
type checkpointEntity struct {
	Name       string     `json:"name"`
	RangeAfter []keyValue `json:"range_after,omitempty"`
	RangeUpTo  []keyValue `json:"range_up_to,omitempty"`
	// Done: every row was read and settled.
	Done bool `json:"done"`
	// After is the key of the last settled row (nil: none yet); AfterRow
	// names it for people.
	After    []keyValue     `json:"after,omitempty"`
	AfterRow string         `json:"after_row,omitempty"`
	Rows     int64          `json:"rows"`
	Items    int64          `json:"items"`
	Rejected int64          `json:"rejected"`
	Also     []sharedEntity `json:"also,omitempty"`
}

// sharedEntity is another entity of a shared read in a checkpoint, with
// its settled rows.
type sharedEntity struct {
	Name     string `json:"name"`
	Rows     int64  `json:"rows"`
	Items    int64  `json:"items"`
	Rejected int64  `json:"rejected"`
}

// keyValue is one canonical key value, typed: i int64, s string (text,
// decimals, integers beyond int64), f float64, b bool, t time.Time
// (RFC 3339, nanoseconds), x bytes (base64).
type keyValue struct {
	T string `json:"t"`
	V string `json:"v"`
}

func encodeKey(k source.KeyBound) ([]keyValue, error) {
	out := make([]keyValue, len(k))
	for i, v := range k {
		switch x := v.(type) {
		case int64:
			out[i] = keyValue{"i", strconv.FormatInt(x, 10)}
		case string:
			out[i] = keyValue{"s", x}
		case float64:
			out[i] = keyValue{"f", strconv.FormatFloat(x, 'g', -1, 64)}
		case bool:
			out[i] = keyValue{"b", strconv.FormatBool(x)}
		case time.Time:
			out[i] = keyValue{"t", x.UTC().Format(time.RFC3339Nano)}
		case []byte:
			out[i] = keyValue{"x", base64.StdEncoding.EncodeToString(x)}
		default:
			return nil, fmt.Errorf("a key value of type %T", v)
		}
	}
	return out, nil
}

func decodeKey(kv []keyValue) (source.KeyBound, error) {
	out := make(source.KeyBound, len(kv))
	for i, v := range kv {
		var err error
		switch v.T {
		case "i":
			out[i], err = strconv.ParseInt(v.V, 10, 64)
		case "s":
			out[i] = v.V
		case "f":
			out[i], err = strconv.ParseFloat(v.V, 64)
		case "b":
			out[i], err = strconv.ParseBool(v.V)
		case "t":
			out[i], err = time.Parse(time.RFC3339Nano, v.V)
		case "x":
			out[i], err = base64.StdEncoding.DecodeString(v.V)
		default:
			err = fmt.Errorf("unknown type %q", v.T)
		}
		if err != nil {
			return nil, fmt.Errorf("key value %d (%q): %w", i+1, v.V, err)
		}
	}
	return out, nil
}

// errCheckpointDamaged is a checkpoint whose checksum does not match.
var errCheckpointDamaged = errors.New("damaged or was edited: its checksum does not match its contents")

// readCheckpoint reads a checkpoint file and checks its format version and
// its checksum (an error wrapping errCheckpointDamaged when it does not
// match; fs.ErrNotExist when there is no file).
func readCheckpoint(path string) (*checkpointFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading checkpoint %s: %w", path, err)
	}
	var ck checkpointFile
	if err := json.Unmarshal(b, &ck); err != nil {
		return nil, fmt.Errorf("checkpoint %s is not a remodel checkpoint: %w", path, err)
	}
	if ck.Version != checkpointVersion {
		return nil, fmt.Errorf("checkpoint %s has format version %d; this remodel reads version %d", path, ck.Version, checkpointVersion)
	}
	if sum, err := ck.checksum(); err != nil || sum != ck.Checksum {
		return nil, fmt.Errorf("checkpoint %s is %w", path, errCheckpointDamaged)
	}
	return &ck, nil
}

// checksum is the SHA-256 of the file as save writes it, with Checksum
// empty.
func (f checkpointFile) checksum() (string, error) {
	f.Checksum = ""
	b, err := f.encode()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// encode is the file's text.
func (f checkpointFile) encode() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("migrate: encoding the checkpoint: %w", err)
	}
	return append(b, '\n'), nil
}

// sane checks what a checkpoint claims against what a run can write: the
// table it names, counts that are not negative and add up (every settled
// row is an item or a rejection), and an entity that is done has no key
// to resume after.
func (f *checkpointFile) sane() error {
	if f.S3 == nil && (f.TableARN == "" || f.TableCreated.IsZero()) {
		return fmt.Errorf("it does not name the table its items were written into")
	}
	if f.ItemsBefore < 0 {
		return fmt.Errorf("items_before is %d", f.ItemsBefore)
	}
	if len(f.Entities) == 0 && f.Shard == "" { // a shard may own no range at all
		return fmt.Errorf("it has no entity")
	}
	counts := func(what string, rows, items, rejected int64) error {
		if rows < 0 || items < 0 || rejected < 0 || rows != items+rejected {
			return fmt.Errorf("entity %s: %d rows settled as %d items and %d rejected", what, rows, items, rejected)
		}
		return nil
	}
	for _, e := range f.Entities {
		if err := counts(e.Name, e.Rows, e.Items, e.Rejected); err != nil {
			return err
		}
		for _, a := range e.Also {
			if err := counts(a.Name, a.Rows, a.Items, a.Rejected); err != nil {
				return err
			}
		}
		if e.Done && e.After != nil {
			return fmt.Errorf("entity %s is done but names a key to resume after", e.Name)
		}
		if !e.Done && e.After == nil && e.Rows > 0 {
			return fmt.Errorf("entity %s has %d rows settled but no key they end at", e.Name, e.Rows)
		}
	}
	return nil
}

// startCheckpoint sets up the run's checkpoint: none without a path; for
// --resume, the interrupted run's, checked to be of this job (the same
// mapping, source database and table: the very table its settled items were
// written into, not one created since under its name), whose lock this run
// takes over and whose rejects file it appends to.
func startCheckpoint(ctx context.Context, o *Options, rep *Report, rej *rejects) (*tracker, error) {
	if o.CheckpointPath == "" {
		if o.Resume {
			return nil, errors.New("migrate: --resume needs the checkpoint file of the interrupted run")
		}
		return nil, nil
	}
	tr, err := newTracker(o.CheckpointPath, *o, rej)
	if err != nil {
		return nil, err
	}
	if tr.file.SourceServer, err = source.ServerID(ctx, o.Source); err != nil {
		return nil, fmt.Errorf("migrate: naming the source database for the checkpoint: %w", err)
	}
	if !o.Resume { // a new run of the job: the last one's record would tell a later --resume it finished
		if err := RemoveFinished(FinishedPath(o.CheckpointPath)); err != nil {
			return nil, err
		}
		return tr, nil
	}
	ck, warning, err := loadCheckpoint(o.CheckpointPath, tr)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		rep.Warnings = append(rep.Warnings, warning)
	}
	if o.To == nil { // --to writes into no table
		if err := tr.sameTable(ctx, *o); err != nil {
			return nil, err
		}
		if o.Shard.Sharded() { // before the checkpoint is saved again: a refused shard leaves it as it was
			if err := checkResumedSplit(ctx, *o, rep, tr.file.SplitDigest, tr.file.SplitRanges); err != nil {
				return nil, err
			}
		}
	}
	o.RejectsPath, rej.path, tr.file.RejectsFile = ck.RejectsFile, ck.RejectsFile, ck.RejectsFile
	if err := rej.loadEarlier(); err != nil {
		return nil, err
	}
	for _, et := range tr.ents { // --max-rejects counts the whole job's
		for _, c := range et.earlier {
			rej.n += c.rejected
		}
	}
	tr.resumed = true
	// The lock may be taken over from the runs the checkpoint names; this
	// run is named too before it takes the lock, so that a run killed
	// between taking the lock and its next save can be resumed as well.
	o.resumeOwners = ck.Owners
	o.lockOwner = newOwner()
	tr.file.Owners = append(slices.Clone(ck.Owners), o.lockOwner)
	if err := tr.save(); err != nil {
		return nil, err
	}
	return tr, nil
}

// sameTable checks that the table a resumed run writes into is the one
// whose items the checkpoint settled: a table deleted (or an in-memory
// emulator restarted) and created again under its name holds none of them,
// and resuming into it would report rows as written that are not.
func (tr *tracker) sameTable(ctx context.Context, o Options) error {
	was := tableID{ARN: tr.file.TableARN, Created: tr.file.TableCreated}
	var settled int64
	for _, et := range tr.ents {
		for _, c := range et.earlier {
			settled += c.items
		}
	}
	now, err := describeTableID(ctx, o.DB, o.Table, dynamo.AttemptTimeout(o.RequestTimeout))
	if errors.Is(err, errNoTable) {
		return fmt.Errorf("migrate: --resume: table %s does not exist any more: the %d items checkpoint %s counts as written were in the table created at %s, and went with it; --resume cannot bring them back: start over without --resume (with --create-table)",
			o.Table, settled, tr.path, was.Created.Format(time.RFC3339Nano))
	}
	if err != nil {
		return err
	}
	if now != was {
		return fmt.Errorf("migrate: --resume: table %s is not the table the interrupted run wrote into: that one (%s) was created at %s, this one (%s) at %s, so the %d items checkpoint %s counts as written are not in it; start over without --resume (with --allow-non-empty)",
			o.Table, was.ARN, was.Created.Format(time.RFC3339Nano), now.ARN, now.Created.Format(time.RFC3339Nano), settled, tr.path)
	}
	return nil
}

// wroteInto records the table the run writes into (a new job's).
func (tr *tracker) wroteInto(id tableID) {
	if tr != nil {
		tr.file.TableARN, tr.file.TableCreated = id.ARN, id.Created
	}
}
