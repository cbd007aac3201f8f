package faultproxy

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Capacity is a model of the write capacity of a DynamoDB table, applied to
// the BatchWriteItem, PutItem and DeleteItem requests passing through the
// proxy (Proxy.SetCapacity). DynamoDB Local takes writes as fast as it can;
// the real service limits them, and this model does it the same way:
//
//   - one partition-key value takes at most KeyLimit write units a second
//     (DynamoDB's 1 000 WU/s per partition, which an item collection, all
//     on one partition, cannot exceed);
//   - the table takes at most its allowance: TableLimit write units a second
//     (provisioned capacity), or, OnDemand, an allowance that starts at
//     Initial (4 000 WU/s, a new on-demand table's) and doubles after the
//     writes have used it in full for a sustained period (DoubleAfter):
//     DynamoDB's "up to double the previous peak", modelled simply. At the
//     end of each period of DoubleAfter the period's rate of admitted units
//     becomes the peak if it is higher, and the allowance is
//     max(Initial, 2·peak), never above TableLimit when one is set (the
//     account's per-table quota, 40 000 by default).
//
// Each limit is a token bucket that holds Burst seconds of its rate; a
// partition key's bucket starts full (an idle key has its burst), the
// table's starts empty, so that what the table admits from the start of a
// run is at most its allowance times the time. An item costs
// ceil(size/1 KB) write units, size as DynamoDB counts it (attribute names
// and values, ItemSize); a delete costs one. An item is admitted when both
// its key's bucket and the table's hold its units, which are then taken
// from both; otherwise it is throttled.
//
// A throttled write is answered as DynamoDB answers: in a BatchWriteItem,
// the throttled write requests come back in UnprocessedItems (HTTP 200,
// the others are forwarded); when every one of them is throttled, the
// request fails with HTTP 400 ProvisionedThroughputExceededException. A
// throttled PutItem or DeleteItem gets that 400.
//
// Time is scaled for tests: Scale model seconds pass in one real second
// (Scale 10: one model second is 100 ms), so rates in real time are the
// model's times Scale, and DoubleAfter is model time.
type Capacity struct {
	// PartitionKey is the name of the table's partition-key attribute
	// (required).
	PartitionKey string
	// KeyLimit is the write units a second of one partition-key value;
	// 0: 1 000.
	KeyLimit float64
	// TableLimit is the table's write units a second: its provisioned
	// capacity, or with OnDemand the most the allowance grows to; 0: no
	// limit (OnDemand: 40 000).
	TableLimit float64
	// OnDemand starts the table's allowance at Initial (0: 4 000) and
	// doubles it as described above, each period of DoubleAfter (0: 30 s
	// of model time) the table's writes use it in full.
	OnDemand    bool
	Initial     float64
	DoubleAfter time.Duration
	// Burst is how many seconds of its rate a bucket holds; 0: 1.
	Burst float64
	// Scale is model seconds per real second; 0: 1.
	Scale float64
}

// CapacityStats counts what the capacity model did.
type CapacityStats struct {
	// Admitted and Throttled count write requests (items); AdmittedUnits
	// the write units of the admitted ones.
	Admitted, Throttled int
	AdmittedUnits       float64
	// ThrottledRequests counts the requests failed as a whole (HTTP 400).
	ThrottledRequests int
	// First and Last are when the first and the last admitted write was
	// admitted (real time); Elapsed is the model time between them.
	First, Last time.Time
	Elapsed     time.Duration
	// Allowance is the table's current allowance in write units a second
	// (0: none); HotKey is the partition-key value (its JSON) with the most
	// units admitted, HotKeyUnits its units.
	Allowance   float64
	HotKey      string
	HotKeyUnits float64
}

// bucket is a token bucket in model time.
type bucket struct {
	tokens float64
	at     time.Duration // model time of tokens
}

// refill brings b to model time t at rate per second, holding at most
// size.
func (b *bucket) refill(t time.Duration, rate, size float64) {
	if t > b.at {
		b.tokens = min(size, b.tokens+rate*(t-b.at).Seconds())
		b.at = t
	}
}

