package followback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// checkpointVersion is the shape of the checkpoint file: 2 adds the
// journal (1 has none, and is read as a checkpoint without one).
const checkpointVersion = 2

// fullSaveEvery is how often the whole checkpoint is written (renamed
// over the old one) while records are done; between those saves, each
// record done appends its shard's place to the journal.
const fullSaveEvery = time.Second

// checkpoint is how far follow-back got: per shard of the stream, the
// last record done (applied, found applied, or dead-lettered: every record
// up to it is), the shard's parent, and whether the shard is read to its
// end. It is recorded after every record, before it is reported: the
// shard's new place is appended to the journal (JournalPath), and the
// whole checkpoint is written at most every fullSaveEvery, which empties
// the journal. Reading it applies the journal's lines of its generation.
type checkpoint struct {
	Version     int                    `json:"version"`
	Table       string                 `json:"table"`
	StreamARN   string                 `json:"stream_arn"`
	StreamLabel string                 `json:"stream_label"`
	Owner       string                 `json:"owner"` // the lock owner of the run that wrote it
	Started     time.Time              `json:"started"`
	Saved       time.Time              `json:"saved"`
	Shards      map[string]*shardState `json:"shards"`
	// JournalGen is the generation of the journal's lines that apply on
	// top of this file: lines of an older one (written before this file
	// replaced the last, when a stop came before the journal was emptied)
	// are past.
	JournalGen int64 `json:"journal_gen,omitempty"`

	path      string
	journal   *os.File
	fullSaved time.Time
}

// journalLine is one shard's place after a record done.
type journalLine struct {
	Gen   int64       `json:"gen"`
	Shard string      `json:"shard"`
	State *shardState `json:"state"`
}

// JournalPath is the journal beside the checkpoint at path: follow-back
// writes both.
func JournalPath(checkpointPath string) string { return checkpointPath + ".journal" }

// shardState is one shard's place.
type shardState struct {
	Parent string `json:"parent,omitempty"`
	// After is the sequence number of the last record done ("": none
	// yet: the shard is read from its first record).
	After string `json:"after,omitempty"`
	// DoneAfter are the records past After that are done (applied while
	// an earlier one waits: a foreign key, deferred): skipped when read
	// again.
	DoneAfter []string `json:"done_after,omitempty"`
	Done      bool     `json:"done,omitempty"`
}

// loadCheckpoint reads a checkpoint file.
func loadCheckpoint(path, table string) (*checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("followback: --resume: no checkpoint %s (a first run starts without --resume)", path)
		}
		return nil, fmt.Errorf("followback: reading checkpoint: %w", err)
	}
	var ck checkpoint
	if err := json.Unmarshal(b, &ck); err != nil {
		return nil, fmt.Errorf("followback: reading checkpoint %s: %w", path, err)
	}
	switch {
	case ck.Version != checkpointVersion && ck.Version != 1:
		return nil, fmt.Errorf("followback: checkpoint %s has version %d, this remodel reads %d", path, ck.Version, checkpointVersion)
	case ck.Table != table:
		return nil, fmt.Errorf("followback: checkpoint %s is of table %s, not %s", path, ck.Table, table)
	case ck.Shards == nil:
		ck.Shards = map[string]*shardState{}
	}
	ck.path = path
	if err := ck.replay(); err != nil {
		return nil, err
	}
	return &ck, nil
}

// replay applies the journal's lines of the checkpoint's generation. A
// line cut short is one a stop interrupted: only the last may be.
func (ck *checkpoint) replay() error {
	b, err := os.ReadFile(JournalPath(ck.path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("followback: reading the checkpoint's journal: %w", err)
	}
	lines := bytes.Split(b, []byte{'\n'})
	for i, line := range lines {
		if len(line) == 0 {
			continue
		}
		var l journalLine
		if err := json.Unmarshal(line, &l); err != nil || l.State == nil || l.Shard == "" {
			if i == len(lines)-1 {
				return nil // the last line, cut short by a stop (no newline yet): its record is read again
			}
			return fmt.Errorf("followback: the checkpoint's journal %s: line %d is not a shard's place (%v): the file was changed by hand or damaged; start again without --resume, or restore it", JournalPath(ck.path), i+1, err)
		}
		if l.Gen == ck.JournalGen {
			ck.Shards[l.Shard] = l.State
		}
	}
	return nil
}

// record records the places of the shards changed after a record done:
// their lines appended to the journal, or, at most every fullSaveEvery,
// the whole checkpoint.
func (ck *checkpoint) record(now time.Time, changed []string) error {
	if now.Sub(ck.fullSaved) >= fullSaveEvery || ck.journal == nil {
		return ck.save(now)
	}
	if len(changed) == 0 {
		return nil
	}
	var buf []byte
	for _, id := range changed {
		b, err := json.Marshal(journalLine{Gen: ck.JournalGen, Shard: id, State: ck.Shards[id]})
		if err != nil {
			return fmt.Errorf("followback: recording shard %s's place: %w", id, err)
		}
		buf = append(append(buf, b...), '\n')
	}
	// One write: a stop keeps it whole or, at worst, cuts its end.
	if _, err := ck.journal.Write(buf); err != nil {
		return fmt.Errorf("followback: appending to the checkpoint's journal: %w", err)
	}
	return nil
}

// close closes the journal (the checkpoint is saved before).
func (ck *checkpoint) close() {
	if ck.journal != nil {
		ck.journal.Close()
		ck.journal = nil
	}
}

// save writes the whole checkpoint atomically (a new file renamed over the
// old), with the next journal generation, then empties the journal. It is
// not synced: a killed process loses nothing written, a power loss may
// lose the last saves (the records after are applied again: found
// applied, or a conflict, which is a dead letter, never an overwrite).
func (ck *checkpoint) save(now time.Time) error {
	ck.Saved = now.UTC()
	ck.Version = checkpointVersion
	ck.JournalGen++
	if err := ck.write(); err != nil {
		ck.JournalGen-- // the file on disk is the last one still
		return err
	}
	ck.fullSaved = now
	if ck.journal == nil {
		j, err := os.OpenFile(JournalPath(ck.path), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("followback: opening the checkpoint's journal: %w", err)
		}
		ck.journal = j
	}
	if err := ck.journal.Truncate(0); err != nil {
		return fmt.Errorf("followback: emptying the checkpoint's journal: %w", err)
	}
	return nil
}

// write writes the checkpoint's file: a new file renamed over the old.
func (ck *checkpoint) write() error {
	b, err := json.MarshalIndent(ck, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(ck.path), ".followback-*")
	if err != nil {
		return fmt.Errorf("followback: saving checkpoint: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("followback: saving checkpoint: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("followback: saving checkpoint: %w", err)
	}
	if err := os.Rename(tmp.Name(), ck.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("followback: saving checkpoint: %w", err)
	}
	return nil
}
