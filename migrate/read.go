package migrate

import (
	"context"
	"errors"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// readJob is one entity, or one key range of it, for a reader: its rows
// to write, or (seen) the rows an earlier run settled, whose keys only are
// passed on. et tracks the rows for the checkpoint (nil: none). With sh,
// the job reads the entities of that shared read (e is the first).
type readJob struct {
	e    *mapping.Entity
	sh   *sharedRead
	kr   source.KeyRange
	seen bool
	et   *entityTrack
}

// readAll reads every entity with the snapshot's readers, an entity (or
// one key range of it) to a reader at a time, and closes items at the end.
// Entities built from one table are read together, by one shared read
// (shared.go), which is split and checkpointed as one.
// With o.Ranges > 1 a new job splits each entity into the key ranges
// reads gives (splitReads: about equal rows, inside the snapshot, or a
// sharded job's recorded split); a resumed job reads the ranges its
// checkpoint names. A resumed run first reads
// the rows the earlier runs settled (up to each entity's checkpoint key;
// all of an entity they finished), every reader, before any row is read to
// be written: their keys go into the collision check first (settledKey,
// on the reader), and into the set of keys the job wrote (for the stray
// items). Then the rest of each entity is read, in chunks of rows handed
// to the render workers (render.go), and written.
func readAll(ctx context.Context, o Options, reads []plannedRead, readers []source.Reader, pool embedread.Pool, chunks chan<- *rowChunk, coll *collisions, w *writer, tr *tracker) error {
	defer close(chunks)
	var seen, write []readJob
	for _, rd := range reads {
		e, sh := rd.e, rd.sh
		tracks := tr.entity(e.Name)
		fresh := tr == nil || !tr.resumed
		if o.Ranges > 1 && fresh { // an entity with embeds too: its child rows are read by the same bounds
			bounds := rd.bounds
			var err error
			if tr == nil {
				var lo source.KeyBound
				for j, hi := range append(bounds, nil) {
					if o.Shard.owns(e.Name, j) {
						write = append(write, readJob{e: e, sh: sh, kr: source.KeyRange{After: lo, UpTo: hi}})
					}
					lo = hi
				}
				continue
			}
			if tracks, err = tr.split(rd.readSpec, bounds); err != nil {
				return err
			}
		}
		if fresh && o.Shard.Sharded() { // the ranges of the other shards are theirs (shard.go); a resumed shard's checkpoint has its own only
			if tr == nil {
				if !o.Shard.owns(e.Name, 0) {
					continue
				}
			} else if tracks = tr.keep(rd.readSpec, ownedTracks(o.Shard, e.Name, tracks)); len(tracks) == 0 {
				continue
			}
		}
		if tracks == nil {
			write = append(write, readJob{e: e, sh: sh})
			continue
		}
		for _, et := range tracks {
			switch {
			case et.done:
				seen = append(seen, readJob{e: e, sh: sh, kr: source.KeyRange{After: et.lo, UpTo: et.hi}, seen: true})
			case et.resumeFrom != nil:
				seen = append(seen, readJob{e: e, sh: sh, kr: source.KeyRange{After: et.lo, UpTo: et.resumeFrom}, seen: true})
				write = append(write, readJob{e: e, sh: sh, kr: source.KeyRange{After: et.resumeFrom, UpTo: et.hi}, et: et})
			default:
				write = append(write, readJob{e: e, sh: sh, kr: source.KeyRange{After: et.lo, UpTo: et.hi}, et: et})
			}
		}
	}
	for i, phase := range [][]readJob{seen, write} {
		if i == 1 && tr != nil && tr.resumed {
			if err := w.rej.dropUnsettled(); err != nil {
				return err
			}
		}
		if err := readJobs(ctx, readers, phase, func(ctx context.Context, r source.Reader, j readJob) error {
			if j.seen {
				return readSettled(ctx, r, j, coll, w)
			}
			k := newChunker(chunks, coll)
			var err error
			if j.sh != nil {
				err = readSharedEntities(ctx, r, j.sh, j.kr, k, j.et)
			} else {
				err = readEntity(ctx, r, pool, j.e, j.kr, k, j.et)
			}
			if err != nil {
				return err
			}
			j.et.finished()
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// readJobs hands the jobs out to the readers, one at a time each.
func readJobs(ctx context.Context, readers []source.Reader, jobs []readJob, read func(context.Context, source.Reader, readJob) error) error {
	if len(jobs) == 0 {
		return nil
	}
	g, ctx := errgroup.WithContext(ctx)
	ch := make(chan readJob)
	g.Go(func() error {
		defer close(ch)
		for _, j := range jobs {
			select {
			case ch <- j:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	for _, r := range readers {
		g.Go(func() error {
			for j := range ch {
				if err := read(ctx, r, j); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// readSettled passes on the keys of rows an earlier run settled: they are
// not written again, but a later row rendering the same key is a
// collision, and the item with that key is one the job wrote. A row whose
// key does not render was rejected.
func readSettled(ctx context.Context, r source.Reader, j readJob, coll *collisions, w *writer) error {
	var scratch []byte
	listed := w.rej.hasEarlier()
	if sh := j.sh; sh != nil {
		buf := make([][]any, len(sh.ents))
		return readShared(ctx, r, sh, j.kr, func(row []any, matched uint64) error {
			for i, e := range sh.ents {
				if matched&(1<<i) != 0 {
					if err := settledKey(e, sh.entityRow(i, row, buf), listed, coll, &scratch, w); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	return readRows(ctx, r, embedread.Pool{}, j.e, j.kr, func(row []any, _ [][][]any, dup *mapping.RowError) error {
		if dup != nil {
			if listed {
				w.rej.settledRejected(j.e.Name, dup.Key)
			}
			return nil
		}
		return settledKey(j.e, row, listed, coll, &scratch, w)
	})
}

// settledKey records the key of entity e's row that an earlier run
// settled: in the collision check (before any row is read to be written)
// and in the keys the job wrote. A row the rejected-rows file lists has no
// item, and its key is not recorded: another row may render that key
// (the other row of a collision, or a row rendering the key of one that was
// too large or refused), and that row, when it is not settled, must be
// written as a run from the start would. listed says whether the file
// lists any row (rejects.hasEarlier, asked once per read).
func settledKey(e *mapping.Entity, row []any, listed bool, coll *collisions, scratch *[]byte, w *writer) error {
	var src string
	if listed {
		if src = e.SourceKey(row); w.rej.settledRejected(e.Name, src) {
			return nil
		}
	}
	if coll.off && w.written == nil {
		return nil
	}
	key, err := e.RenderKey(row)
	if err != nil {
		var re *mapping.RowError
		if errors.As(err, &re) {
			return nil
		}
		return err
	}
	if w.written != nil {
		w.written.add(w.table, key)
	}
	if !listed {
		src = e.SourceKey(row)
	}
	return coll.add(pending{item: key, entity: e.Name, source: src, seen: true}, scratch, nil, nil)
}

// ownedTracks is the tracks of the ranges (in key order) of the read named
// read that belong to shard s.
func ownedTracks(s Shard, read string, tracks []*entityTrack) []*entityTrack {
	var out []*entityTrack
	for j, et := range tracks {
		if s.owns(read, j) {
			out = append(out, et)
		}
	}
	return out
}

// keep drops the tracks of a read's entities other than kept (another
// shard's ranges): the checkpoint names only this shard's. It returns kept.
func (tr *tracker) keep(rd readSpec, kept []*entityTrack) []*entityTrack {
	ents := rd.entities()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []*entityTrack
	for _, et := range tr.ents {
		if !slices.Contains(ents, et.e) || slices.Contains(kept, et) {
			out = append(out, et)
		}
	}
	tr.ents = out
	for _, e := range ents {
		tr.byName[e.Name] = kept
	}
	return kept
}

// entity is the tracks of one entity; nil without a checkpoint.
func (tr *tracker) entity(name string) []*entityTrack {
	if tr == nil {
		return nil
	}
	return tr.byName[name]
}
