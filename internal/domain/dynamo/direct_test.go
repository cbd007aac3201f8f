package dynamo

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// recorded is a request a test server received.
type recorded struct {
	header http.Header
	body   string
	url    string
}

// answer is how a test server answers a BatchWriteItem.
type answer struct {
	status int
	header map[string]string // "X-Amz-Crc32": "ok" puts the body's own checksum
	body   string
	drop   bool          // close the connection without an answer
	delay  time.Duration // before answering
	date   time.Time     // the Date header; zero: now
}

// answering is a server that answers every request with *a and records
// the requests.
func answering(t *testing.T, a *answer) (*httptest.Server, func() []recorded) {
	t.Helper()
	var mu sync.Mutex
	var got []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, recorded{r.Header.Clone(), string(b), r.URL.String()})
		a := *a
		mu.Unlock()
		if a.drop {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		if a.delay > 0 {
			select {
			case <-time.After(a.delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		if !a.date.IsZero() {
			w.Header().Set("Date", a.date.UTC().Format(http.TimeFormat))
		}
		for k, v := range a.header {
			if k == "X-Amz-Crc32" && v == "ok" {
				v = crc(a.body)
			}
			w.Header().Set(k, v)
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []recorded {
		mu.Lock()
		defer mu.Unlock()
		r := got
		got = nil
		return r
	}
}

func ddbError(code, msg string) string {
	return `{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"` + msg + `"}`
}

var (
	testRetryables = retry.IsErrorRetryables(retry.DefaultRetryables)
	testThrottles  = retry.IsErrorThrottles(retry.DefaultThrottles)
)

// TestDirectMatchesSDK: for every kind of answer, BatchWriteItem's direct
// path returns what the SDK returns for the same call (NoRetry,
// AttemptTimeout): the same output, the same error text, the same error
// types and codes, the same retryable and throttle classification; and the
// server receives the same request (body, headers but the signature's and
// the invocation id, a signature over the same headers).
func TestDirectMatchesSDK(t *testing.T) {
	unprocessed := `{"UnprocessedItems":{"t":[{"PutRequest":{"Item":{"PK":{"S":"a"},"n":{"N":"1"}}}}]}}`
	for _, tc := range []struct {
		name string
		a    answer
	}{
		{"all processed", answer{status: 200, header: map[string]string{"X-Amz-Crc32": "ok", "X-Amzn-Requestid": "R1"}, body: `{"UnprocessedItems":{}}`}},
		{"all processed, no checksum", answer{status: 200, body: `{"UnprocessedItems":{}}`}},
		{"all processed, other spacing", answer{status: 200, header: map[string]string{"X-Amz-Crc32": "ok"}, body: `{"UnprocessedItems": {}}`}},
		{"consumed capacity", answer{status: 200, header: map[string]string{"X-Amz-Crc32": "ok"}, body: `{"ConsumedCapacity":[{"TableName":"t","CapacityUnits":2}],"UnprocessedItems":{}}`}},
		{"unprocessed", answer{status: 200, header: map[string]string{"X-Amz-Crc32": "ok"}, body: unprocessed}},
		{"checksum mismatch", answer{status: 200, header: map[string]string{"X-Amz-Crc32": "1", "X-Amzn-Requestid": "R2"}, body: `{"UnprocessedItems":{}}`}},
		{"checksum not a number", answer{status: 200, header: map[string]string{"X-Amz-Crc32": "x"}, body: unprocessed}},
		{"provisioned throughput exceeded", answer{status: 400, header: map[string]string{"X-Amzn-Requestid": "R3", "X-Amz-Crc32": "ok"}, body: ddbError("ProvisionedThroughputExceededException", "The level of configured provisioned throughput for the table was exceeded.")}},
		{"throttling", answer{status: 400, body: ddbError("ThrottlingException", "Rate of requests exceeds the allowed throughput.")}},
		{"request limit", answer{status: 400, body: ddbError("RequestLimitExceeded", "Throughput exceeds the current throughput limit for your account.")}},
		{"validation", answer{status: 400, header: map[string]string{"X-Amzn-Requestid": "R4"}, body: ddbError("ValidationException", "One or more parameter values were invalid: Missing the key PK in the item")}},
		{"not found", answer{status: 400, body: ddbError("ResourceNotFoundException", "Requested resource not found")}},
		{"unrecognized client", answer{status: 400, body: ddbError("UnrecognizedClientException", "The security token included in the request is invalid.")}},
		{"internal error", answer{status: 500, body: ddbError("InternalServerError", "Internal server error")}},
		{"unavailable, empty", answer{status: 503}},
		{"bad gateway, html", answer{status: 502, header: map[string]string{"Content-Type": "text/html"}, body: "<html>bad gateway</html>"}},
		{"error type in a header", answer{status: 400, header: map[string]string{"X-Amzn-Errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/"}, body: `{"message":"slow down"}`}},
		{"not JSON", answer{status: 200, body: `{"UnprocessedItems":`}},
		{"dropped", answer{drop: true}},
		{"too slow", answer{status: 200, body: `{"UnprocessedItems":{}}`, delay: 3 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := answer{status: 200, header: map[string]string{"X-Amz-Crc32": "ok"}, body: `{"UnprocessedItems":{}}`}
			srv, requests := answering(t, &a)
			db := client(t, srv.URL, nil)
			in := puts(map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"}, "n": &types.AttributeValueMemberN{Value: "1"}})
			timeout := time.Minute
			if tc.a.delay > 0 {
				timeout = 300 * time.Millisecond
			}
			// The first call goes through the SDK and makes the template.
			if _, err := db.WriteBatch(context.Background(), in, timeout); err != nil {
				t.Fatal(err)
			}
			requests()
			a = tc.a
			sdkOut, sdkErr := db.BatchWriteItem(context.Background(), in, NoRetry, AttemptTimeout(timeout))
			sdkReqs := requests()
			before := db.DirectCalls()
			out, err := db.WriteBatch(context.Background(), in, timeout)
			reqs := requests()
			if db.DirectCalls() != before+1 {
				t.Fatal("the direct path was not taken")
			}
			if len(reqs) != len(sdkReqs) || len(reqs) != 1 {
				t.Fatalf("%d requests sent directly, %d by the SDK, want 1", len(reqs), len(sdkReqs))
			}
			sameRequest(t, sdkReqs[0], reqs[0])
			if (err == nil) != (sdkErr == nil) {
				t.Fatalf("direct: %v\nSDK:    %v", err, sdkErr)
			}
			if err != nil {
				sameError(t, sdkErr, err)
				return
			}
			sdkOut.ResultMetadata = out.ResultMetadata
			if !reflect.DeepEqual(out, sdkOut) {
				t.Errorf("direct: %#v\nSDK:    %#v", out, sdkOut)
			}
		})
	}
}

// sameRequest compares what the server received.
func sameRequest(t *testing.T, sdk, direct recorded) {
	t.Helper()
	if !sameJSON(t, []byte(sdk.body), []byte(direct.body)) || sdk.url != direct.url {
		t.Errorf("direct: %s %s\nSDK:    %s %s", direct.url, direct.body, sdk.url, sdk.body)
	}
	perRequest := map[string]bool{"Authorization": true, "X-Amz-Date": true, "Amz-Sdk-Invocation-Id": true}
	keys := func(h http.Header) []string {
		var k []string
		for n := range h {
			k = append(k, n)
		}
		return k
	}
	if a, b := keys(sdk.header), keys(direct.header); len(a) != len(b) {
		t.Errorf("headers: direct %v, SDK %v", b, a)
	}
	for k, v := range sdk.header {
		if !perRequest[k] && !reflect.DeepEqual(direct.header[k], v) {
			t.Errorf("header %s: direct %q, SDK %q", k, direct.header[k], v)
		}
	}
	signed := func(h http.Header) string {
		a := h.Get("Authorization")
		i, j := strings.Index(a, "/"), strings.Index(a, "Signature=")
		if i < 0 || j < 0 {
			return a
		}
		return a[i:j] // date/region/service/aws4_request, SignedHeaders=...
	}
	if signed(sdk.header) != signed(direct.header) {
		t.Errorf("signature: direct %q, SDK %q", direct.header.Get("Authorization"), sdk.header.Get("Authorization"))
	}
}

// sameError compares the errors as a caller sees them.
func sameError(t *testing.T, sdk, direct error) {
	t.Helper()
	if sdk.Error() != direct.Error() {
		t.Errorf("direct: %v\nSDK:    %v", direct, sdk)
	}
	if a, b := chain(sdk), chain(direct); !reflect.DeepEqual(a, b) {
		t.Errorf("error types: direct %v\nSDK:                 %v", b, a)
	}
	var apiS, apiD smithy.APIError
	if errors.As(sdk, &apiS) != errors.As(direct, &apiD) || apiS != nil && (apiS.ErrorCode() != apiD.ErrorCode() || apiS.ErrorMessage() != apiD.ErrorMessage() || apiS.ErrorFault() != apiD.ErrorFault()) {
		t.Errorf("API error: direct %v, SDK %v", apiD, apiS)
	}
	var reS, reD *awshttp.ResponseError
	if errors.As(sdk, &reS) != errors.As(direct, &reD) || reS != nil && (reS.HTTPStatusCode() != reD.HTTPStatusCode() || reS.ServiceRequestID() != reD.ServiceRequestID()) {
		t.Errorf("response error: direct %v, SDK %v", reD, reS)
	}
	if a, b := testRetryables.IsErrorRetryable(sdk), testRetryables.IsErrorRetryable(direct); a != b {
		t.Errorf("retryable: direct %v, SDK %v", b, a)
	}
	if a, b := testThrottles.IsErrorThrottle(sdk), testThrottles.IsErrorThrottle(direct); a != b {
		t.Errorf("throttle: direct %v, SDK %v", b, a)
	}
}

// chain lists the types of err and what it wraps.
func chain(err error) []string {
	var c []string
	for err != nil {
		c = append(c, reflect.TypeOf(err).String())
		err = errors.Unwrap(err)
	}
	return c
}

// TestDirectSkew: the direct path signs with the clock skew the answers
// show, as the SDK does: after an answer dated an hour ahead, the next
// request (direct or not) is signed an hour ahead.
func TestDirectSkew(t *testing.T) {
	a := answer{status: 200, header: map[string]string{"X-Amz-Crc32": "ok"}, body: `{"UnprocessedItems":{}}`}
	srv, requests := answering(t, &a)
	db := client(t, srv.URL, nil)
	in := puts(one("PK", &types.AttributeValueMemberS{Value: "a"}))
	if _, err := db.WriteBatch(context.Background(), in, time.Minute); err != nil { // the template
		t.Fatal(err)
	}
	a.date = time.Now().Add(time.Hour)
	if err := describeWith(context.Background(), db); err != nil { // the SDK learns the skew
		t.Fatal(err)
	}
	requests()
	a.date = time.Now().Add(-time.Hour) // the direct answer shows another one
	for i, want := range []time.Duration{time.Hour, -time.Hour} {
		if _, err := db.WriteBatch(context.Background(), in, time.Minute); err != nil {
			t.Fatal(err)
		}
		r := requests()
		signed, err := time.Parse("20060102T150405Z", r[0].header.Get("X-Amz-Date"))
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Until(signed) - want; d < -time.Minute || d > time.Minute {
			t.Errorf("request %d signed at %s, want about now %+v", i, signed, want)
		}
	}
}

// TestDirectCanceled: a call canceled in flight ends as the SDK's does.
func TestDirectCanceled(t *testing.T) {
	a := answer{status: 200, header: map[string]string{"X-Amz-Crc32": "ok"}, body: `{"UnprocessedItems":{}}`}
	srv, _ := answering(t, &a)
	db := client(t, srv.URL, nil)
	in := puts(one("PK", &types.AttributeValueMemberS{Value: "a"}))
	if _, err := db.WriteBatch(context.Background(), in, time.Minute); err != nil {
		t.Fatal(err)
	}
	a.delay = 5 * time.Second
	var errs [2]error
	for i, f := range []func(context.Context) error{
		func(ctx context.Context) error {
			_, err := db.BatchWriteItem(ctx, in, NoRetry, AttemptTimeout(time.Minute))
			return err
		},
		func(ctx context.Context) error { _, err := db.WriteBatch(ctx, in, time.Minute); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		errs[i] = f(ctx)
		cancel()
	}
	if errs[0] == nil || errs[1] == nil {
		t.Fatalf("direct: %v, SDK: %v", errs[1], errs[0])
	}
	sameError(t, errs[0], errs[1])
	var ce *smithy.CanceledError
	if !errors.As(errs[1], &ce) || !errors.Is(errs[1], context.DeadlineExceeded) {
		t.Errorf("direct: %v, want a canceled error", errs[1])
	}
}

// TestDirectNotTaken: calls the direct path does not know how to send go
// through the SDK.
func TestDirectNotTaken(t *testing.T) {
	a := answer{status: 200, header: map[string]string{"X-Amz-Crc32": "ok"}, body: `{"UnprocessedItems":{}}`}
	srv, requests := answering(t, &a)
	db := client(t, srv.URL, nil)
	in := puts(one("PK", &types.AttributeValueMemberS{Value: "a"}))
	before := db.DirectCalls()
	if _, err := db.WriteBatch(context.Background(), in, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, other := range []*dynamodb.BatchWriteItemInput{
		{RequestItems: map[string][]types.WriteRequest{"other": in.RequestItems["t"]}}, // no template for this table yet
		{RequestItems: in.RequestItems, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal},
		{RequestItems: map[string][]types.WriteRequest{"t": in.RequestItems["t"], "u": in.RequestItems["t"]}},
	} {
		if _, err := db.WriteBatch(context.Background(), other, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if n := db.DirectCalls() - before; n != 0 {
		t.Errorf("%d calls sent directly, want none", n)
	}
	if n := len(requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	// A client not made by Connect: the SDK.
	plain := New(dynamodb.New(sdk(db).Options()))
	if _, err := plain.WriteBatch(context.Background(), in, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.WriteBatch(context.Background(), in, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := plain.DirectCalls(); n != 0 {
		t.Errorf("%d calls sent directly, want none", n)
	}
	// A configuration with middleware of its own: the SDK, which runs it.
	var ran atomic.Int32
	own, err := Connect(context.Background(), Config{Region: "us-east-1", Endpoint: srv.URL, LoadOptions: []func(*config.LoadOptions) error{
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")),
		config.WithAPIOptions([]func(*middleware.Stack) error{func(s *middleware.Stack) error { ran.Add(1); return nil }}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := own.WriteBatch(context.Background(), in, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if n := own.DirectCalls(); n != 0 || ran.Load() != 2 {
		t.Errorf("%d calls sent directly, the configuration's middleware ran %d times; want none and 2", n, ran.Load())
	}
}
