package dynamo

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// silentServer reads every request and never answers it; it counts them.
func silentServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		calls.Add(1)
		<-r.Context().Done()
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv, &calls
}

func describeWith(ctx context.Context, db API, optFns ...func(*dynamodb.Options)) error {
	_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("t")}, optFns...)
	return err
}

// TestAttemptTimeout: an attempt that gets no answer within its deadline
// fails with a *NoAnswerError, which the SDK's retryer tries again; an
// answer in time ends the call; a canceled call is not taken for a timeout.
func TestAttemptTimeout(t *testing.T) {
	t.Run("never answered", func(t *testing.T) {
		srv, calls := silentServer(t)
		db := client(t, srv.URL, nil)
		start := time.Now()
		// 500ms: long enough for each attempt to reach the server on a
		// loaded machine (the server counts what it received).
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // attempts not cut fail here, not hang
		defer cancel()
		err := describeWith(ctx, db, AttemptTimeout(500*time.Millisecond))
		var na *NoAnswerError
		if want := "operation error DynamoDB: DescribeTable, exceeded maximum number of attempts, 3, no answer within 500ms"; err == nil || err.Error() != want || !errors.As(err, &na) {
			t.Fatalf("DescribeTable: %v\nwant %s", err, want)
		}
		if calls.Load() != 3 {
			t.Errorf("%d attempts, want the SDK's 3", calls.Load())
		}
		// Each attempt waited out its deadline, and no more: the server
		// never answers, so an attempt not cut would hang.
		if d := time.Since(start); d < 1500*time.Millisecond || d > 15*time.Second {
			t.Errorf("3 attempts of 500ms took %s", d)
		}
	})
	t.Run("answered on the second attempt", func(t *testing.T) {
		srv, calls := fakeDynamoDB(t, func(n int, w http.ResponseWriter) {
			if n == 1 {
				time.Sleep(3 * time.Second) // far past the attempt's deadline (srv.Close waits for it)
			}
			answerWith(w, crc(tableBody), tableBody)
		})
		db := client(t, srv.URL, nil)
		start := time.Now()
		if err := describeWith(context.Background(), db, AttemptTimeout(200*time.Millisecond)); err != nil || calls.Load() != 2 {
			t.Fatalf("DescribeTable: %v after %d calls, want success on the second", err, calls.Load())
		}
		if d := time.Since(start); d > 2500*time.Millisecond {
			t.Errorf("the call took %s: the first attempt (answered after 3s) was not cut at 200ms", d)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		srv, calls := silentServer(t)
		db := client(t, srv.URL, nil)
		// Long enough for the request to reach the server on a loaded
		// machine, and far below the attempt's deadline.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err := describeWith(ctx, db, AttemptTimeout(time.Minute))
		var na *NoAnswerError
		if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &na) || calls.Load() != 1 {
			t.Fatalf("DescribeTable: %v after %d calls, want the call's own deadline, once", err, calls.Load())
		}
	})
	t.Run("none", func(t *testing.T) {
		srv, _ := fakeDynamoDB(t, func(_ int, w http.ResponseWriter) { answerWith(w, crc(tableBody), tableBody) })
		if err := describeWith(context.Background(), client(t, srv.URL, nil), AttemptTimeout(0)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestClientRequestTimeout: every call of a client made by Connect has a
// deadline per attempt, Config.RequestTimeout, without a per-call option
// (verify's calls have none); the SDK's 3 attempts bound the call. A
// per-call AttemptTimeout replaces the client's instead of adding a second
// one: a longer one lets an answer slower than the client's deadline in.
func TestClientRequestTimeout(t *testing.T) {
	connect := func(t *testing.T, url string, d time.Duration) *Client {
		t.Helper()
		base := client(t, url, nil) // the test retryer, without waits
		db, err := Connect(context.Background(), Config{Region: "us-east-1", Endpoint: url, RequestTimeout: d, LoadOptions: []func(*config.LoadOptions) error{
			config.WithCredentialsProvider(sdk(base).Options().Credentials),
			config.WithRetryer(func() aws.Retryer { return sdk(base).Options().Retryer }),
		}})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	t.Run("never answered", func(t *testing.T) {
		srv, calls := silentServer(t)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a call without the deadline fails here, not hangs
		defer cancel()
		start := time.Now()
		err := describeWith(ctx, connect(t, srv.URL, 500*time.Millisecond))
		var na *NoAnswerError
		if want := "operation error DynamoDB: DescribeTable, exceeded maximum number of attempts, 3, no answer within 500ms"; err == nil || err.Error() != want || !errors.As(err, &na) {
			t.Fatalf("DescribeTable: %v\nwant %s", err, want)
		}
		if calls.Load() != 3 {
			t.Errorf("%d attempts, want the SDK's 3", calls.Load())
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("3 attempts of 500ms took %s", d)
		}
	})
	t.Run("per-call replaces", func(t *testing.T) {
		srv, calls := fakeDynamoDB(t, func(_ int, w http.ResponseWriter) {
			time.Sleep(time.Second) // past the client's deadline, within the call's
			answerWith(w, crc(tableBody), tableBody)
		})
		if err := describeWith(context.Background(), connect(t, srv.URL, 200*time.Millisecond), AttemptTimeout(time.Minute)); err != nil || calls.Load() != 1 {
			t.Fatalf("DescribeTable: %v after %d calls, want the first answer (the call's deadline, not the client's)", err, calls.Load())
		}
	})
}
