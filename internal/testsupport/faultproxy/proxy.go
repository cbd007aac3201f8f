package faultproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is one kind of misbehaviour the proxy injects.
type Fault int

const (
	// Unprocessed forwards only part of a BatchWriteItem request's write
	// requests (Rule.Keep of them) and answers 200 with the others added to
	// the response's UnprocessedItems; likewise for the keys of a
	// BatchGetItem request, added to UnprocessedKeys. It applies to these two
	// operations only.
	Unprocessed Fault = iota + 1
	// Throttle answers HTTP 400 ProvisionedThroughputExceededException.
	Throttle
	// Throttling answers HTTP 400 ThrottlingException.
	Throttling
	// InternalError answers HTTP 500 InternalServerError.
	InternalError
	// Unavailable answers HTTP 503 ServiceUnavailable.
	Unavailable
	// DropBefore reads the request and closes the connection without
	// forwarding it or answering.
	DropBefore
	// DropAfter forwards the request (so DynamoDB acts on it) and closes
	// the connection without answering.
	DropAfter
	// Delay waits Rule.Delay, or until the client gives up, then forwards.
	Delay
	// Lag answers a read of a secondary index (a Query or Scan naming an
	// IndexName) as an index that has not caught up with its table would:
	// it forwards the request and removes items from the answer (Rule.Keep
	// of them are kept, the first ones), lowering Count and ScannedCount to
	// match; LastEvaluatedKey is left as it is, so paging goes on. It
	// applies to such reads only.
	Lag
	// Discard answers a BatchWriteItem request as wholly processed, without
	// forwarding it: nothing is stored. The answer has empty
	// UnprocessedItems and, when the request asks for it, ConsumedCapacity
	// per table (an estimate: one write unit per started KB of each write
	// request's JSON text). A rule {Fault: Discard, Prob: 1} makes the proxy
	// a null sink that takes writes as fast as a client can send them, so a
	// benchmark measures the client's own cost. It applies to BatchWriteItem
	// only; a request the proxy cannot read is forwarded for DynamoDB to
	// answer.
	Discard
	// Stale holds the request until Rule.Release is closed (or, when it
	// is nil, for Rule.Delay) and then forwards it, whether or not the
	// client still waits: a request DynamoDB received and carries out long
	// after the client gave up on it and went on. The client gets the
	// answer if it is still there.
	Stale
)

var faultNames = map[Fault]string{
	Unprocessed: "unprocessed", Throttle: "throttle", Throttling: "throttling",
	InternalError: "internal-error", Unavailable: "unavailable",
	DropBefore: "drop-before", DropAfter: "drop-after", Delay: "delay", Lag: "lag",
	Discard: "discard", Stale: "stale",
}

