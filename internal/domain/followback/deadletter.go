package followback

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/mapping"
)

// DeadLetter is one line of the dead-letter file: a stream record that was
// not applied to the source, the entity it was matched to ("" for none)
// and why. Nothing follow-back reads is skipped without one.
type DeadLetter struct {
	Time     time.Time       `json:"time"`
	Shard    string          `json:"shard"`
	Sequence string          `json:"sequence"`
	Event    string          `json:"event"` // INSERT, MODIFY, REMOVE
	Created  time.Time       `json:"created"`
	Keys     json.RawMessage `json:"keys"`
	OldImage json.RawMessage `json:"old_image,omitempty"` // DynamoDB JSON
	NewImage json.RawMessage `json:"new_image,omitempty"`
	Entity   string          `json:"entity,omitempty"`
	Reason   string          `json:"reason"`
}

// deadLetters appends dead letters to a file, one JSON line each, synced.
type deadLetters struct {
	f    *os.File
	path string
	n    int64
}

func openDeadLetters(path string) (*deadLetters, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("followback: opening the dead-letter file: %w", err)
	}
	return &deadLetters{f: f, path: path}, nil
}

func (d *deadLetters) write(r *record, entity, reason string) error {
	l := DeadLetter{Time: time.Now().UTC(), Shard: r.shard, Sequence: r.seq, Event: r.event, Created: r.created.UTC(),
		Keys: av.MarshalItem(r.keys), Entity: entity, Reason: reason}
	if r.old != nil {
		l.OldImage = av.MarshalItem(r.old)
	}
	if r.new != nil {
		l.NewImage = av.MarshalItem(r.new)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if _, err := d.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("followback: writing the dead-letter file: %w", err)
	}
	d.n++
	return d.f.Sync()
}

func (d *deadLetters) close() error { return d.f.Close() }

// record is one stream record, its images as items.
type record struct {
	shard, seq, event string
	created           time.Time
	keys, old, new    mapping.Item
}
