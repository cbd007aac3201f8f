package cli

import (
	"context"
	"io"
	"regexp"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/cobra"
)

// silentRun runs remodel, failing the test when it succeeds, when stderr
// is not want, or when it took more than bound: a deadline did not end
// it. ctx ends long after every deadline under test, so that a command
// without its deadline fails instead of hanging the test.
func silentRun(t *testing.T, want *regexp.Regexp, bound time.Duration, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	code, out, errOut := remodelCtx(t, ctx, args...)
	if code != exitError || !want.MatchString(errOut) {
		t.Errorf("remodel %q: exit %d, stderr:\n%s\nwant exit %d and stderr matching %s\nstdout:\n%s", args[0], code, errOut, exitError, want, out)
	}
	if took := time.Since(start); took > bound {
		t.Errorf("remodel %q took %s, want at most %s", args[0], took, bound)
	}
}

// TestSilentSource: a PostgreSQL or MySQL source that accepts the
// connection and never answers fails migrate and verify within
// --source-timeout, exit status 3, naming the server and the flag.
func TestSilentSource(t *testing.T) {
	awsEnv(t)
	addr, _ := hangingServer(t)
	m := writeFile(t, "tiny.yaml", tinyMapping)
	for _, src := range []struct{ dsn, want string }{
		{"postgres://postgres:s3cr3tPW@" + addr + "/x?sslmode=disable", `PostgreSQL at 127\.0\.0\.1:\d+ as postgres`},
		{"mysql://root:s3cr3tPW@" + addr + "/x", `MySQL at 127\.0\.0\.1:\d+ as root`},
	} {
		want := regexp.MustCompile(`^remodel: source: connecting to ` + src.want + `: no answer within 500ms \(--source-timeout\)\n$`)
		for _, cmd := range []string{"migrate", "verify"} {
			silentRun(t, want, 30*time.Second, cmd, "--source", src.dsn, "-m", m, "--endpoint-url", "http://127.0.0.1:1", "--source-timeout", "500ms")
		}
	}
}

// TestSilentDynamoDB: a DynamoDB endpoint that accepts the connection and
// never answers fails verify (and migrate) on its first request, each of
// the SDK's 3 attempts cut at --request-timeout, exit status 3, naming
// DynamoDB and the call.
func TestSilentDynamoDB(t *testing.T) {
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	addr, _ := hangingServer(t)
	for _, cmd := range []string{"verify", "migrate"} {
		want := regexp.MustCompile(`^remodel: ` + cmd + `: describing table silent_tiny: operation error DynamoDB: DescribeTable, exceeded maximum number of attempts, 3, no answer within 300ms\n$`)
		silentRun(t, want, time.Minute, cmd, "--source", dsn, "-m", m, "--endpoint-url", "http://"+addr, "--table", "silent_tiny", "--request-timeout", "300ms")
	}
}

// TestDefaultDeadlinesAddUp: with the default flags, a source or a
// DynamoDB endpoint that never answers ends migrate and verify within
// 150 s. The source's first silent step ends the command after one
// --source-timeout; a DynamoDB call, after the SDK's attempts of one
// --request-timeout each and its waits between them.
func TestDefaultDeadlinesAddUp(t *testing.T) {
	awsEnv(t)
	a := &app{stdout: io.Discard, stderr: io.Discard}
	for _, cmd := range []*cobra.Command{a.migrateCmd(), a.verifyCmd()} {
		var d dynamoFlags
		if err := cmd.ParseFlags(nil); err != nil {
			t.Fatal(err)
		}
		source := flagDuration(t, cmd, "source-timeout")
		d.requestTimeout = flagDuration(t, cmd, "request-timeout")
		db, err := d.connect(context.Background(), a)
		if err != nil {
			t.Fatal(err)
		}
		attempts := db.API.(*dynamodb.Client).Options().Retryer.MaxAttempts()
		dynamo := time.Duration(attempts)*d.requestTimeout + time.Duration(attempts-1)*retry.DefaultMaxBackoff
		if source > 150*time.Second || dynamo > 150*time.Second {
			t.Errorf("%s: a silent source ends it after %s, a silent DynamoDB after %s (%d attempts of %s); want at most 150s", cmd.Name(), source, dynamo, attempts, d.requestTimeout)
		}
	}
}

// flagDuration is the default of cmd's duration flag name.
func flagDuration(t *testing.T, cmd *cobra.Command, name string) time.Duration {
	t.Helper()
	f := cmd.Flags().Lookup(name)
	if f == nil {
		t.Fatalf("%s has no --%s", cmd.Name(), name)
	}
	d, err := time.ParseDuration(f.DefValue)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