func (f Fault) String() string {
	if s, ok := faultNames[f]; ok {
		return s
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// The operations an Unprocessed rule applies to.
const (
	BatchWriteItem = "BatchWriteItem"
	BatchGetItem   = "BatchGetItem"
)

// Rule says which requests get a fault. The proxy tries its rules in order
// for each request; the first rule that applies and fires injects its fault,
// and later rules do not see the request.
type Rule struct {
	Fault Fault
	// Ops lists the operations the rule applies to: the part of the
	// X-Amz-Target header after the dot, e.g. "BatchWriteItem". Empty means
	// every operation.
	Ops []string
	// Match, if set, must also return true for the rule to apply; a hook for
	// what Ops cannot say (a table name in the body, a call number, ...).
	// It is called with the proxy's lock held: keep it quick and do not call
	// the proxy from it.
	Match func(op string, body []byte) bool
	// Index, if set, limits the rule to requests that name this index
	// (IndexName of a Query or Scan).
	Index string
	// The rule fires on the first First requests it applies to, on every
	// request it applies to until For has passed since the rules were set,
	// and otherwise with probability Prob (0 never, 1 always).
	First int
	For   time.Duration
	Prob  float64
	// Keep (Unprocessed, Lag) is the share of write requests or keys
	// forwarded, or of the items answered, from 0 (none) to 1, rounded
	// down. The first ones are kept, or (Unprocessed) a random choice when
	// Random is set.
	Keep   float64
	Random bool
	// Delay (Delay) is how long to hold the request before forwarding it.
	Delay time.Duration
	// Release (Stale), when set, holds the request until it is closed.
	Release <-chan struct{}
}

type rule struct {
	Rule
	seen  int
	since time.Time // when the rule was set
}

// Stats counts what the proxy saw and did.
type Stats struct {
	Calls     map[string]int // requests per operation
	Forwarded map[string]int // requests per operation sent on to the target
	Injected  map[Fault]int  // faults injected, per kind
	// UnprocessedItems counts the write requests answered as unprocessed,
	// UnprocessedKeys the BatchGetItem keys.
	UnprocessedItems int
	UnprocessedKeys  int
	// LaggedItems counts the items a Lag rule removed from index reads.
	LaggedItems int
	// DiscardedItems counts the write requests acknowledged by Discard
	// without being forwarded.
	DiscardedItems int
}

// Total is the number of faults injected, of every kind.
func (s Stats) Total() int {
	n := 0
	for _, v := range s.Injected {
		n += v
	}
	return n
}

// Proxy forwards DynamoDB requests to a target endpoint and injects faults.
type Proxy struct {
	target *url.URL
	client *http.Client

	mu    sync.Mutex
	rng   *rand.Rand
	rules []*rule
	stats Stats
	// capacity is the capacity model (capacity.go); nil: none.
	capacity *model
}

// New returns a proxy to target (e.g. http://127.0.0.1:8000) whose random
// choices come from seed, with the given rules.
func New(target string, seed uint64, rules ...Rule) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: target %q is not an http(s) URL", target)
	}
	p := &Proxy{
		target: u,
		client: &http.Client{Transport: &http.Transport{
			Proxy:               nil,
			DisableCompression:  true,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     30 * time.Second,
		}},
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		stats: Stats{
			Calls: map[string]int{}, Forwarded: map[string]int{}, Injected: map[Fault]int{},
		},
	}
	if err := p.SetRules(rules...); err != nil {
		return nil, err
	}
	return p, nil
}

// SetRules replaces the proxy's rules (their counts of requests start from
// zero). The counts in Stats are kept.
func (p *Proxy) SetRules(rules ...Rule) error {
	rs := make([]*rule, len(rules))
	for i, r := range rules {
		if _, ok := faultNames[r.Fault]; !ok {
			return fmt.Errorf("faultproxy: rule %d: unknown fault %d", i, r.Fault)
		}
		if r.Prob < 0 || r.Prob > 1 || r.Keep < 0 || r.Keep > 1 || r.First < 0 || r.Delay < 0 || r.For < 0 {
			return fmt.Errorf("faultproxy: rule %d (%s): Prob and Keep must be in [0, 1], First, For and Delay not negative", i, r.Fault)
		}
		r.Ops = slices.Clone(r.Ops)
		rs[i] = &rule{Rule: r, since: time.Now()}
	}
	p.mu.Lock()
	p.rules = rs
	p.mu.Unlock()
	return nil
}

// Stats returns a copy of the proxy's counts.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Calls = clone(s.Calls)
	s.Forwarded = clone(s.Forwarded)
	s.Injected = clone(s.Injected)
	return s
}

