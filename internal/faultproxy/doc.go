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
// A Proxy is an http.Handler: serve it with httptest.NewServer and point the
// DynamoDB client's endpoint at the server's URL. It uses the standard
// library only and is safe for concurrent use.
package faultproxy