// model is the capacity model's state; the proxy holds its lock.
type model struct {
	c     Capacity
	start time.Time // real time of model time 0
	table bucket
	keys  map[string]*bucket
	units map[string]float64 // admitted per key
	stats CapacityStats
	// on-demand: the current period's start (model time) and units, the
	// peak rate and the allowance
	period      time.Duration
	periodUnits float64
	peak        float64
	allowance   float64
	calls       int
}

func newModel(c Capacity, now time.Time) (*model, error) {
	if c.PartitionKey == "" {
		return nil, fmt.Errorf("faultproxy: the capacity model needs the table's partition-key attribute name")
	}
	if c.KeyLimit < 0 || c.TableLimit < 0 || c.Initial < 0 || c.Burst < 0 || c.Scale < 0 || c.DoubleAfter < 0 {
		return nil, fmt.Errorf("faultproxy: capacity: limits, burst and scale must not be negative")
	}
	if c.KeyLimit == 0 {
		c.KeyLimit = 1000
	}
	if c.Burst == 0 {
		c.Burst = 1
	}
	if c.Scale == 0 {
		c.Scale = 1
	}
	m := &model{c: c, start: now, keys: map[string]*bucket{}, units: map[string]float64{}}
	if c.OnDemand {
		if m.c.Initial == 0 {
			m.c.Initial = 4000
		}
		if m.c.TableLimit == 0 {
			m.c.TableLimit = 40000
		}
		if m.c.DoubleAfter == 0 {
			m.c.DoubleAfter = 30 * time.Second
		}
		m.peak = m.c.Initial / 2
		m.allowance = min(m.c.Initial, m.c.TableLimit)
	} else {
		m.allowance = c.TableLimit // 0: none
	}
	return m, nil
}

// modelTime is the model time at real time now.
func (m *model) modelTime(now time.Time) time.Duration {
	return time.Duration(float64(now.Sub(m.start)) * m.c.Scale)
}

// advance moves the on-demand periods up to model time t.
func (m *model) advance(t time.Duration) {
	if !m.c.OnDemand {
		return
	}
	for t-m.period >= m.c.DoubleAfter {
		rate := m.periodUnits / m.c.DoubleAfter.Seconds()
		if rate > m.peak {
			m.peak = rate
		}
		m.allowance = min(m.c.TableLimit, max(m.c.Initial, 2*m.peak))
		m.period += m.c.DoubleAfter
		m.periodUnits = 0
	}
}

// admit decides, at real time now, which of the writes (their partition
// keys and write units, in request order) are admitted.
func (m *model) admit(now time.Time, keys []string, units []float64) []bool {
	t := m.modelTime(now)
	m.advance(t)
	ok := make([]bool, len(keys))
	if m.allowance > 0 {
		m.table.refill(t, m.allowance, m.allowance*m.c.Burst)
	}
	keySize := m.c.KeyLimit * m.c.Burst
	for i, k := range keys {
		b := m.keys[k]
		if b == nil {
			b = &bucket{tokens: keySize, at: t}
			m.keys[k] = b
		}
		b.refill(t, m.c.KeyLimit, keySize)
		u := units[i]
		if b.tokens < u || (m.allowance > 0 && m.table.tokens < u) {
			m.stats.Throttled++
			continue
		}
		b.tokens -= u
		if m.allowance > 0 {
			m.table.tokens -= u
		}
		ok[i] = true
		m.stats.Admitted++
		m.stats.AdmittedUnits += u
		m.periodUnits += u
		m.units[k] += u
		if m.units[k] > m.stats.HotKeyUnits {
			m.stats.HotKey, m.stats.HotKeyUnits = k, m.units[k]
		}
		if m.stats.First.IsZero() {
			m.stats.First = now
		}
		m.stats.Last = now
	}
	if m.calls++; m.calls%4096 == 0 {
		m.prune(t, keySize)
	}
	return ok
}

// prune forgets the buckets that are full again: a new bucket starts full.
func (m *model) prune(t time.Duration, size float64) {
	for k, b := range m.keys {
		if b.tokens+m.c.KeyLimit*(t-b.at).Seconds() >= size {
			delete(m.keys, k)
		}
	}
}