func clone[K comparable](m map[K]int) map[K]int {
	out := make(map[K]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Close closes the proxy's idle connections to the target.
func (p *Proxy) Close() { p.client.CloseIdleConnections() }

// operation is the DynamoDB operation a request names, e.g. BatchWriteItem.
func operation(r *http.Request) string {
	t := r.Header.Get("X-Amz-Target")
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return t[i+1:]
	}
	return t
}

func (r *rule) applies(op string, body []byte) bool {
	switch {
	case r.Fault == Unprocessed && op != BatchWriteItem && op != BatchGetItem,
		r.Fault == Discard && op != BatchWriteItem:
		return false
	case len(r.Ops) > 0 && !slices.Contains(r.Ops, op):
		return false
	case r.Fault == Lag || r.Index != "":
		ix := indexName(op, body)
		return ix != "" && (r.Index == "" || r.Index == ix)
	}
	return true
}

// indexName is the IndexName a Query or Scan request reads, or "".
func indexName(op string, body []byte) string {
	if op != "Query" && op != "Scan" {
		return ""
	}
	var in struct{ IndexName string }
	if json.Unmarshal(body, &in) != nil {
		return ""
	}
	return in.IndexName
}

// decide picks the fault for one request, if any, and a seed for the
// request's own random choices.
func (p *Proxy) decide(op string, body []byte) (Rule, bool, uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.Calls[op]++
	for _, r := range p.rules {
		if !r.applies(op, body) || (r.Match != nil && !r.Match(op, body)) {
			continue
		}
		r.seen++
		if r.seen <= r.First || (r.For > 0 && time.Since(r.since) < r.For) || (r.Prob > 0 && p.rng.Float64() < r.Prob) {
			return r.Rule, true, p.rng.Uint64()
		}
	}
	return Rule{}, false, 0
}

func (p *Proxy) count(f func(s *Stats)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(&p.stats)
}

func (p *Proxy) injected(f Fault) { p.count(func(s *Stats) { s.Injected[f]++ }) }

// maxBody bounds a request body: BatchWriteItem takes at most 16 MB.
const maxBody = 32 << 20

// ServeHTTP forwards one request, or injects a fault into it.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		http.Error(w, "faultproxy: reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	op := operation(r)
	rl, fire, seed := p.decide(op, body)
	if !fire {
		if p.modelled(op) {
			p.throttleWrites(w, r, op, body)
			return
		}
		p.pass(w, r, op, body)
		return
	}
	switch rl.Fault {
	case Throttle:
		p.injected(rl.Fault)
		writeError(w, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
			"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API. (injected by faultproxy)")
	case Throttling:
		p.injected(rl.Fault)
		writeError(w, http.StatusBadRequest, "com.amazon.coral.availability#ThrottlingException",
			"Rate of requests exceeds the allowed throughput. (injected by faultproxy)")
	case InternalError:
		p.injected(rl.Fault)
		writeError(w, http.StatusInternalServerError, "com.amazonaws.dynamodb.v20120810#InternalServerError",
			"Internal server error (injected by faultproxy)")
	case Unavailable:
		p.injected(rl.Fault)
		writeError(w, http.StatusServiceUnavailable, "com.amazonaws.dynamodb.v20120810#ServiceUnavailable",
			"Service unavailable (injected by faultproxy)")
	case DropBefore:
		p.injected(rl.Fault)
		drop(w)
	case DropAfter:
		if _, err := p.forward(r, op, body); err != nil {
			http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
			return
		}
		p.injected(rl.Fault)
		drop(w)
	case Delay:
		p.injected(rl.Fault)
		t := time.NewTimer(rl.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
		p.pass(w, r, op, body)
	case Stale:
		p.injected(rl.Fault)
		p.stale(w, r, op, body, rl)
	case Unprocessed:
		if op == BatchGetItem {
			p.unprocessedKeys(w, r, op, body, rl, seed)
			return
		}
		p.unprocessed(w, r, op, body, rl, seed)
	case Lag:
		p.lag(w, r, op, body, rl)
	case Discard:
		p.discard(w, r, op, body)
	}
}

// stale holds the request as Rule says, then forwards it even when the
// client has gone (Stale). A test that gives Release must close it before
// it ends: the request is held until then.
func (p *Proxy) stale(w http.ResponseWriter, r *http.Request, op string, body []byte, rl Rule) {
	if rl.Release != nil {
		<-rl.Release
	} else {
		t := time.NewTimer(rl.Delay)
		<-t.C
	}
	resp, err := p.forward(r.WithContext(context.WithoutCancel(r.Context())), op, body)
	if err != nil || r.Context().Err() != nil {
		return // the client has gone: DynamoDB acted all the same
	}
	resp.write(w, false)
}

// pass forwards the request and copies the answer back.
func (p *Proxy) pass(w http.ResponseWriter, r *http.Request, op string, body []byte) {
	resp, err := p.forward(r, op, body)
	if err != nil {
		if r.Context().Err() == nil {
			http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
		}
		return
	}
	resp.write(w, false)
}

// hopHeaders are not passed on by a proxy (RFC 9110 section 7.6.1), with
// the headers the proxy sets itself.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length", "Accept-Encoding",
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// forward sends the request with body to the target and reads the answer.
func (p *Proxy) forward(r *http.Request, op string, body []byte) (*response, error) {
	u := *p.target
	u.Path = strings.TrimSuffix(u.Path, "/") + r.URL.Path
	u.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	out.Header.Set("Accept-Encoding", "identity") // bodies the proxy can rewrite
	out.Host = r.Host                             // the host the client signed
	resp, err := p.client.Do(out)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the target's answer: %w", err)
	}
	p.count(func(s *Stats) { s.Forwarded[op]++ })
	h := resp.Header.Clone()
	for _, k := range hopHeaders {
		h.Del(k)
	}
	return &response{status: resp.StatusCode, header: h, body: b}, nil
}

