package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/remodel-dev/remodel/internal/testenv"
)

// TestFilesUsage: a wrong --files is a usage error (exit status 2).
func TestFilesUsage(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, tc := range []struct{ files, want string }{
		{"s3://bucket/", "--files: \"s3://bucket/\" has no prefix"},
		{"https://bucket/p/", "is not an s3://bucket/prefix/ URL"},
	} {
		code, _, errOut := remodel(t, "verify", "--source", "postgres://x@127.0.0.1:1/x", "-m", "../../examples/personalization/mapping.yaml", "--files", tc.files)
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
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	client := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	m := "../../examples/personalization/mapping.yaml"
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../examples/personalization")
			url := "s3://bkt/" + eng.Name + "/"
			code, out, errOut := remodel(t, "migrate", "--source", dsn, "-m", m, "--to", url, "--object-size", "1", "--checkpoint", t.TempDir()+"/cp.json")
			if code != 0 {
				t.Fatalf("migrate --to: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut = remodel(t, "verify", "--source", dsn, "-m", m, "--files", url, "--format", "json")
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
				t.Fatalf("verify --files --format json: %v\n%s%s", err, out, errOut)
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
