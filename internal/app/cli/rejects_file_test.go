package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestRejectsFileAlwaysWritten: migrate --rejects FILE writes FILE even
// when no row is rejected (empty), replacing what an earlier run left
// there, and verify --rejects FILE then accepts it (before, the file was
// created only on the first rejection and verify exited 2 on a missing
// file, or read an earlier run's rejections).
func TestRejectsFileAlwaysWritten(t *testing.T) {
	awsEnv(t)
	endpoint := testenv.DynamoDB(t)
	tests := []struct {
		name    string
		earlier string // the file before the run; "-": none
	}{
		{name: "no file before", earlier: "-"},
		{name: "an earlier run's file", earlier: `{"entity":"item","row":"id=9","reason":"rendering PK: {k}: column k is NULL"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dsn, m := tiny(t, "postgres")
			_, table := testenv.DynamoDBTable(t)
			rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
			if tt.earlier != "-" {
				if err := os.WriteFile(rejects, []byte(tt.earlier), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := remodelCtx(t, context.Background(), "migrate", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--create-table", "--rejects", rejects)
			if code != exitOK {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
			}
			if b, err := os.ReadFile(rejects); err != nil || len(b) != 0 {
				t.Fatalf("the rejects file after a run that rejected nothing: %q, %v; want it empty", b, err)
			}
			code, out, errOut = remodelCtx(t, context.Background(), "verify", "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--rejects", rejects)
			if code != exitOK {
				t.Fatalf("verify --rejects: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}