// write sends the response; changed says the body is no longer the target's,
// so its CRC32 header is computed again.
func (resp *response) write(w http.ResponseWriter, changed bool) {
	for k, v := range resp.header {
		w.Header()[k] = v
	}
	if changed {
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(resp.body)), 10))
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.body)))
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	b := marshal(map[string]string{"__type": typ, "message": msg})
	(&response{status: status, header: http.Header{
		"Content-Type":     {"application/x-amz-json-1.0"},
		"X-Amzn-Requestid": {"faultproxy-" + strconv.FormatInt(time.Now().UnixNano(), 36)},
	}, body: b}).write(w, true)
}

// drop closes the client's connection without an answer.
func drop(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // HTTP/2: the server resets the stream
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// marshal encodes v as JSON without HTML escaping.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only maps of strings and raw JSON are encoded here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

type writeRef struct {
	table string
	req   json.RawMessage
}

// unprocessed forwards part of a BatchWriteItem request and answers the
// rest as UnprocessedItems.
func (p *Proxy) unprocessed(w http.ResponseWriter, r *http.Request, op string, body []byte, rl Rule, seed uint64) {
	var in map[string]json.RawMessage
	var items map[string][]json.RawMessage
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["RequestItems"], &items) != nil {
		p.pass(w, r, op, body) // not a request the proxy understands: DynamoDB answers it
		return
	}
	tables := make([]string, 0, len(items))
	for t := range items {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	var all []writeRef
	for _, t := range tables {
		for _, req := range items[t] {
			all = append(all, writeRef{t, req})
		}
	}
	keep := int(float64(len(all)) * rl.Keep)
	if keep >= len(all) {
		p.pass(w, r, op, body)
		return
	}
	order := keepOrder(len(all), keep, rl.Random, seed)
	kept := map[string][]json.RawMessage{}
	left := map[string][]json.RawMessage{}
	for i, idx := range order {
		ref := all[idx]
		if i < keep {
			kept[ref.table] = append(kept[ref.table], ref.req)
		} else {
			left[ref.table] = append(left[ref.table], ref.req)
		}
	}
	p.count(func(s *Stats) {
		s.Injected[Unprocessed]++
		s.UnprocessedItems += len(all) - keep
	})
	if keep == 0 {
		(&response{status: http.StatusOK, header: http.Header{
			"Content-Type":     {"application/x-amz-json-1.0"},
			"X-Amzn-Requestid": {"faultproxy-" + strconv.FormatInt(time.Now().UnixNano(), 36)},
		}, body: marshal(map[string]any{"UnprocessedItems": left})}).write(w, true)
		return
	}
	resp := p.forwardPart(w, r, op, in, kept) // the client retries the whole request anyway
	if resp == nil {
		return
	}
	if err := mergeUnprocessed(resp, left); err != nil {
		http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	resp.write(w, true)
}

// mergeUnprocessed adds left to the UnprocessedItems of a BatchWriteItem
// answer.
func mergeUnprocessed(resp *response, left map[string][]json.RawMessage) error {
	var out map[string]json.RawMessage
	if err := json.Unmarshal(resp.body, &out); err != nil {
		return fmt.Errorf("the target's BatchWriteItem answer is not JSON: %w", err)
	}
	un := map[string][]json.RawMessage{}
	if raw, ok := out["UnprocessedItems"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &un); err != nil {
			return fmt.Errorf("the target's UnprocessedItems: %w", err)
		}
	}
	for t, reqs := range left {
		un[t] = append(un[t], reqs...)
	}
	out["UnprocessedItems"] = marshal(un)
	resp.body = marshal(out)
	return nil
}

// unprocessedKeys forwards part of a BatchGetItem request's keys and answers
// with the rest added to UnprocessedKeys.
func (p *Proxy) unprocessedKeys(w http.ResponseWriter, r *http.Request, op string, body []byte, rl Rule, seed uint64) {
	var in map[string]json.RawMessage
	var items map[string]map[string]json.RawMessage // table → KeysAndAttributes
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["RequestItems"], &items) != nil {
		p.pass(w, r, op, body)
		return
	}
	tables := make([]string, 0, len(items))
	for t := range items {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	type keyRef struct {
		table string
		key   json.RawMessage
	}
	var all []keyRef
	for _, t := range tables {
		var keys []json.RawMessage
		if json.Unmarshal(items[t]["Keys"], &keys) != nil {
			p.pass(w, r, op, body)
			return
		}
		for _, k := range keys {
			all = append(all, keyRef{t, k})
		}
	}
	keep := int(float64(len(all)) * rl.Keep)
	if keep >= len(all) {
		p.pass(w, r, op, body)
		return
	}
	order := keepOrder(len(all), keep, rl.Random, seed)
	// Each side keeps the rest of its table's KeysAndAttributes
	// (ConsistentRead, ProjectionExpression, ...), as DynamoDB does.
	split := func(idx []int) map[string]map[string]json.RawMessage {
		keys := map[string][]json.RawMessage{}
		for _, i := range idx {
			keys[all[i].table] = append(keys[all[i].table], all[i].key)
		}
		out := map[string]map[string]json.RawMessage{}
		for t, ks := range keys {
			ka := map[string]json.RawMessage{}
			for f, v := range items[t] {
				ka[f] = v
			}
			ka["Keys"] = marshal(ks)
			out[t] = ka
		}
		return out
	}
	kept, left := split(order[:keep]), split(order[keep:])
	p.count(func(s *Stats) {
		s.Injected[Unprocessed]++
		s.UnprocessedKeys += len(all) - keep
	})
	if keep == 0 {
		(&response{status: http.StatusOK, header: http.Header{
			"Content-Type":     {"application/x-amz-json-1.0"},
			"X-Amzn-Requestid": {"faultproxy-" + strconv.FormatInt(time.Now().UnixNano(), 36)},
		}, body: marshal(map[string]any{"Responses": map[string]any{}, "UnprocessedKeys": left})}).write(w, true)
		return
	}
	resp := p.forwardPart(w, r, op, in, kept)
	if resp == nil {
		return
	}
	var out map[string]json.RawMessage
	un := map[string]map[string]json.RawMessage{}
	if err := json.Unmarshal(resp.body, &out); err != nil {
		http.Error(w, "faultproxy: the target's BatchGetItem answer is not JSON: "+err.Error(), http.StatusBadGateway)
		return
	}
	if raw, ok := out["UnprocessedKeys"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &un); err != nil {
			http.Error(w, "faultproxy: the target's UnprocessedKeys: "+err.Error(), http.StatusBadGateway)
			return
		}
	}
	for t, ka := range left {
		if prev, ok := un[t]; ok {
			var a, b []json.RawMessage
			_ = json.Unmarshal(prev["Keys"], &a)
			_ = json.Unmarshal(ka["Keys"], &b)
			prev["Keys"] = marshal(append(a, b...))
			continue
		}
		un[t] = ka
	}
	out["UnprocessedKeys"] = marshal(un)
	resp.body = marshal(out)
	resp.write(w, true)
}

