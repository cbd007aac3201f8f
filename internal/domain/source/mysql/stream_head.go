package mysql

import (
	"context"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// Where a MySQL stream stands against the server: Head reads the server's
// binlog position (SHOW MASTER STATUS) on a pool connection, never the
// binlog dump connection, and the stream keeps the readings that what it
// received and what was acknowledged do not cover yet. The server sends
// every event of its binlog, and a heartbeat with its position when it has
// none to send, so an idle server's head is received too.

// myHeadReadings is how many readings of the head a stream keeps at most;
// past it, the two readings closest in time become one (the older time,
// the further position: Behind is never less than it should be).
const myHeadReadings = 32

// myHead is one reading of the server's head.
type myHead struct {
	pos binlogPos
	at  time.Time // when it was asked for
}

// myHeads are the readings of the head not yet covered, oldest first, and
// the last one.
type myHeads struct {
	open []myHead
	last myHead // zero: never read
}

// add records a reading.
func (hs *myHeads) add(h myHead) {
	hs.last = h
	hs.open = append(hs.open, h)
	if len(hs.open) > myHeadReadings {
		hs.open = thinHeads(hs.open)
	}
}

// thinHeads makes the two readings closest in time one.
func thinHeads(hs []myHead) []myHead {
	k := 0
	for i := 1; i+1 < len(hs); i++ {
		if hs[i+1].at.Sub(hs[i].at) < hs[k+1].at.Sub(hs[k].at) {
			k = i
		}
	}
	hs[k].pos = hs[k+1].pos
	return append(hs[:k+1], hs[k+2:]...)
}

// Head is where the server's binlog ends now (SHOW MASTER STATUS), read on
// a connection of its own within the source's deadlines; the stream keeps
// the reading (Status).
func (st *myStream) Head(ctx context.Context) (source.Position, error) {
	const doing = "reading the binlog's head (SHOW MASTER STATUS)"
	at := time.Now()
	c, err := st.src.conn(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	var head binlogPos
	err = st.src.step(ctx, doing, func(ctx context.Context) (err error) {
		head, err = masterStatus(ctx, c)
		return err
	})
	if err != nil {
		return "", source.Worded(doing, err)
	}
	st.mu.Lock()
	st.heads.add(myHead{pos: head, at: at})
	st.mu.Unlock()
	return source.Position(head.String()), nil
}

// Status is the stream's lag (StreamStatus): Source is the furthest of
// the last event received and the last head read, Applied what was
// acknowledged or, with nothing left to acknowledge, all that was
// received whole.
func (st *myStream) Status() source.StreamStatus {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := time.Now()
	st.dropCovered()
	src := st.source
	for _, p := range []binlogPos{st.handed, st.received, st.heads.last.pos} {
		if p.File != "" && src.compare(p) < 0 {
			src = p
		}
	}
	s := source.StreamStatus{
		Source:   source.Position(binlogPos{File: src.File, Pos: src.Pos}.String()),
		Applied:  source.Position(st.applied().String()),
		HeadRead: st.heads.last.at,
	}
	if len(st.pending) > 0 {
		s.Behind = now.Sub(st.pending[0].commit)
	}
	if len(st.heads.open) > 0 {
		s.Behind = max(s.Behind, now.Sub(st.heads.open[0].at))
	}
	s.CaughtUp = !s.HeadRead.IsZero() && len(st.heads.open) == 0 && len(st.pending) == 0
	return s
}

// applied is the position up to which everything received is applied: the
// last acknowledged, or, when every transaction received is, where the
// stream received everything whole (transactions of no followed table
// need nothing). Under st.mu.
func (st *myStream) applied() binlogPos {
	if len(st.pending) == 0 && st.received.compare(st.acked) > 0 {
		return st.received
	}
	return st.acked
}

// covered says whether every change up to p is received and applied.
// Under st.mu.
func (st *myStream) covered(p binlogPos) bool {
	return st.received.compare(p) >= 0 && (len(st.pending) == 0 || st.pending[0].end.compare(p) > 0)
}

// dropCovered forgets the readings of the head that are covered. Under
// st.mu.
func (st *myStream) dropCovered() {
	n := 0
	for n < len(st.heads.open) && st.covered(st.heads.open[n].pos) {
		n++
	}
	st.heads.open = st.heads.open[n:]
}