func (m *model) snapshot() CapacityStats {
	s := m.stats
	s.Allowance = m.allowance
	if !s.First.IsZero() {
		s.Elapsed = time.Duration(float64(s.Last.Sub(s.First)) * m.c.Scale)
	}
	return s
}

// SetCapacity applies the capacity model c to the writes passing through
// the proxy from now on, with fresh buckets and counts; nil removes it.
// Fault rules come first: a request a rule fires on is not seen by the
// model.
func (p *Proxy) SetCapacity(c *Capacity) error {
	var m *model
	if c != nil {
		var err error
		if m, err = newModel(*c, time.Now()); err != nil {
			return err
		}
	}
	p.mu.Lock()
	p.capacity = m
	p.mu.Unlock()
	return nil
}

// CapacityStats returns the capacity model's counts (the zero value when
// there is no model).
func (p *Proxy) CapacityStats() CapacityStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.capacity == nil {
		return CapacityStats{}
	}
	return p.capacity.snapshot()
}

// modelled says whether the capacity model applies to op.
func (p *Proxy) modelled(op string) bool {
	if op != BatchWriteItem && op != "PutItem" && op != "DeleteItem" {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.capacity != nil
}

const throttleType = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"

// throttleWrites applies the capacity model to a write request: it answers
// it when the model throttles all of it, forwards it whole or in part
// otherwise.
func (p *Proxy) throttleWrites(w http.ResponseWriter, r *http.Request, op string, body []byte) {
	if op != BatchWriteItem {
		var in struct{ Item, Key map[string]json.RawMessage }
		if json.Unmarshal(body, &in) != nil {
			p.pass(w, r, op, body)
			return
		}
		key, units := "", 1.0
		if op == "PutItem" {
			key, units = p.partitionKey(in.Item), float64(itemUnits(ItemSize(in.Item)))
		} else {
			key = p.partitionKey(in.Key)
		}
		if !p.admit([]string{key}, []float64{units})[0] {
			p.countCapacity(func(s *CapacityStats) { s.ThrottledRequests++ })
			writeError(w, http.StatusBadRequest, throttleType, "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")
			return
		}
		p.pass(w, r, op, body)
		return
	}
	var in map[string]json.RawMessage
	var items map[string][]json.RawMessage
	if json.Unmarshal(body, &in) != nil || json.Unmarshal(in["RequestItems"], &items) != nil {
		p.pass(w, r, op, body)
		return
	}
	tables := make([]string, 0, len(items))
	for t := range items {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	var all []writeRef
	var keys []string
	var units []float64
	for _, t := range tables {
		for _, req := range items[t] {
			var wr struct {
				PutRequest    *struct{ Item map[string]json.RawMessage }
				DeleteRequest *struct{ Key map[string]json.RawMessage }
			}
			if json.Unmarshal(req, &wr) != nil {
				p.pass(w, r, op, body)
				return
			}
			switch {
			case wr.PutRequest != nil:
				keys = append(keys, p.partitionKey(wr.PutRequest.Item))
				units = append(units, float64(itemUnits(ItemSize(wr.PutRequest.Item))))
			case wr.DeleteRequest != nil:
				keys = append(keys, p.partitionKey(wr.DeleteRequest.Key))
				units = append(units, 1)
			default:
				p.pass(w, r, op, body)
				return
			}
			all = append(all, writeRef{t, req})
		}
	}
	ok := p.admit(keys, units)
	kept := map[string][]json.RawMessage{}
	left := map[string][]json.RawMessage{}
	nleft := 0
	for i, ref := range all {
		if ok[i] {
			kept[ref.table] = append(kept[ref.table], ref.req)
		} else {
			left[ref.table] = append(left[ref.table], ref.req)
			nleft++
		}
	}
	switch {
	case nleft == 0:
		p.pass(w, r, op, body)
		return
	case nleft == len(all):
		p.countCapacity(func(s *CapacityStats) { s.ThrottledRequests++ })
		writeError(w, http.StatusBadRequest, throttleType, "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.")
		return
	}
	resp := p.forwardPart(w, r, op, in, kept)
	if resp == nil {
		return
	}
	if err := mergeUnprocessed(resp, left); err != nil {
		http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	resp.write(w, true)
}

// partitionKey is the JSON of an item's partition-key value, "" when it
// has none.
func (p *Proxy) partitionKey(item map[string]json.RawMessage) string {
	p.mu.Lock()
	name := p.capacity.c.PartitionKey
	p.mu.Unlock()
	return string(item[name])
}

func (p *Proxy) admit(keys []string, units []float64) []bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.capacity == nil { // removed meanwhile
		ok := make([]bool, len(keys))
		for i := range ok {
			ok[i] = true
		}
		return ok
	}
	return p.capacity.admit(time.Now(), keys, units)
}

func (p *Proxy) countCapacity(f func(s *CapacityStats)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.capacity != nil {
		f(&p.capacity.stats)
	}
}

// itemUnits is what writing an item of size bytes costs: one write unit
// per started KB, at least one.
func itemUnits(size int) int { return max(1, (size+1023)/1024) }

// ItemSize is an item's size as DynamoDB counts it, from its DynamoDB JSON
// (attribute name → typed value): the UTF-8 length of every attribute name
// and value; a number, 1 byte per two significant digits plus 1; binary,
// its decoded bytes; a boolean or null, 1; a list or map, 3 plus 1 a
// member (and its name, in a map) plus the members' sizes. It counts as
// mapping.ItemSize does for the same item.
func ItemSize(item map[string]json.RawMessage) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueSize(v)
	}
	return n
}