// lag forwards an index read and removes items from its answer.
func (p *Proxy) lag(w http.ResponseWriter, r *http.Request, op string, body []byte, rl Rule) {
	resp, err := p.forward(r, op, body)
	if err != nil {
		if r.Context().Err() == nil {
			http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
		}
		return
	}
	var out map[string]json.RawMessage
	var items []json.RawMessage
	if resp.status != http.StatusOK || json.Unmarshal(resp.body, &out) != nil || json.Unmarshal(out["Items"], &items) != nil {
		resp.write(w, false) // an error, or an answer without items (Select COUNT): as it is
		return
	}
	keep := int(float64(len(items)) * rl.Keep)
	dropped := len(items) - keep
	out["Items"] = marshal(items[:keep])
	out["Count"] = marshal(keep)
	var scanned int
	if json.Unmarshal(out["ScannedCount"], &scanned) == nil {
		out["ScannedCount"] = marshal(max(0, scanned-dropped))
	}
	p.count(func(s *Stats) {
		s.Injected[Lag]++
		s.LaggedItems += dropped
	})
	resp.body = marshal(out)
	resp.write(w, true)
}

// discard answers a BatchWriteItem request as wholly processed without
// forwarding it.
func (p *Proxy) discard(w http.ResponseWriter, r *http.Request, op string, body []byte) {
	var in struct {
		RequestItems           map[string][]json.RawMessage
		ReturnConsumedCapacity string
	}
	if json.Unmarshal(body, &in) != nil || len(in.RequestItems) == 0 {
		p.pass(w, r, op, body) // not a request the proxy understands: DynamoDB answers it
		return
	}
	type capacity struct {
		TableName     string
		CapacityUnits float64
		Table         *struct{ CapacityUnits float64 } `json:",omitempty"`
	}
	out := struct {
		UnprocessedItems map[string]json.RawMessage
		ConsumedCapacity []capacity `json:",omitempty"`
	}{UnprocessedItems: map[string]json.RawMessage{}}
	n := 0
	tables := make([]string, 0, len(in.RequestItems))
	for t := range in.RequestItems {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	for _, t := range tables {
		reqs := in.RequestItems[t]
		n += len(reqs)
		units := 0
		for _, req := range reqs {
			units += (len(req) + 1023) / 1024
		}
		switch in.ReturnConsumedCapacity {
		case "TOTAL":
			out.ConsumedCapacity = append(out.ConsumedCapacity, capacity{TableName: t, CapacityUnits: float64(units)})
		case "INDEXES":
			out.ConsumedCapacity = append(out.ConsumedCapacity, capacity{TableName: t, CapacityUnits: float64(units),
				Table: &struct{ CapacityUnits float64 }{float64(units)}})
		}
	}
	p.count(func(s *Stats) {
		s.Injected[Discard]++
		s.DiscardedItems += n
	})
	(&response{status: http.StatusOK, header: http.Header{
		"Content-Type":     {"application/x-amz-json-1.0"},
		"X-Amzn-Requestid": {"faultproxy-" + strconv.FormatInt(time.Now().UnixNano(), 36)},
	}, body: marshal(out)}).write(w, true)
}

// keepOrder orders the n entries of a request for a partial answer: the
// first keep are processed, the rest left over. In request order, or with
// random, a seeded random choice of which are kept, each side still in
// request order.
func keepOrder(n, keep int, random bool, seed uint64) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if random {
		rng := rand.New(rand.NewPCG(seed, ^seed))
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		slices.Sort(order[:keep])
		slices.Sort(order[keep:])
	}
	return order
}

// forwardPart forwards the request in with its RequestItems replaced by
// kept (the part of a batch the proxy lets through) and returns DynamoDB's
// answer when it is 200; otherwise it has answered the client itself (a
// failed forward as 502, any other answer as it is) and returns nil.
func (p *Proxy) forwardPart(w http.ResponseWriter, r *http.Request, op string, in map[string]json.RawMessage, kept any) *response {
	in["RequestItems"] = marshal(kept)
	resp, err := p.forward(r, op, marshal(in))
	if err != nil {
		if r.Context().Err() == nil {
			http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
		}
		return nil
	}
	if resp.status != http.StatusOK {
		resp.write(w, false)
		return nil
	}
	return resp
}
