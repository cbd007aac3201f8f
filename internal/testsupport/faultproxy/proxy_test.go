package faultproxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
)

// upstream is a stand-in for DynamoDB: it records the ids of the items each
// BatchWriteItem carries and answers with nothing unprocessed.
type upstream struct {
	mu    sync.Mutex
	calls int
	got   []string // item ids received, in order
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.calls++
	u.mu.Unlock()
	out := []byte(`{}`)
	if r.Header.Get("X-Amz-Target") == "DynamoDB_20120810.BatchWriteItem" {
		var in struct {
			RequestItems map[string][]struct {
				PutRequest struct {
					Item struct {
						ID struct{ S string } `json:"id"`
					}
				}
			}
		}
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		u.mu.Lock()
		for _, reqs := range in.RequestItems {
			for _, rq := range reqs {
				u.got = append(u.got, rq.PutRequest.Item.ID.S)
			}
		}
		u.mu.Unlock()
		out = []byte(`{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"t","CapacityUnits":1}]}`)
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(out)), 10))
	w.Write(out)
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.calls
}

func (u *upstream) received() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.got)
}

func start(t *testing.T, seed uint64, rules ...faultproxy.Rule) (*faultproxy.Proxy, *upstream, string) {
	t.Helper()
	up := &upstream{}
	us := httptest.NewServer(up)
	t.Cleanup(us.Close)
	p, err := faultproxy.New(us.URL, seed, rules...)
	if err != nil {
		t.Fatal(err)
	}
	ps := httptest.NewServer(p)
	t.Cleanup(func() { ps.Close(); p.Close() })
	return p, up, ps.URL
}

func batchBody(n int) []byte {
	reqs := make([]string, n)
	for i := range reqs {
		reqs[i] = fmt.Sprintf(`{"PutRequest":{"Item":{"id":{"S":"%d"},"n":{"N":"12345678901234567890.5"}}}}`, i)
	}
	return []byte(`{"RequestItems":{"t":[` + join(reqs) + `]},"ReturnConsumedCapacity":"TOTAL"}`)
}

func join(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x)
	}
	return b.String()
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func call(t *testing.T, url, op string, body []byte) (answer, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	return answer{resp.StatusCode, resp.Header, b}, nil
}

// unprocessedIDs reads the ids of the items an answer leaves unprocessed.
func unprocessedIDs(t *testing.T, b []byte) []string {
	t.Helper()
	var out struct {
		UnprocessedItems map[string][]struct {
			PutRequest struct {
				Item map[string]map[string]string
			}
		}
		ConsumedCapacity json.RawMessage
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, b)
	}
	var ids []string
	for _, reqs := range out.UnprocessedItems {
		for _, r := range reqs {
			ids = append(ids, r.PutRequest.Item["id"]["S"])
			if n := r.PutRequest.Item["n"]["N"]; n != "12345678901234567890.5" {
				t.Errorf("number changed on the way: %q", n)
			}
		}
	}
	return ids
}

