package faultproxy_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
)

// hotBatch is a BatchWriteItem of n puts on partition key pk, ids from
// first.
func hotBatch(pk string, first, n int) []byte {
	reqs := make([]string, n)
	for i := range reqs {
		reqs[i] = fmt.Sprintf(`{"PutRequest":{"Item":{"pk":{"S":%q},"id":{"S":"%d"}}}}`, pk, first+i)
	}
	return []byte(`{"RequestItems":{"t":[` + join(reqs) + `]}}`)
}

// TestCapacityAnswers: writes the model throttles come back as DynamoDB
// answers them: the throttled part of a BatchWriteItem in UnprocessedItems
// (200, the rest forwarded), a wholly throttled one as HTTP 400
// ProvisionedThroughputExceededException, likewise a PutItem.
func TestCapacityAnswers(t *testing.T) {
	p, up, url := start(t, 1)
	// 10 units a second for a key, a bucket of one second, time so slow
	// that nothing refills during the test.
	if err := p.SetCapacity(&faultproxy.Capacity{PartitionKey: "pk", KeyLimit: 10, Scale: 1e-6}); err != nil {
		t.Fatal(err)
	}
	a, err := call(t, url, "BatchWriteItem", hotBatch("HOT", 0, 25))
	if err != nil {
		t.Fatal(err)
	}
	if a.status != 200 {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	checkCRC(t, a)
	var out struct {
		UnprocessedItems map[string][]struct {
			PutRequest struct {
				Item struct {
					ID struct{ S string } `json:"id"`
				}
			}
		}
	}
	if err := json.Unmarshal(a.body, &out); err != nil {
		t.Fatal(err)
	}
	if n := len(out.UnprocessedItems["t"]); n != 15 || out.UnprocessedItems["t"][0].PutRequest.Item.ID.S != "10" {
		t.Errorf("%d unprocessed, want 15 from id 10: %s", n, a.body)
	}
	if got := up.received(); len(got) != 10 || got[0] != "0" || got[9] != "9" {
		t.Errorf("forwarded %v, want ids 0 to 9", got)
	}
	// The key's bucket is empty: the whole request is throttled, nothing
	// forwarded; another key's items go through.
	a, err = call(t, url, "BatchWriteItem", hotBatch("HOT", 100, 5))
	if err != nil {
		t.Fatal(err)
	}
	if a.status != 400 || !strings.Contains(string(a.body), `"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"`) {
		t.Errorf("wholly throttled batch: status %d: %s", a.status, a.body)
	}
	checkCRC(t, a)
	a, err = call(t, url, "PutItem", []byte(`{"TableName":"t","Item":{"pk":{"S":"HOT"},"id":{"S":"x"}}}`))
	if err != nil || a.status != 400 || !strings.Contains(string(a.body), "ProvisionedThroughputExceededException") {
		t.Errorf("throttled PutItem: %v, status %d: %s", err, a.status, a.body)
	}
	a, err = call(t, url, "BatchWriteItem", hotBatch("COLD", 200, 5))
	if err != nil || a.status != 200 || strings.Contains(string(a.body), "COLD") {
		t.Errorf("another key: %v, status %d: %s", err, a.status, a.body)
	}
	// Reads are not modelled.
	if a, err := call(t, url, "GetItem", []byte(`{}`)); err != nil || a.status != 200 {
		t.Errorf("GetItem: %v, status %d", err, a.status)
	}
	s := p.CapacityStats()
	if s.Admitted != 15 || s.Throttled != 15+5+1 || s.ThrottledRequests != 2 || s.AdmittedUnits != 15 ||
		s.HotKey != `{"S":"HOT"}` || s.HotKeyUnits != 10 {
		t.Errorf("capacity stats %+v", s)
	}
	if err := p.SetCapacity(nil); err != nil {
		t.Fatal(err)
	}
	if a, err := call(t, url, "BatchWriteItem", hotBatch("HOT", 300, 25)); err != nil || a.status != 200 || len(up.received()) != 40 {
		t.Errorf("without the model: %v, status %d, %d forwarded", err, a.status, len(up.received()))
	}
	if err := p.SetCapacity(&faultproxy.Capacity{}); err == nil {
		t.Error("a model without a partition key is accepted")
	}
}
