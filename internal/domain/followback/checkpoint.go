package followback

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// checkpointVersion is the shape of the checkpoint file.
const checkpointVersion = 1

// checkpoint is how far follow-back got: per shard of the stream, the
// last record done (applied, found applied, or dead-lettered: every record
// up to it is), the shard's parent, and whether the shard is read to its
// end. It is saved after every batch of records, before it is reported.
type checkpoint struct {
	Version     int                    `json:"version"`
	Table       string                 `json:"table"`
	StreamARN   string                 `json:"stream_arn"`
	StreamLabel string                 `json:"stream_label"`
	Owner       string                 `json:"owner"` // the lock owner of the run that wrote it
	Started     time.Time              `json:"started"`
	Saved       time.Time              `json:"saved"`
	Shards      map[string]*shardState `json:"shards"`

	path string
}

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
	case ck.Version != checkpointVersion:
		return nil, fmt.Errorf("followback: checkpoint %s has version %d, this remodel reads %d", path, ck.Version, checkpointVersion)
	case ck.Table != table:
		return nil, fmt.Errorf("followback: checkpoint %s is of table %s, not %s", path, ck.Table, table)
	case ck.Shards == nil:
		ck.Shards = map[string]*shardState{}
	}
	ck.path = path
	return &ck, nil
}

// save writes the checkpoint atomically (a new file renamed over the old).
// It is not synced: a killed process loses nothing written, a power loss
// may lose the last saves (the records after are applied again: found
// applied, or a conflict, which is a dead letter, never an overwrite).
func (ck *checkpoint) save(now time.Time) error {
	ck.Saved = now.UTC()
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