func ids(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

func checkCRC(t *testing.T, a answer) {
	t.Helper()
	if got, want := a.header.Get("X-Amz-Crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE(a.body)), 10); got != want {
		t.Errorf("X-Amz-Crc32 = %s, the body's is %s", got, want)
	}
}

func TestUnprocessedFirstHalf(t *testing.T) {
	p, up, url := start(t, 1, faultproxy.Rule{Fault: faultproxy.Unprocessed, First: 1, Keep: 0.5})
	a, err := call(t, url, "BatchWriteItem", batchBody(25))
	if err != nil {
		t.Fatal(err)
	}
	if a.status != 200 {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	checkCRC(t, a)
	if got, want := up.received(), ids(0, 12); !slices.Equal(got, want) {
		t.Errorf("forwarded %v, want %v", got, want)
	}
	if got, want := unprocessedIDs(t, a.body), ids(12, 25); !slices.Equal(got, want) {
		t.Errorf("unprocessed %v, want %v", got, want)
	}
	if !bytes.Contains(a.body, []byte(`"ConsumedCapacity"`)) {
		t.Errorf("the target's other fields are lost: %s", a.body)
	}
	// The rule fired once (First: 1): the next request passes untouched.
	a, err = call(t, url, "BatchWriteItem", batchBody(3))
	if err != nil {
		t.Fatal(err)
	}
	if got := unprocessedIDs(t, a.body); len(got) != 0 {
		t.Errorf("second request: unprocessed %v, want none", got)
	}
	s := p.Stats()
	if s.Injected[faultproxy.Unprocessed] != 1 || s.UnprocessedItems != 13 || s.Calls["BatchWriteItem"] != 2 || s.Forwarded["BatchWriteItem"] != 2 {
		t.Errorf("stats %+v", s)
	}
}

func TestUnprocessedRandomIsSeededAndLosesNothing(t *testing.T) {
	run := func(seed uint64) (fwd, left []string) {
		_, up, url := start(t, seed, faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 1, Keep: 0.4, Random: true})
		a, err := call(t, url, "BatchWriteItem", batchBody(25))
		if err != nil {
			t.Fatal(err)
		}
		checkCRC(t, a)
		return up.received(), unprocessedIDs(t, a.body)
	}
	f1, l1 := run(7)
	f2, l2 := run(7)
	if !slices.Equal(f1, f2) || !slices.Equal(l1, l2) {
		t.Errorf("same seed, different choice: %v/%v and %v/%v", f1, l1, f2, l2)
	}
	if len(f1) != 10 || len(l1) != 15 {
		t.Errorf("forwarded %d and left %d of 25 with Keep 0.4", len(f1), len(l1))
	}
	all := append(slices.Clone(f1), l1...)
	slices.SortFunc(all, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	if !slices.Equal(all, ids(0, 25)) {
		t.Errorf("forwarded ∪ unprocessed = %v, want every item once", all)
	}
	if slices.Equal(f1, ids(0, 10)) {
		t.Errorf("Random kept the first items: %v", f1)
	}
}

func TestUnprocessedNoneForwarded(t *testing.T) {
	_, up, url := start(t, 1, faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 1})
	a, err := call(t, url, "BatchWriteItem", batchBody(5))
	if err != nil {
		t.Fatal(err)
	}
	checkCRC(t, a)
	if got := up.received(); len(got) != 0 {
		t.Errorf("forwarded %v, want nothing", got)
	}
	if got := unprocessedIDs(t, a.body); !slices.Equal(got, ids(0, 5)) {
		t.Errorf("unprocessed %v", got)
	}
}

func TestErrorsAndOpsFilter(t *testing.T) {
	cases := []struct {
		fault  faultproxy.Fault
		status int
		typ    string
	}{
		{faultproxy.Throttle, 400, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"},
		{faultproxy.Throttling, 400, "com.amazon.coral.availability#ThrottlingException"},
		{faultproxy.InternalError, 500, "com.amazonaws.dynamodb.v20120810#InternalServerError"},
		{faultproxy.Unavailable, 503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailable"},
	}
	for _, c := range cases {
		t.Run(c.fault.String(), func(t *testing.T) {
			p, up, url := start(t, 1, faultproxy.Rule{Fault: c.fault, Ops: []string{"BatchWriteItem"}, First: 2})
			// Another operation is not targeted.
			if a, err := call(t, url, "DescribeTable", []byte(`{}`)); err != nil || a.status != 200 {
				t.Fatalf("DescribeTable: %v %d", err, a.status)
			}
			for i := range 3 {
				a, err := call(t, url, "BatchWriteItem", batchBody(2))
				if err != nil {
					t.Fatal(err)
				}
				if i < 2 {
					var e struct {
						Type string `json:"__type"`
					}
					if a.status != c.status || json.Unmarshal(a.body, &e) != nil || e.Type != c.typ {
						t.Errorf("call %d: %d %s, want %d with __type %s", i, a.status, a.body, c.status, c.typ)
					}
					checkCRC(t, a)
				} else if a.status != 200 {
					t.Errorf("call %d: %d, want it forwarded", i, a.status)
				}
			}
			if n := up.count(); n != 2 {
				t.Errorf("target saw %d calls, want 2", n)
			}
			if s := p.Stats(); s.Injected[c.fault] != 2 || s.Total() != 2 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

func TestDrops(t *testing.T) {
	for _, c := range []struct {
		fault   faultproxy.Fault
		reached int
	}{{faultproxy.DropBefore, 0}, {faultproxy.DropAfter, 1}} {
		t.Run(c.fault.String(), func(t *testing.T) {
			p, up, url := start(t, 1, faultproxy.Rule{Fault: c.fault, First: 1})
			if _, err := call(t, url, "BatchWriteItem", batchBody(2)); err == nil {
				t.Fatal("the request got an answer, want a dropped connection")
			}
			if got := len(up.received()); got != 2*c.reached {
				t.Errorf("target received %d items, want %d", got, 2*c.reached)
			}
			if s := p.Stats(); s.Injected[c.fault] != 1 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

func TestMatchHookAndProbability(t *testing.T) {
	p, _, url := start(t, 42,
		faultproxy.Rule{Fault: faultproxy.InternalError, Match: func(op string, body []byte) bool {
			return bytes.Contains(body, []byte(`"poison"`))
		}, Prob: 1},
		faultproxy.Rule{Fault: faultproxy.Throttle, Ops: []string{"GetItem"}, Prob: 0.3},
	)
	if a, _ := call(t, url, "PutItem", []byte(`{"Item":{"id":{"S":"poison"}}}`)); a.status != 500 {
		t.Errorf("poison item: status %d, want 500", a.status)
	}
	if a, _ := call(t, url, "PutItem", []byte(`{"Item":{"id":{"S":"fine"}}}`)); a.status != 200 {
		t.Errorf("other item: status %d, want 200", a.status)
	}
	// 200 concurrent calls: about 30% throttled; the race detector watches.
	var wg sync.WaitGroup
	for range 200 {
		wg.Go(func() { _, _ = call(t, url, "GetItem", []byte(`{}`)) })
	}
	wg.Wait()
	s := p.Stats()
	if n := s.Injected[faultproxy.Throttle]; n < 30 || n > 90 {
		t.Errorf("%d of 200 throttled with Prob 0.3", n)
	}
	if s.Calls["GetItem"] != 200 || s.Forwarded["GetItem"]+s.Injected[faultproxy.Throttle] != 200 {
		t.Errorf("stats %+v", s)
	}
}

// TestDelayGivesUpWithTheClient: a request held by Delay whose client gives
// up is let go at once (the proxy's handler returns) and never forwarded.
func TestDelayGivesUpWithTheClient(t *testing.T) {
	p, up, _ := start(t, 1, faultproxy.Rule{Fault: faultproxy.Delay, Prob: 1, Delay: time.Minute})
	handled := make(chan struct{}, 1)
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.ServeHTTP(w, r)
		handled <- struct{}{}
	}))
	t.Cleanup(ps.Close)
	url := ps.URL
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(batchBody(1)))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.BatchWriteItem")
	start := time.Now()
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	select {
	case <-handled:
	case <-time.After(30 * time.Second):
		t.Fatal("the proxy still held the request 30s after its client gave up")
	}
	if got := up.received(); len(got) != 0 {
		t.Errorf("a request the client gave up on was forwarded: %v", got)
	}
}

func TestBadRules(t *testing.T) {
	for _, r := range []faultproxy.Rule{{Fault: 0}, {Fault: faultproxy.Throttle, Prob: 2}, {Fault: faultproxy.Unprocessed, Keep: -1}} {
		if _, err := faultproxy.New("http://127.0.0.1:1", 1, r); err == nil {
			t.Errorf("rule %+v accepted", r)
		}
	}
	if _, err := faultproxy.New("127.0.0.1:8000", 1); err == nil {
		t.Error("a target without a scheme was accepted")
	}
}

// TestSDKSeesRealErrors checks the AWS SDK reads the injected answers as
// DynamoDB's own: typed errors, retryable and throttling as its retryer
// classifies them, and UnprocessedItems it can decode.
func TestSDKSeesRealErrors(t *testing.T) {
	p, _, url := start(t, 1)
	db := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		Credentials:  aws.AnonymousCredentials{},
		Retryer:      aws.NopRetryer{},
	})
	reqs := make([]types.WriteRequest, 4)
	for i := range reqs {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: strconv.Itoa(i)},
		}}}
	}
	in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"t": reqs}}
	retryable := retry.IsErrorRetryables(retry.DefaultRetryables)
	throttle := retry.IsErrorThrottles(retry.DefaultThrottles)
	for _, c := range []struct {
		fault     faultproxy.Fault
		code      string
		throttled bool
	}{
		{faultproxy.Throttle, "ProvisionedThroughputExceededException", true},
		{faultproxy.Throttling, "ThrottlingException", true},
		{faultproxy.InternalError, "InternalServerError", false},
		{faultproxy.Unavailable, "ServiceUnavailable", false},
		{faultproxy.DropBefore, "", false},
		{faultproxy.DropAfter, "", false},
	} {
		if err := p.SetRules(faultproxy.Rule{Fault: c.fault, First: 1}); err != nil {
			t.Fatal(err)
		}
		_, err := db.BatchWriteItem(context.Background(), in)
		if err == nil {
			t.Errorf("%s: no error", c.fault)
			continue
		}
		var api smithy.APIError
		if c.code != "" && (!errors.As(err, &api) || api.ErrorCode() != c.code) {
			t.Errorf("%s: %v, want API error %s", c.fault, err, c.code)
		}
		if retryable.IsErrorRetryable(err) != aws.TrueTernary && throttle.IsErrorThrottle(err) != aws.TrueTernary {
			t.Errorf("%s: the SDK does not retry %v", c.fault, err)
		}
		if got := throttle.IsErrorThrottle(err) == aws.TrueTernary; got != c.throttled {
			t.Errorf("%s: throttle = %v, want %v", c.fault, got, c.throttled)
		}
	}
	if err := p.SetRules(faultproxy.Rule{Fault: faultproxy.Unprocessed, First: 1, Keep: 0.5}); err != nil {
		t.Fatal(err)
	}
	out, err := db.BatchWriteItem(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	left := out.UnprocessedItems["t"]
	if len(left) != 2 || left[0].PutRequest.Item["id"].(*types.AttributeValueMemberS).Value != "2" {
		t.Errorf("unprocessed %+v, want items 2 and 3", left)
	}
}
