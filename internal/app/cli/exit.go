package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/migrate"
)

// Exit statuses, the same for every command (docs/cli.md).
const (
	exitOK          = 0   // everything passed
	exitFailed      = 1   // the command ran and its checks failed
	exitUsage       = 2   // bad flags, arguments or flag values
	exitError       = 3   // the command could not run (source, DynamoDB, mapping file, ...)
	exitInterrupted = 130 // SIGINT or SIGTERM (128 + SIGINT's number, as shells report it)
)

// usageError marks errors in how the command was called.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// failedError marks a command that ran and whose checks failed: verify found
// differences, migrate rejected more rows than --max-rejects allows,
// validate found problems in the mapping. Its report, if any, is printed.
type failedError struct{ error }

func (e failedError) Unwrap() error { return e.error }

// exitStatus prints err (if any) on stderr and returns the exit status. An
// error while ctx is canceled is an interruption: main's ctx is canceled
// only by SIGINT or SIGTERM (signal.NotifyContext).
func exitStatus(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var behind *migrate.StoppedBehindError
	if ctx.Err() != nil && !errors.As(err, &behind) { // a follower stopped behind says so, and is no clean stop
		msg := "interrupted"
		if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
			msg += " (" + cause.Error() + ")"
		}
		fmt.Fprintf(stderr, "remodel: %s\n", msg)
		return exitInterrupted
	}
	// A DynamoDB endpoint that refuses connections is said in one line,
	// not in the SDK's chain of wrapped errors.
	for _, line := range strings.Split(strings.TrimRight(dynamo.Explain(err).Error(), "\n"), "\n") {
		fmt.Fprintf(stderr, "remodel: %s\n", line)
	}
	var ue usageError
	var fe failedError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &fe):
		return exitFailed
	}
	return exitError
}

// migrateFailed marks the runs of migrate whose checks failed (exit status
// 1): one stopped on its rejected rows (more than maxRejects, in the copy
// or by the follower), and one
// whose closing Scan found fewer items in the table than the job counts as
// written (migrate.ErrItemsMissing). Any other error is left as it is.
func migrateFailed(err error, rep *migrate.Report, maxRejects int64) error {
	followRejected := rep != nil && rep.Follow != nil && rep.Follow.Rejected > maxRejects
	if err != nil && rep != nil && (rep.Rejected > maxRejects || followRejected || errors.Is(err, migrate.ErrItemsMissing)) {
		return failedError{err}
	}
	return err
}
