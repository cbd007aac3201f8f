package migrate

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// loadCheckpoint reads the checkpoint of an interrupted run for --resume
// and checks that it is intact (its checksum, and what it claims) and this
// job's: the same mapping, table name and source (the same database, at
// whatever address; a warning says when the address changed). The tracks
// become the checkpoint's.
func loadCheckpoint(path string, tr *tracker) (*checkpointFile, string, error) {
	ck, err := readForResume(path)
	if err != nil {
		return nil, "", err
	}
	diffs, warning := jobDiffs(ck, &tr.file)
	if len(diffs) > 0 {
		return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s belongs to another migration: %s. %s", path, strings.Join(diffs, "; "), resumeAdvice(ck))
	}
	if p := (process.ID{Host: ck.Host, PID: ck.PID, Start: ck.PIDStart}); p.Host == tr.file.Host && !p.Self() && p.Running() {
		return nil, "", fmt.Errorf("migrate: --resume: the run that wrote checkpoint %s (pid %d on this host) is still running: stop it first", path, ck.PID)
	}
	if err := tr.restoreTracks(ck, path); err != nil {
		return nil, "", err
	}
	tr.file.ItemsBefore = ck.ItemsBefore
	tr.file.TableARN, tr.file.TableCreated = ck.TableARN, ck.TableCreated
	tr.file.SplitDigest, tr.file.SplitRanges = ck.SplitDigest, ck.SplitRanges // the split plan its ranges are of
	if err := tr.restoreFollow(ck, path); err != nil {
		return nil, "", err
	}
	if err := tr.loadS3(ck, path); err != nil {
		return nil, "", err
	}
	return ck, warning, nil
}

// readForResume reads the checkpoint at path, refusing one that is
// missing, damaged or claims what cannot be, each with what to do.
func readForResume(path string) (*checkpointFile, error) {
	ck, err := readCheckpoint(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("migrate: --resume: no checkpoint %s: nothing to resume (a run that succeeds removes its checkpoint; --checkpoint names another file)", path)
	case errors.Is(err, errCheckpointDamaged):
		return nil, fmt.Errorf("migrate: --resume: %w, so what it says was settled cannot be trusted; start over (migrate --allow-non-empty writes every row again)", err)
	case err != nil:
		return nil, fmt.Errorf("migrate: --resume: %w", err)
	}
	if err := ck.sane(); err != nil {
		return nil, fmt.Errorf("migrate: --resume: checkpoint %s cannot be right: %w; start over (migrate --allow-non-empty writes every row again)", path, err)
	}
	return ck, nil
}

// jobDiffs says how checkpoint ck is of another job than this run's (now):
// the mapping, table, shard, job or source; warning says when only the
// source's address changed.
func jobDiffs(ck, now *checkpointFile) (diffs []string, warning string) {
	if ck.Mapping != now.Mapping {
		diffs = append(diffs, "the mapping file changed since (its digest was "+short(ck.Mapping)+", now "+short(now.Mapping)+")")
	}
	if ck.Table != now.Table {
		diffs = append(diffs, fmt.Sprintf("it is of table %s, not %s", ck.Table, now.Table))
	}
	if ck.Shard != now.Shard {
		diffs = append(diffs, fmt.Sprintf("it is of %s, not %s", shardName(ck.Shard), shardName(now.Shard)))
	}
	if ck.Job != now.Job {
		diffs = append(diffs, fmt.Sprintf("it is of %s, not %s", s3out.JobName(ck.Job), s3out.JobName(now.Job)))
	}
	switch {
	case ck.SourceServer != "" && now.SourceServer != "":
		// The database is named by what it is: its address may change.
		if ck.SourceServer != now.SourceServer {
			diffs = append(diffs, fmt.Sprintf("it read the database %s (%s), not %s (%s)", ck.SourceServer, ck.Source, now.SourceServer, now.Source))
		} else if ck.Source != now.Source {
			warning = fmt.Sprintf("the source's address changed since the interrupted run (%s, now %s): it is the same database (%s)", ck.Source, now.Source, ck.SourceServer)
		}
	case ck.Source != now.Source:
		diffs = append(diffs, fmt.Sprintf("it read the source %s, not %s", ck.Source, now.Source))
	}
	return diffs, warning
}

// restoreTracks makes the tracks the checkpoint's: the key ranges of the
// interrupted run, whatever the new snapshot holds, each with its settled
// counts and key.
func (tr *tracker) restoreTracks(ck *checkpointFile, path string) error {
	tr.ents, tr.byName = nil, map[string][]*entityTrack{}
	for _, ce := range ck.Entities {
		if err := tr.restoreTrack(ce, path); err != nil {
			return err
		}
	}
	for _, e := range tr.plan.Entities {
		if tr.byName[e.Name] == nil && ck.Shard == "" { // a shard's checkpoint has the entities of which it owns a range
			return fmt.Errorf("migrate: --resume: checkpoint %s does not have entity %s", path, e.Name)
		}
	}
	return nil
}

