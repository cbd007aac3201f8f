package source

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultTimeout is Options.Timeout's default.
const DefaultTimeout = 30 * time.Second

// Options say how OpenWith connects.
type Options struct {
	// Timeout is how long the source may leave unanswered each connection
	// to it (TCP, TLS, handshake and authentication, all attempts of one
	// connection together) and each set-up step: reading the schema,
	// describing or preparing a query, opening the snapshot's transactions.
	// Reads of rows (scans, counts, samples, key ranges, access pattern
	// queries) have no deadline: a legitimate one may take minutes before
	// its first row. 0 is DefaultTimeout. A DSN's connect_timeout
	// (PostgreSQL) or timeout (MySQL) bounds connecting instead.
	Timeout time.Duration
}

// NoAnswerError is a connection or a set-up step that the source did not
// answer within its deadline.
type NoAnswerError struct {
	Timeout time.Duration
	// Setting names what set the deadline: --source-timeout or the DSN.
	Setting string
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("no answer within %s (%s)", e.Timeout, e.Setting)
}

// deadline is one of a source's deadlines and what set it.
type deadline struct {
	d       time.Duration
	setting string
}

// Deadlines are a source's deadlines: connecting, and each set-up step.
type Deadlines struct {
	connect, setUp deadline
}

// NewDeadlines are the deadlines of o; dsnConnect is the DSN's own
// connect deadline (0: none), named by dsnSetting.
func NewDeadlines(o Options, dsnConnect time.Duration, dsnSetting string) Deadlines {
	setUp := deadline{o.Timeout, "--source-timeout"}
	if setUp.d <= 0 {
		setUp.d = DefaultTimeout
	}
	connect := setUp
	if dsnConnect > 0 {
		connect = deadline{dsnConnect, dsnSetting}
	}
	return Deadlines{connect: connect, setUp: setUp}
}

// run runs fn with a context that ends d after now (or with ctx). The error
// of an fn that d ended is a *NoAnswerError; fn's own errors pass, and so
// do those of an fn that ctx ended.
func (d deadline) run(ctx context.Context, fn func(context.Context) error) error {
	dctx, cancel := context.WithTimeout(ctx, d.d)
	defer cancel()
	err := fn(dctx)
	if err != nil && ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
		return &NoAnswerError{Timeout: d.d, Setting: d.setting}
	}
	return err
}

// Connect runs fn, which connects to the source, with the connect
// deadline; the error of an fn that it ended is a *NoAnswerError.
func (ds Deadlines) Connect(ctx context.Context, fn func(context.Context) error) error {
	return ds.connect.run(ctx, fn)
}

// Step runs the set-up step fn with its deadline. When the deadline ends
// it, the error is "source: doing on where: no answer within ..."; fn's own
// errors are returned as they are.
func (ds Deadlines) Step(ctx context.Context, doing, where string, fn func(context.Context) error) error {
	err := ds.setUp.run(ctx, fn)
	var na *NoAnswerError
	if errors.As(err, &na) {
		return fmt.Errorf("source: %s on %s: %w", doing, where, err)
	}
	return err
}

// Worded gives err, unless step worded it (a *NoAnswerError), the words
// "source: doing: ".
func Worded(doing string, err error) error {
	var na *NoAnswerError
	if err == nil || errors.As(err, &na) {
		return err
	}
	return fmt.Errorf("source: %s: %w", doing, err)
}

// ConnectTimeout is how long connecting may take.
func (ds Deadlines) ConnectTimeout() time.Duration { return ds.connect.d }

// SetUp is how long each set-up step may take.
func (ds Deadlines) SetUp() time.Duration { return ds.setUp.d }

// CleanUp is a context for statements that end a snapshot, whatever
// ended its use: a server that stopped answering must not hold remodel
// for ever as it leaves.
func (ds Deadlines) CleanUp() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), ds.setUp.d)
}
