package cli

import (
	"strings"
	"testing"
)

// TestS3UsageErrors: --to's mistakes are usage errors (exit status 2),
// found before anything is opened.
func TestS3UsageErrors(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"migrate", "--to", "s3://bucket/"}, "has no prefix"},
		{[]string{"migrate", "--to", "https://bucket/p/"}, "is not an s3://bucket/prefix/ URL"},
		{[]string{"migrate", "--to", "s3://b/p/", "--create-table"}, "--create-table does not go with --to"},
		{[]string{"migrate", "--to", "s3://b/p/", "--allow-non-empty"}, "--allow-non-empty does not go with --to"},
		{[]string{"migrate", "--to", "s3://b/p/", "--follow"}, "--follow does not go with --to"},
		{[]string{"migrate", "--to", "s3://b/p/", "--compression", "lz4"}, `compression "lz4": gzip or zstd`},
		{[]string{"migrate", "--to", "s3://b/p/", "--object-size", "0"}, "--object-size must be at least 1, got 0"},
		{[]string{"migrate", "--import"}, "need --to"},
		{[]string{"migrate", "--object-size", "8"}, "need --to"},
	} {
		code, _, errOut := remodel(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
