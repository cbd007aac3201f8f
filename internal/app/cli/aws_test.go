package cli

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// tableIn reports whether DynamoDB Local holds the table in the region
// (it keeps tables per region and access key).
func tableIn(t *testing.T, endpoint, region, table string) bool {
	t.Helper()
	db := dynamodb.New(dynamodb.Options{Region: region, BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	_, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	return true
}

// TestRegionFlag: --region decides where the table is created and read.
func TestRegionFlag(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	table := testenv.UniqueName("remodel_region")
	args := []string{"--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", table, "--region", "eu-west-3"}
	if code, out, errOut := remodel(t, append([]string{"migrate", "--create-table"}, args...)...); code != exitOK {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
	}
	if !tableIn(t, endpoint, "eu-west-3", table) || tableIn(t, endpoint, "us-east-1", table) {
		t.Fatalf("the table is not in eu-west-3 alone")
	}
	if code, out, errOut := remodel(t, append([]string{"verify"}, args...)...); code != exitOK {
		t.Fatalf("verify --region: exit %d\n%s%s", code, out, errOut)
	}
	// Without --region, AWS_REGION (us-east-1) is used: no such table there.
	code, _, errOut := remodel(t, append([]string{"verify"}, args[:len(args)-2]...)...)
	if want := fmt.Sprintf("remodel: verify: table %s does not exist at %s (region us-east-1); ", table, endpoint); code != exitError || !strings.HasPrefix(errOut, want) {
		t.Fatalf("verify without --region: exit %d, %q; want %q", code, errOut, want)
	}
}

// TestProfileFlag: --profile takes region, endpoint and credentials from
// the shared config and credentials files, as the AWS CLI does.
func TestProfileFlag(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	dir := t.TempDir()
	cfg, creds := filepath.Join(dir, "config"), filepath.Join(dir, "credentials")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cfg, "[profile remodeltest]\nregion = ap-south-1\nendpoint_url = "+endpoint+"\n\n[profile noregion]\n")
	write(creds, "[remodeltest]\naws_access_key_id = local\naws_secret_access_key = local\n")
	t.Setenv("AWS_CONFIG_FILE", cfg)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_REGION", "")
	dsn, m := tiny(t, "postgres")
	table := testenv.UniqueName("remodel_profile")
	code, out, errOut := remodel(t, "migrate", "--profile", "remodeltest", "--source", dsn, "-m", m, "--table", table, "--create-table")
	if code != exitOK {
		t.Fatalf("migrate --profile: exit %d\n%s%s", code, out, errOut)
	}
	if !tableIn(t, endpoint, "ap-south-1", table) {
		t.Fatalf("the table is not in the profile's region")
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--profile", "nosuch"}, exitError, fmt.Sprintf("remodel: dynamo: no AWS profile %q in %s or %s\n", "nosuch", cfg, creds)},
		{[]string{"--profile", "noregion"}, exitUsage, "remodel: dynamo: no AWS region: give --region, set AWS_REGION or give the profile a region (DynamoDB Local accepts any, e.g. us-east-1)\n"},
	} {
		code, _, errOut := remodel(t, append([]string{"verify", "--source", dsn, "-m", m}, tc.args...)...)
		if code != tc.code || errOut != tc.want {
			t.Errorf("verify %q: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// captureStderr redirects os.Stderr (where the AWS SDK's default logger
// writes) until the returned function, which gives what was written.
func captureStderr(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	return func() string {
		os.Stderr = old
		w.Close()
		return <-done
	}
}

// TestNoSDKWarnings: DynamoDB Local answers errors without an X-Amz-Crc32
// header, on which the SDK's own checksum check printed "WARN failed to
// close HTTP response body ... response did not match expected checksum"
// on stderr. remodel prints only its own message, with --debug too.
func TestNoSDKWarnings(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	for _, debug := range []bool{false, true} {
		for _, cmd := range []string{"migrate", "verify"} {
			args := []string{cmd, "--source", dsn, "-m", m, "--endpoint-url", endpoint, "--table", "remodel_no_such_table"}
			if debug {
				args = append(args, "--debug")
			}
			stderr := captureStderr(t)
			code, _, errOut := remodel(t, args...)
			if printed := stderr(); printed != "" {
				t.Errorf("%q: the SDK wrote to stderr:\n%s", args, printed)
			}
			if code != exitError || strings.Contains(errOut, "WARN") || strings.Contains(errOut, "checksum") {
				t.Errorf("%q: exit %d, stderr:\n%s", args, code, errOut)
			}
			if lines := strings.Count(errOut, "\n"); !debug && lines != 1 {
				t.Errorf("%q: %d lines on stderr, want 1:\n%s", args, lines, errOut)
			}
		}
	}
}

// fakeDynamoDB answers every request with answer and counts the requests.
func fakeDynamoDB(t *testing.T, answer func(w http.ResponseWriter)) (string, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		calls.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		answer(w)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &calls
}

// TestSDKLogLinesOnlyWithDebug: a server whose Date header the SDK cannot
// read makes it log a warning. By default remodel prints nothing of it
// (and the SDK writes nothing to stderr itself); --debug shows it as a
// debug line.
func TestSDKLogLinesOnlyWithDebug(t *testing.T) {
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	url, _ := fakeDynamoDB(t, func(w http.ResponseWriter) {
		w.Header().Set("Date", "yesterday")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`)
	})
	args := []string{"verify", "--source", dsn, "-m", m, "--endpoint-url", url, "--table", "t"}
	notFound := "remodel: verify: table t does not exist at " + url + " (region us-east-1)"
	const sdkLine = `level=DEBUG msg="failed to parse response Date header value, got unable to parse time string`

	stderr := captureStderr(t)
	code, _, errOut := remodel(t, args...)
	if printed := stderr(); printed != "" {
		t.Errorf("the SDK wrote to stderr:\n%s", printed)
	}
	if code != exitError || !strings.HasPrefix(errOut, notFound) {
		t.Errorf("without --debug: exit %d, stderr:\n%s\nwant:\n%s", code, errOut, notFound)
	}

	stderr = captureStderr(t)
	code, _, errOut = remodel(t, append(args, "--debug")...)
	if printed := stderr(); printed != "" {
		t.Errorf("the SDK wrote to stderr:\n%s", printed)
	}
	if code != exitError || !strings.Contains(errOut, notFound) || !strings.Contains(errOut, sdkLine) || !strings.Contains(errOut, "from=aws-sdk sdk_level=WARN") {
		t.Errorf("with --debug: exit %d, stderr:\n%s\nwant the SDK's line %s", code, errOut, sdkLine)
	}
}

// TestChecksumMismatch: an answer whose body does not match its
// X-Amz-Crc32 header is retried, and after the SDK's attempts the command
// fails naming it (the SDK's own check only logged it and used the answer).
func TestChecksumMismatch(t *testing.T) {
	awsEnv(t)
	dsn, m := tiny(t, "postgres")
	const body = `{"Table":{"TableName":"t","TableStatus":"ACTIVE"}}`
	url, calls := fakeDynamoDB(t, func(w http.ResponseWriter) {
		w.Header().Set("X-Amz-Crc32", "12345")
		_, _ = io.WriteString(w, body)
	})
	code, _, errOut := remodel(t, "verify", "--source", dsn, "-m", m, "--endpoint-url", url, "--table", "t", "--debug")
	want := fmt.Sprintf("remodel: verify: describing table t: operation error DynamoDB: DescribeTable, exceeded maximum number of attempts, 3, https response error StatusCode: 200, RequestID: , dynamo: the response does not match its X-Amz-Crc32 checksum (header 12345, body %d)\n", crc32.ChecksumIEEE([]byte(body)))
	if code != exitError || !strings.HasSuffix(errOut, want) {
		t.Fatalf("exit %d, stderr:\n%s\nwant it to end with:\n%s", code, errOut, want)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if n := strings.Count(errOut, `msg="retrying request DynamoDB/DescribeTable, attempt`); n != 2 {
		t.Errorf("--debug shows %d retries, want 2:\n%s", n, errOut)
	}
}
