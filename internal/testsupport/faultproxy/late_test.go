package faultproxy_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
)

// TestLate: a held answer reaches DynamoDB at once and the client after the
// delay; a client that gives up within the delay has had its request
// carried out all the same, and the answer counts as abandoned. Other
// operations pass without delay.
func TestLate(t *testing.T) {
	p, up, _ := start(t, 1)
	late := faultproxy.NewLate(p, 300*time.Millisecond, faultproxy.BatchWriteItem)
	srv := httptest.NewServer(late)
	t.Cleanup(srv.Close)

	begin := time.Now()
	a, err := call(t, srv.URL, "BatchWriteItem", batchBody(3))
	if err != nil || a.status != http.StatusOK || !bytes.Contains(a.body, []byte(`"UnprocessedItems":{}`)) {
		t.Fatalf("answer %d %s, %v", a.status, a.body, err)
	}
	checkCRC(t, a)
	if d := time.Since(begin); d < 300*time.Millisecond {
		t.Errorf("the answer came after %s, held for 300ms", d)
	}

	begin = time.Now()
	if _, err := call(t, srv.URL, "DescribeTable", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d >= 300*time.Millisecond {
		t.Errorf("DescribeTable was held %s", d)
	}

	// A client that gives up after 100ms.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader(batchBody(2)))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.BatchWriteItem")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the held answer came before the client gave up")
	}
	waitFor(t, "the held answer to be abandoned", func() bool { _, abandoned := late.Counts(); return abandoned >= 1 })
	if delivered, abandoned := late.Counts(); delivered != 1 || abandoned != 1 {
		t.Errorf("%d answers delivered, %d abandoned; want 1 and 1", delivered, abandoned)
	}
	if got := up.received(); len(got) != 5 {
		t.Errorf("DynamoDB received items %v, want the 3 and the 2 of the abandoned request", got)
	}
}
