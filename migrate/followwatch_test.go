package migrate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// watchStream is a stream whose status and head the test sets.
type watchStream struct {
	source.Stream
	st      source.StreamStatus
	headErr error
}

func (s *watchStream) Status() source.StreamStatus { return s.st }
func (s *watchStream) Head(context.Context) (source.Position, error) {
	return s.st.Source, s.headErr
}

// TestFollowWatch: the follower's word on its state, case by case: caught
// up; behind; stalled with the cause (the source silent, the stream
// bringing nothing, DynamoDB retrying) once applied has stood still for
// stallAfter; and held back by --rate-limit, said in any state.
func TestFollowWatch(t *testing.T) {
	now := time.Now()
	newWatch := func(st source.StreamStatus, headErr error, since time.Duration) (*followWatch, *follower) {
		f := &follower{o: Options{RateLimit: 500, Backoff: DefaultBackoff}, w: newWriter(Options{Plan: &mapping.Plan{}, RateLimit: 500}, &counters{}, nil)}
		s := &watchStream{st: st, headErr: headErr}
		w := newFollowWatch(f, s)
		w.applied, w.movedAt = st.Applied, now.Add(-since)
		return w, f
	}
	ahead := source.StreamStatus{Source: "0/20", Applied: "0/10", Behind: time.Second, HeadRead: now.Add(-time.Second)}
	for _, c := range []struct {
		name    string
		st      source.StreamStatus
		headErr error
		since   time.Duration // applied unchanged for
		busy    int           // transactions being applied
		retried bool
		limited bool
		state   string
		cause   string
	}{
		{name: "caught up", st: source.StreamStatus{Source: "0/10", Applied: "0/10", CaughtUp: true, HeadRead: now}, state: progress.LagCaughtUp},
		{name: "behind, moving", st: ahead, since: time.Second, state: progress.LagBehind},
		{name: "stream silent", st: ahead, since: 2 * stallAfter, state: progress.LagStalled, cause: "the change stream has brought nothing"},
		{name: "source silent", st: ahead, headErr: errors.New("timeout"), state: progress.LagStalled, cause: "the source has not said where it is"},
		{name: "DynamoDB retrying", st: ahead, since: 2 * stallAfter, busy: 3, retried: true, state: progress.LagStalled, cause: "DynamoDB is not taking the writes"},
		{name: "rate limit, behind", st: ahead, since: time.Second, limited: true, state: progress.LagBehind, cause: "held back by --rate-limit 500"},
		{name: "rate limit, stalled", st: ahead, since: 2 * stallAfter, busy: 2, limited: true, state: progress.LagStalled, cause: "held back by --rate-limit 500"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, f := newWatch(c.st, c.headErr, c.since)
			if c.busy > 0 {
				f.busy(c.busy)
				f.busySince = now.Add(-c.since)
			}
			if c.retried {
				f.w.c.sent.Retries.Add(2)
			}
			w.read(context.Background()) // the head reading (and its error)
			if c.limited {
				w.waitedAt = now.Add(-headEvery)
				w.limitWaited = func() time.Duration { return headEvery } // waited for units the whole interval
				w.read(context.Background())
			}
			l := w.lag()
			if l.State != c.state || !strings.Contains(l.Cause, c.cause) || c.cause == "" && l.Cause != "" {
				t.Errorf("state %q, cause %q; want %q with %q", l.State, l.Cause, c.state, c.cause)
			}
			if l.State != progress.LagCaughtUp && l.Behind == 0 {
				t.Errorf("not caught up, but 0 behind: %+v", l)
			}
		})
	}
}