// restoreTrack adds the track of one checkpoint entity (with the other
// entities of its shared read).
func (tr *tracker) restoreTrack(ce checkpointEntity, path string) error {
	ents := []*mapping.Entity{entityNamed(tr.plan, ce.Name)}
	counts := []tally{{ce.Rows, ce.Items, ce.Rejected}}
	for _, a := range ce.Also {
		ents = append(ents, entityNamed(tr.plan, a.Name))
		counts = append(counts, tally{a.Rows, a.Items, a.Rejected})
	}
	for i, e := range ents {
		if e == nil {
			name := ce.Name
			if i > 0 {
				name = ce.Also[i-1].Name
			}
			return fmt.Errorf("migrate: --resume: checkpoint %s names entity %s, which the mapping does not have", path, name)
		}
	}
	sh, err := tr.sharedOf(ents)
	if err != nil {
		return fmt.Errorf("migrate: --resume: checkpoint %s: %w", path, err)
	}
	keys, err := decodeKeys(ce.RangeAfter, ce.RangeUpTo, ce.After)
	if err != nil {
		return fmt.Errorf("migrate: --resume: checkpoint %s, entity %s: %w", path, ce.Name, err)
	}
	et, err := tr.newTrack(ents, sh, keys[0], keys[1])
	if err != nil {
		return err
	}
	tr.ents = append(tr.ents, et)
	for _, e := range ents {
		tr.byName[e.Name] = append(tr.byName[e.Name], et)
	}
	et.done = ce.Done
	copy(et.n, counts)
	copy(et.earlier, counts)
	if ce.After != nil {
		et.after, et.afterRow, et.resumeFrom = keys[2], ce.AfterRow, keys[2]
	}
	return nil
}

// decodeKeys decodes each key of a checkpoint entity; a nil one stays nil.
func decodeKeys(kvs ...[]keyValue) ([]source.KeyBound, error) {
	out := make([]source.KeyBound, len(kvs))
	for i, kv := range kvs {
		if kv == nil {
			continue
		}
		k, err := decodeKey(kv)
		if err != nil {
			return nil, err
		}
		out[i] = k
	}
	return out, nil
}

// shardName names a checkpoint's shard for people.
func shardName(shard string) string {
	if shard == "" {
		return "a run that is not sharded"
	}
	return "shard " + shard
}

// resumeAdvice is what a --resume refused by checkpoint ck can do instead.
func resumeAdvice(ck *checkpointFile) string {
	with := "the mapping, source and table"
	if ck.Shard != "" {
		with = fmt.Sprintf("the mapping, source, table, --shard %s and %s", ck.Shard, s3out.JobName(ck.Job))
	}
	switch {
	case ck.S3 != nil:
		return "Resume with " + with + " of the interrupted run, or start over into an empty prefix"
	case ck.Shard != "":
		return "Resume with " + with + " of the interrupted run, or run the shard again without --resume"
	}
	return "Resume with " + with + " of the interrupted run, or start over with --allow-non-empty"
}

// ofJob is " of --job "NAME"" after what belongs to a named job ("" for a
// job not named).
func ofJob(job string) string {
	if job == "" {
		return ""
	}
	return " of " + s3out.JobName(job)
}

func entityNamed(p *mapping.Plan, name string) *mapping.Entity {
	for _, e := range p.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	if digest == "" {
		return "none"
	}
	return digest
}

// EarlierRuns is what the interrupted runs of a resumed job settled: the
// rows up to each entity's checkpoint key, included in the report's counts.
type EarlierRuns struct {
	Checkpoint string `json:"checkpoint"`
	Rows       int64  `json:"rows"`
	Items      int64  `json:"items"`
	Rejected   int64  `json:"rejected"`
}

// addEarlier adds what the earlier runs settled to the report of a resumed
// run, per entity and in total, so that the report counts the whole job.
func (tr *tracker) addEarlier(r *Report) {
	e := &EarlierRuns{Checkpoint: tr.path}
	for i := range r.Entities {
		name := r.Entities[i].Name
		for _, et := range tr.byName[name] {
			c := et.earlierOf(name)
			r.Entities[i].Rows += c.rows
			r.Entities[i].Items += c.items
			r.Entities[i].Rejected += c.rejected
			e.Rows += c.rows
			e.Items += c.items
			e.Rejected += c.rejected
		}
	}
	r.RowsRead += e.Rows
	r.ItemsWritten += e.Items
	r.Rejected += e.Rejected
	r.Earlier = e
}

// settledOf is the rows of entity name the earlier runs of a resumed job
// settled (written or rejected); 0 without a checkpoint.
func (tr *tracker) settledOf(name string) int64 {
	if tr == nil {
		return 0
	}
	var n int64
	for _, et := range tr.byName[name] {
		n += et.earlierOf(name).rows
	}
	return n
}

// earlierOf is what the earlier runs settled of the track's entity name.
func (t *entityTrack) earlierOf(name string) tally {
	for i, e := range t.ents {
		if e.Name == name {
			return t.earlier[i]
		}
	}
	return tally{}
}

// report adds the checkpoint to the report: the file to resume from when
// the job is not finished, and in a resumed run what the earlier runs did.
func (tr *tracker) report(r *Report) {
	if tr == nil {
		return
	}
	if !tr.removed {
		r.Checkpoint = tr.path
	}
	if tr.resumed {
		tr.addEarlier(r)
	}
}
