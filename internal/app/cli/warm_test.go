package cli

import (
	"context"
	"strings"
	"testing"
)

// TestWarmThroughputFlag: --warm-throughput takes WRITES or WRITES,READS
// and needs --create-table; anything else is a usage error (exit 2) found
// before anything is opened.
func TestWarmThroughputFlag(t *testing.T) {
	m := writeFile(t, "tiny.yaml", tinyMapping)
	base := []string{"migrate", "--source", "postgres://nobody@127.0.0.1:1/none", "-m", m, "--region", "us-east-1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--warm-throughput", "12000"}, "--warm-throughput needs --create-table"},
		{[]string{"--create-table", "--warm-throughput", "0"}, `--warm-throughput "0": "0" is not a positive number of units a second`},
		{[]string{"--create-table", "--warm-throughput", "1,2,3"}, "want WRITES or WRITES,READS"},
		{[]string{"--create-table", "--warm-throughput", "12k"}, "is not a positive number"},
	} {
		code, _, stderr := remodelCtx(t, context.Background(), append(base, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s\nwant exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// A good value passes the checks: the run fails later, on the source.
	code, _, stderr := remodelCtx(t, context.Background(), append(base, "--create-table", "--warm-throughput", "12000,24000")...)
	if code == exitUsage || strings.Contains(stderr, "warm-throughput") {
		t.Errorf("a good --warm-throughput: exit %d, %s", code, stderr)
	}
	_, help, _ := remodelCtx(t, context.Background(), "migrate", "--help")
	for _, want := range []string{"--warm-throughput", "adapts to throttling (AIMD)", "the most BatchWriteItem requests in flight"} {
		if !strings.Contains(help, want) {
			t.Errorf("migrate --help does not say %q", want)
		}
	}
}
