package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestFilesUsage: a wrong --files is a usage error (exit status 2).
func TestFilesUsage(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct{ files, want string }{
		{"s3://bucket/", "--files: \"s3://bucket/\" has no prefix"},
		{"https://bucket/p/", "is not an s3://bucket/prefix/ URL"},
	} {
		code, _, errOut := remodel(t, "verify", "--source", "postgres://x@127.0.0.1:1/x", "-m", "../../../examples/personalization/mapping.yaml", "--files", tc.files)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("--files %s: exit %d, %q; want 2 and %q", tc.files, code, errOut, tc.want)
		}
	}
}

// TestFilesEndToEnd: migrate --to writes the example into an in-process
// S3 (AWS_ENDPOINT_URL_S3), verify --files passes it with exit status 0 and
// a files section, the access patterns not checked; with an object deleted
// it fails with exit status 1 and names the object.
func TestFilesEndToEnd(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close) // once the parallel engines ended
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	client := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	m := "../../../examples/personalization/mapping.yaml"
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database and prefix
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../../examples/personalization")
			url := "s3://bkt/" + eng.Name + "/"
			code, out, errOut := remodel(t, "migrate", "--source", dsn, "-m", m, "--to", url, "--object-size", "1", "--checkpoint", t.TempDir()+"/cp.json")
			if code != 0 {
				t.Fatalf("migrate --to: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = remodel(t, "verify", "--source", dsn, "-m", m, "--files", url, "--output", "json")
			var rep struct {
				OK    bool
				Files *struct {
					URL            string
					MappingChecked bool `json:"mapping_checked"`
				}
				Patterns []struct {
					NotChecked bool `json:"not_checked"`
				} `json:"access_patterns"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("verify --files --output json: %v\n%s%s", err, out, errOut)
			}
			if code != 0 || !rep.OK || rep.Files == nil || rep.Files.URL != url || !rep.Files.MappingChecked || len(rep.Patterns) != 6 || !rep.Patterns[0].NotChecked {
				t.Fatalf("verify --files: exit %d, %+v\n%s%s", code, rep, out, errOut)
			}
			listed, err := client.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("bkt"), Prefix: aws.String(eng.Name + "/")})
			if err != nil || len(listed.Contents) == 0 {
				t.Fatalf("listing: %v", err)
			}
			gone := aws.ToString(listed.Contents[0].Key)
			if _, err := client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String("bkt"), Key: aws.String(gone)}); err != nil {
				t.Fatal(err)
			}
			code, out, errOut = remodel(t, "verify", "--source", dsn, "-m", m, "--files", url)
			if code != 1 || !strings.Contains(out, "s3://bkt/"+gone+" is in the manifest") || !strings.Contains(out, "not checked (files)") {
				t.Fatalf("verify --files with %s deleted: exit %d\n%s%s", gone, code, out, errOut)
			}
		})
	}
}

// TestFilesDirEndToEnd: migrate --to file:///dir/prefix/ writes the example
// into a local directory with no AWS configuration at all, verify --files
// of the same URL passes it (exit 0); a stray file planted under the
// prefix fails it (exit 1, the file named), and once it is gone verify
// passes again. --import with a directory is a usage error.
func TestFilesDirEndToEnd(t *testing.T) {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	m := "../../../examples/personalization/mapping.yaml"
	eng := testenv.Engines[0]
	dsn := eng.Fresh(t)
	testenv.LoadExample(t, eng.Name, dsn, "../../../examples/personalization")
	dir := t.TempDir()
	url := "file://" + dir + "/orders/"
	code, _, errOut := remodel(t, "migrate", "--source", dsn, "-m", m, "--to", url, "--import")
	if code != 2 || !strings.Contains(errOut, "--import does not go with a local directory") {
		t.Errorf("--to file:// --import: exit %d, %s", code, errOut)
	}
	code, out, errOut := remodel(t, "migrate", "--source", dsn, "-m", m, "--to", url, "--object-size", "1", "--checkpoint", t.TempDir()+"/cp.json")
	if code != 0 {
		t.Fatalf("migrate --to %s: exit %d\n%s%s", url, code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "orders.remodel-manifest.json")); err != nil {
		t.Fatalf("the manifest beside the prefix: %v", err)
	}
	code, out, errOut = remodel(t, "verify", "--source", dsn, "-m", m, "--files", url)
	if code != 0 || !strings.Contains(out, "not checked (files)") {
		t.Fatalf("verify --files %s: exit %d\n%s%s", url, code, out, errOut)
	}
	stray := filepath.Join(dir, "orders", "stray.json.gz")
	if err := os.WriteFile(stray, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = remodel(t, "verify", "--source", dsn, "-m", m, "--files", url)
	if code != 1 || !strings.Contains(out, "file://"+stray+" is under the prefix but not in the manifest") {
		t.Fatalf("verify --files with a stray file: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.Remove(stray); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut = remodel(t, "verify", "--source", dsn, "-m", m, "--files", url); code != 0 {
		t.Fatalf("verify --files once the stray file is gone: exit %d\n%s%s", code, out, errOut)
	}
}
