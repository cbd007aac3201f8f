// Package backoff owns the retry policy migrate and verify share for
// DynamoDB batch calls: capped exponential backoff with full jitter, until a
// deadline, with every wait watching the context.
package backoff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Policy is capped exponential backoff with full jitter, until Deadline has
// passed since a request's first attempt.
type Policy struct {
	Base     time.Duration
	Cap      time.Duration
	Deadline time.Duration
}

// Default retries for up to two minutes, waiting at most 5 s at a time.
var Default = Policy{Base: 50 * time.Millisecond, Cap: 5 * time.Second, Deadline: 2 * time.Minute}

// Delay is the wait before retry number attempt (from 1): a uniform random
// duration in [0, min(Cap, Base·2^(attempt-1))).
func (p Policy) Delay(attempt int) time.Duration {
	d := p.Cap
	if attempt < 31 {
		d = min(p.Cap, p.Base<<(attempt-1))
	}
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

// GiveUp says whether a request whose attempt number attempt (from 1) has
// just failed is given up, elapsed after its first attempt began: once
// Deadline has passed, but never before one retry, so a first attempt that
// alone outlasted the deadline (a slow answer) does not end the request.
func (p Policy) GiveUp(attempt int, elapsed time.Duration) bool {
	return attempt > 1 && elapsed > p.Deadline
}

// Sleep waits d, or until ctx is done, and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// GaveUp is Do's error when the policy gave up: Last is the error of the
// last attempt, nil when it failed without one (work left undone, such as
// items DynamoDB left unprocessed).
type GaveUp struct {
	Attempts int
	Deadline time.Duration
	Last     error
}

func (e *GaveUp) Error() string {
	s := fmt.Sprintf("gave up after %d attempts over %s", e.Attempts, e.Deadline)
	if e.Last != nil {
		s += ": " + e.Last.Error()
	}
	return s
}

func (e *GaveUp) Unwrap() error { return e.Last }

// Do runs try, attempt after attempt (numbered from 1), until it returns
// again false: Do then returns try's error (nil: done). It is Loop for a
// try that needs only the attempt's number.
func (p Policy) Do(ctx context.Context, try func(attempt int) (again bool, err error)) error {
	return p.Loop(ctx, func(a *Attempt) (bool, error) { return try(a.N) })
}

// Attempt is one attempt of Loop, which try reads and adjusts.
type Attempt struct {
	N       int // from 1
	paused  time.Duration
	wait    time.Duration
	waitSet bool
}

// Pause leaves d out of the time that counts toward the deadline: time the
// attempt spent waiting for something other than the service (a rate
// limit).
func (a *Attempt) Pause(d time.Duration) { a.paused += d }

// Wait sets the wait before the next attempt, instead of the policy's
// Delay(N): 0 tries again at once (something else paces it).
func (a *Attempt) Wait(d time.Duration) { a.wait, a.waitSet = d, true }

// Loop runs try, attempt after attempt, until it returns again false: Loop
// then returns try's error (nil: done). When try asks for another attempt
// (again true, with the error that made it fail, or nil) once the policy
// gives up (GiveUp, on the time since the first attempt less what the
// attempts paused), Loop returns a *GaveUp holding that error; between
// attempts it waits the attempt's Wait, or Delay(N), at most until the
// deadline, or until ctx is done, whose error it then returns. It is the
// one retry loop of remodel's DynamoDB calls.
func (p Policy) Loop(ctx context.Context, try func(a *Attempt) (again bool, err error)) error {
	first := time.Now()
	var paused time.Duration
	for n := 1; ; n++ {
		a := Attempt{N: n}
		again, err := try(&a)
		paused += a.paused
		if !again {
			return err
		}
		elapsed := time.Since(first) - paused
		if p.GiveUp(n, elapsed) {
			return &GaveUp{Attempts: n, Deadline: p.Deadline, Last: err}
		}
		wait := p.Delay(n)
		if a.waitSet {
			wait = a.wait
		}
		if err := Sleep(ctx, min(wait, p.Deadline-elapsed)); err != nil {
			return err
		}
	}
}