func valueSize(raw json.RawMessage) int {
	var v map[string]json.RawMessage
	if json.Unmarshal(raw, &v) != nil {
		return 0
	}
	for typ, val := range v {
		switch typ {
		case "S":
			var s string
			_ = json.Unmarshal(val, &s)
			return len(s)
		case "N":
			var s string
			_ = json.Unmarshal(val, &s)
			return numberSize(s)
		case "B":
			return binarySize(val)
		case "BOOL", "NULL":
			return 1
		case "SS", "NS", "BS":
			var ss []json.RawMessage
			_ = json.Unmarshal(val, &ss)
			n := 0
			for _, e := range ss {
				switch typ {
				case "BS":
					n += binarySize(e)
				default:
					var s string
					_ = json.Unmarshal(e, &s)
					if typ == "NS" {
						n += numberSize(s)
					} else {
						n += len(s)
					}
				}
			}
			return n
		case "L":
			var l []json.RawMessage
			_ = json.Unmarshal(val, &l)
			n := 3
			for _, e := range l {
				n += 1 + valueSize(e)
			}
			return n
		case "M":
			var m map[string]json.RawMessage
			_ = json.Unmarshal(val, &m)
			n := 3
			for k, e := range m {
				n += 1 + len(k) + valueSize(e)
			}
			return n
		}
	}
	return 0
}

func binarySize(val json.RawMessage) int {
	var s string
	_ = json.Unmarshal(val, &s)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return len(s) * 3 / 4
	}
	return len(b)
}

// numberSize is 1 byte per two significant digits plus 1; leading and
// trailing zeros are not significant.
func numberSize(s string) int {
	mant := strings.TrimLeft(s, "-+")
	if i := strings.IndexAny(mant, "eE"); i >= 0 {
		mant = mant[:i]
	}
	digits := strings.Trim(strings.ReplaceAll(mant, ".", ""), "0")
	sig := 0
	for i := 0; i < len(digits); i++ {
		if digits[i] >= '0' && digits[i] <= '9' {
			sig++
		}
	}
	return (sig+1)/2 + 1
}

// Share is the share of the model's allowance the writes counted in s
// used: the least model time in which the model could have admitted every
// unit admitted (the table's units at the table's limit, the busiest key's
// at the key limit less the burst its bucket starts with), over the model
// time from the first admitted write to the last. 1 is as fast as the
// model allows. For a table with a fixed limit (not OnDemand).
func (c Capacity) Share(s CapacityStats) float64 {
	m, err := newModel(c, time.Time{})
	if err != nil || s.Elapsed <= 0 {
		return 0
	}
	ideal := max(0, s.HotKeyUnits-m.c.KeyLimit*m.c.Burst) / m.c.KeyLimit
	if m.allowance > 0 {
		ideal = max(ideal, s.AdmittedUnits/m.allowance)
	}
	return ideal / s.Elapsed.Seconds()
}
