package cli

import (
	"path/filepath"
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
		{[]string{"migrate", "--to", "s3://b/p/", "--compression", "lz4"}, `compression "lz4": gzip, zstd or none`},
		{[]string{"migrate", "--to", "s3://b/p/", "--bulk-put", "--rate-limit", "500"}, "--rate-limit 500 with --bulk-put: the rate limit becomes the bulk put's MaxWriteRequestUnits, which DynamoDB takes from 1024 write units a second up"},
		{[]string{"migrate", "--to", "s3://b/p/", "--bulk-put", "--bulk-tier", "fast"}, `--bulk-tier "fast": standard or accelerated`},
		{[]string{"migrate", "--to", "s3://b/p/", "--bulk-put", "--import"}, "--bulk-put does not go with --import"},
		{[]string{"migrate", "--to", "s3://b/p/", "--bulk-tier", "accelerated"}, "--bulk-tier needs --bulk-put"},
		{[]string{"migrate", "--to", "file:///tmp/p/", "--bulk-put"}, "--bulk-put does not go with a local directory"},
		{[]string{"migrate", "--bulk-put"}, "need --to"},
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

// TestS3OutputFileUnderPrefix: a report of --output-file where the objects
// of --to file:// go (named as the job's manifest, which it would replace,
// or under the prefix, where ImportTable would import it) is refused as
// the checkpoint and rejects file are, before anything is opened; a
// report beside them is not.
func TestS3OutputFileUnderPrefix(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	dir := t.TempDir()
	to := "file://" + dir + "/p/"
	for _, c := range []struct {
		file    string
		refused bool
	}{
		{"json=" + filepath.Join(dir, "p.remodel-manifest.json"), true},
		{filepath.Join(dir, "p.shard-1-of-2.remodel-manifest.json"), true},
		{"text=" + filepath.Join(dir, "p", "report.txt"), true},
		{filepath.Join(dir, "report.json"), false},
		{filepath.Join(dir, "q.json"), false},
	} {
		code, _, errOut := remodel(t, "migrate", "--to", to, "--output-file", c.file)
		under := strings.Contains(errOut, "is under "+to+" or one of its manifests")
		if under != c.refused || c.refused && code != 2 {
			t.Errorf("--output-file %s: exit %d, %q; want it refused: %v", c.file, code, errOut, c.refused)
		}
	}
}
