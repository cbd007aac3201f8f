package dynamo

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fakeDynamoDB answers every request with answer(call number from 1) and
// counts the calls.
func fakeDynamoDB(t *testing.T, answer func(n int, w http.ResponseWriter)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		answer(int(calls.Add(1)), w)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

const tableBody = `{"Table":{"TableName":"t","TableStatus":"ACTIVE"}}`

func crc(body string) string { return strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(body))), 10) }

// answerWith writes a 200 answer with the given X-Amz-Crc32 header ("" for none).
func answerWith(w http.ResponseWriter, header, body string) {
	if header != "" {
		w.Header().Set("X-Amz-Crc32", header)
	}
	_, _ = io.WriteString(w, body)
}

// isolate keeps the machine's AWS settings out of a test.
func isolate(t testing.TB) {
	for _, k := range []string{"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CA_BUNDLE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// client connects to url with static credentials; the SDK's log lines go
// to log (nil: discarded).
func client(t *testing.T, url string, log *slog.Logger) *Client {
	t.Helper()
	isolate(t)
	db, err := Connect(context.Background(), Config{Region: "us-east-1", Endpoint: url, Log: log, LoadOptions: []func(*config.LoadOptions) error{
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")),
		config.WithRetryer(func() aws.Retryer { // the SDK's 3 attempts, without waiting
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			})
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func describe(db API) error {
	_, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("t")})
	return err
}

// captureStderr redirects os.Stderr (where the SDK's default logger
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

func debugLog() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})), &b
}

func TestChecksum(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers []string // X-Amz-Crc32 of the 1st, 2nd, ... answer; the last repeats
		calls   int32
		wantErr string
	}{
		{"right", []string{crc(tableBody)}, 1, ""},
		{"no header is not checked", []string{""}, 1, ""},
		{"wrong once, then right: retried", []string{"1", crc(tableBody)}, 2, ""},
		{"always wrong: an error after the SDK's 3 attempts", []string{"1"}, 3,
			"operation error DynamoDB: DescribeTable, exceeded maximum number of attempts, 3, https response error StatusCode: 200, RequestID: , dynamo: the response does not match its X-Amz-Crc32 checksum (header 1, body " + crc(tableBody) + ")"},
		{"not a number", []string{"x"}, 3,
			"operation error DynamoDB: DescribeTable, exceeded maximum number of attempts, 3, https response error StatusCode: 200, RequestID: , dynamo: the response does not match its X-Amz-Crc32 checksum (header x, body " + crc(tableBody) + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, calls := fakeDynamoDB(t, func(n int, w http.ResponseWriter) {
				answerWith(w, tc.headers[min(n, len(tc.headers))-1], tableBody)
			})
			log, logged := debugLog()
			stderr := captureStderr(t)
			err := describe(client(t, srv.URL, log))
			if printed := stderr(); printed != "" {
				t.Errorf("the SDK wrote to stderr: %q", printed)
			}
			if got := calls.Load(); got != tc.calls {
				t.Errorf("%d calls, want %d", got, tc.calls)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("DescribeTable: %v", err)
				}
				return
			}
			var ce *ChecksumError
			if err == nil || err.Error() != tc.wantErr || !errors.As(err, &ce) {
				t.Fatalf("DescribeTable: %v\nwant a *ChecksumError: %s", err, tc.wantErr)
			}
			if n := strings.Count(logged.String(), `msg="response checksum mismatch, retrying"`); n != 3 {
				t.Errorf("%d mismatches logged, want 3:\n%s", n, logged)
			}
		})
	}
}

// TestErrorAnswerWithoutChecksum is DynamoDB Local's error answer: no
// X-Amz-Crc32 header. The SDK's own check warned on stderr for each one.
func TestErrorAnswerWithoutChecksum(t *testing.T) {
	srv, _ := fakeDynamoDB(t, func(_ int, w http.ResponseWriter) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Cannot do operations on a non-existent table"}`)
	})
	log, logged := debugLog()
	stderr := captureStderr(t)
	err := describe(client(t, srv.URL, log))
	if printed := stderr(); printed != "" {
		t.Errorf("the SDK wrote to stderr: %q", printed)
	}
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Fatalf("DescribeTable: %v, want ResourceNotFoundException", err)
	}
	if strings.Contains(logged.String(), "checksum") || strings.Contains(logged.String(), "WARN") {
		t.Errorf("a warning was logged:\n%s", logged)
	}
}

// TestSDKLogLines: the SDK's own log lines (here its warning about a Date
// header it cannot read) reach the logger at debug level, and never stderr.
func TestSDKLogLines(t *testing.T) {
	srv, _ := fakeDynamoDB(t, func(_ int, w http.ResponseWriter) {
		w.Header().Set("Date", "yesterday")
		answerWith(w, crc(tableBody), tableBody)
	})
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		var b bytes.Buffer
		log := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: level}))
		stderr := captureStderr(t)
		err := describe(client(t, srv.URL, log))
		if printed := stderr(); printed != "" {
			t.Errorf("the SDK wrote to stderr: %q", printed)
		}
		if err != nil {
			t.Fatal(err)
		}
		want := `level=DEBUG msg="failed to parse response Date header value, got unable to parse time string`
		if got := strings.Contains(b.String(), want) && strings.Contains(b.String(), "from=aws-sdk sdk_level=WARN"); got != (level == slog.LevelDebug) {
			t.Errorf("at level %s the log holds:\n%s", level, b.String())
		}
	}
	// Without a logger the lines go nowhere.
	stderr := captureStderr(t)
	if err := describe(client(t, srv.URL, nil)); err != nil {
		t.Fatal(err)
	}
	if printed := stderr(); printed != "" {
		t.Errorf("the SDK wrote to stderr: %q", printed)
	}
}

// TestNoRegion: with no region anywhere, Connect says how to give one.
func TestNoRegion(t *testing.T) {
	isolate(t)
	_, err := Connect(context.Background(), Config{})
	if !errors.Is(err, ErrNoRegion) {
		t.Fatalf("Connect: %v, want ErrNoRegion", err)
	}
}

// TestTransport: Connect's client sends each request in one write and keeps
// a connection per writer.
func TestTransport(t *testing.T) {
	db := client(t, "http://127.0.0.1:1", nil)
	bc, ok := sdk(db).Options().HTTPClient.(*awshttp.BuildableClient)
	if !ok {
		t.Fatalf("HTTP client %T", sdk(db).Options().HTTPClient)
	}
	if tr := bc.GetTransport(); tr.WriteBufferSize != 64<<10 || tr.MaxIdleConnsPerHost < 256 {
		t.Errorf("write buffer %d, idle connections per host %d", tr.WriteBufferSize, tr.MaxIdleConnsPerHost)
	}
}

// TestNoCredentials: with no credentials anywhere, a request fails saying
// how to give them, not only that the last provider (the instance role)
// found none.
func TestNoCredentials(t *testing.T) {
	srv, _ := fakeDynamoDB(t, func(_ int, w http.ResponseWriter) { answerWith(w, crc(tableBody), tableBody) })
	isolate(t)
	db, err := Connect(context.Background(), Config{Region: "us-east-1", Endpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	err = describe(db)
	if err == nil || !strings.Contains(err.Error(), "no AWS credentials (give --profile, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; DynamoDB Local accepts any") {
		t.Fatalf("DescribeTable without credentials: %v", err)
	}
}

// sdk is the SDK client behind a Client Connect made.
func sdk(c *Client) *dynamodb.Client { return c.API.(*dynamodb.Client) }
