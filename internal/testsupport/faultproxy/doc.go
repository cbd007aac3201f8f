// Package faultproxy owns a fault-injecting HTTP proxy for tests: placed in
// front of DynamoDB Local (or dynalite), it forwards DynamoDB JSON requests
// and, by rules each test sets, answers with the faults the emulators never
// produce: BatchWriteItem and BatchGetItem requests only partly processed
// (the rest returned as UnprocessedItems or UnprocessedKeys), throttling
// (ProvisionedThroughputExceededException, ThrottlingException), 500 and 503
// answers, connections dropped before or after the request is forwarded,
// slow answers, and a secondary index that lags behind its table (items
// missing from a Query or Scan of the index for a while). It counts what it
// injected, so a test can hold the code under test to account.
//
// One rule is not a fault: Discard acknowledges every BatchWriteItem without
// forwarding or storing it, a null sink for measuring a client's own cost
// (make bench uses it).
//
// Beside the rules, a capacity model of DynamoDB's write limits
// (Proxy.SetCapacity, capacity.go) throttles writes as the real service
// does: 1 000 write units a second per partition-key value, a table limit,
// an on-demand table's allowance that starts at 4 000 and doubles; time can
// be scaled for tests.
//
// A Proxy is an http.Handler: serve it with httptest.NewServer and point the
// DynamoDB client's endpoint at the server's URL. It uses the standard
// library only and is safe for concurrent use.
package faultproxy
