package cli

import (
	"context"
	"net"
	"strings"
	"testing"
)

// TestDynamoDBRefused: a DynamoDB endpoint where nothing listens is said
// in one line on stderr, naming the endpoint and the dial error, for every
// command that talks to DynamoDB (and in verify's report), not as the
// SDK's chain (operation error ..., https response error StatusCode: 0,
// RequestID: , request send failed, Post ...).
func TestDynamoDBRefused(t *testing.T) {
	awsEnv(t)
	// A port that refuses: one just listened on and closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	endpoint := "http://" + addr
	want := "remodel: DynamoDB at " + endpoint + " refuses connections (dial tcp " + addr + ": connect: connection refused): is DynamoDB Local running?\n"
	dsn, m := tiny(t, "postgres")
	tests := []struct {
		name string
		args []string
	}{
		{"migrate", []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", "t"}},
		{"migrate --create-table", []string{"migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", "t", "--create-table"}},
		{"verify", []string{"verify", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", "t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := remodelCtx(t, context.Background(), tt.args...)
			if code != exitError || errOut != want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and:\n%s", code, errOut, exitError, want)
			}
			if strings.Contains(out, "StatusCode") || strings.Contains(out, "operation error") {
				t.Errorf("the report shows the SDK's chain:\n%s", out)
			}
		})
	}
}
