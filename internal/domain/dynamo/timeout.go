package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// NoAnswerError is a request attempt that got no answer within its
// deadline. It is retryable: the SDK's retryer (and remodel's own retry
// loops, which use the SDK's classification) try such a request again.
type NoAnswerError struct {
	Timeout time.Duration
}

func (e *NoAnswerError) Error() string { return fmt.Sprintf("no answer within %s", e.Timeout) }

// RetryableError marks the error retryable for the SDK's retryer.
func (e *NoAnswerError) RetryableError() bool { return true }

// DefaultRequestTimeout is the deadline of every attempt of every request
// of a client made by Connect, unless its Config says otherwise.
const DefaultRequestTimeout = 30 * time.Second

// AttemptTimeout gives every attempt of a request (each try the SDK's
// retryer makes, not the call as a whole) a deadline of d: an attempt that
// gets no answer in time fails with a *NoAnswerError and is retried like a
// dropped connection. d <= 0 sets no deadline. Use it as a per-call option,
// db.Scan(ctx, in, dynamo.AttemptTimeout(30*time.Second)), or in the
// client's options; a per-call one replaces the client's (Connect gives
// every client one), d <= 0 included.
func AttemptTimeout(d time.Duration) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			if _, ok := s.Finalize.Get(attemptTimeoutID); ok {
				_, err := s.Finalize.Swap(attemptTimeoutID, attemptTimeout{d})
				return err
			}
			// At the end of the finalize step, after the retry middleware:
			// once per attempt, around signing and sending.
			return s.Finalize.Add(attemptTimeout{d}, middleware.After)
		})
	}
}

const attemptTimeoutID = "remodel/AttemptTimeout"

// attemptTimeout is the middleware of AttemptTimeout; d <= 0 passes the
// attempt on without a deadline.
type attemptTimeout struct{ d time.Duration }

func (attemptTimeout) ID() string { return attemptTimeoutID }

func (m attemptTimeout) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
	if m.d <= 0 {
		return next.HandleFinalize(ctx, in)
	}
	actx, cancel := context.WithTimeout(ctx, m.d)
	defer cancel()
	out, md, err := next.HandleFinalize(actx, in)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		err = &NoAnswerError{Timeout: m.d}
	}
	return out, md, err
}
