package dynamo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// capture is an HTTP client that keeps the last request's body and answers
// every BatchWriteItem with nothing unprocessed.
type capture struct {
	mu     sync.Mutex
	body   []byte
	target string
}

func (c *capture) Do(r *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.body, c.target = b, r.Header.Get("X-Amz-Target")
	c.mu.Unlock()
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body:    io.NopCloser(strings.NewReader(`{"UnprocessedItems":{}}`)),
		Request: r,
	}, nil
}

// sdkClient sends through c with the SDK's own protocol; fast with
// batchWriteProtocol, as Connect sets it up.
func sdkClient(c *capture, fast bool) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://127.0.0.1:1"), HTTPClient: c,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}, func(o *dynamodb.Options) {
		if fast {
			o.Protocol = batchWriteProtocol{o.Protocol}
		}
	})
}

// bodies returns the body the SDK writes for in and the one Connect's
// client writes.
func bodies(t testing.TB, in *dynamodb.BatchWriteItemInput) (sdk, ours []byte) {
	t.Helper()
	sdk, ours, err := tryBodies(t, in)
	if err != nil {
		t.Fatal(err)
	}
	return sdk, ours
}

// tryBodies is bodies for a request the SDK may refuse before sending it:
// then it must refuse it with the same error both ways.
func tryBodies(t testing.TB, in *dynamodb.BatchWriteItemInput) (sdk, ours []byte, err error) {
	t.Helper()
	var errs [2]error
	for i, fast := range []bool{false, true} {
		c := &capture{}
		if _, errs[i] = sdkClient(c, fast).BatchWriteItem(context.Background(), in); errs[i] != nil {
			continue
		}
		if c.target != "DynamoDB_20120810.BatchWriteItem" {
			t.Fatalf("X-Amz-Target %q", c.target)
		}
		if fast {
			ours = c.body
		} else {
			sdk = c.body
		}
	}
	if (errs[0] == nil) != (errs[1] == nil) || errs[0] != nil && errs[0].Error() != errs[1].Error() {
		t.Fatalf("SDK: %v; through batchWriteProtocol: %v", errs[0], errs[1])
	}
	return sdk, ours, errs[0]
}

func puts(items ...map[string]types.AttributeValue) *dynamodb.BatchWriteItemInput {
	reqs := make([]types.WriteRequest, len(items))
	for i, it := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"t": reqs}}
}

func one(name string, v types.AttributeValue) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{name: v}
}

// tricky are strings whose JSON form needs care: escapes, control
// characters, DEL, bytes that are not UTF-8, U+2028/2029, HTML characters.
var tricky = []string{
	"", "plain", `q"uote`, `back\slash`, "nl\ncr\rtab\t", "\x00\x01\x1f\x7f", "<a href='x'>&amp;</a>",
	"caf\xe9", "\xff\xfe", "ok é 日本 🎉", "line\u2028para\u2029", "\xe2\x80", "x\xc0\xafy", "/slash/",
	strings.Repeat("long ascii text ", 40), "\ufffd", "\u00a0\u200b",
	"\u2027\u202a\u20ac end\u2028", "\u2029", "ends in \xe2", "\xe2\x80", "\xe2\x80\xa8\xff",
}

// TestBatchWriteBodyMatchesSDK: for items of every attribute type and every
// tricky string, the body batchWriteProtocol writes is the SDK's byte for
// byte (each map with one key, so that both write it in the same order).
func TestBatchWriteBodyMatchesSDK(t *testing.T) {
	var items []map[string]types.AttributeValue
	for _, s := range tricky {
		items = append(items,
			one("s", &types.AttributeValueMemberS{Value: s}),
			one(s+"k", &types.AttributeValueMemberN{Value: "1"}),
			one("ss", &types.AttributeValueMemberSS{Value: []string{s, "b"}}),
			one("m", &types.AttributeValueMemberM{Value: one(s+"in", &types.AttributeValueMemberS{Value: s})}),
		)
	}
	items = append(items,
		one("n", &types.AttributeValueMemberN{Value: "-12.5E+3"}),
		one("b", &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 0xff}}),
		one("b0", &types.AttributeValueMemberB{Value: []byte{}}),
		one("bnil", &types.AttributeValueMemberB{}),
		one("t", &types.AttributeValueMemberBOOL{Value: true}),
		one("f", &types.AttributeValueMemberBOOL{}),
		one("null", &types.AttributeValueMemberNULL{Value: true}),
		one("nullf", &types.AttributeValueMemberNULL{}),
		one("ns", &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}}),
		one("ns0", &types.AttributeValueMemberNS{}),
		one("bs", &types.AttributeValueMemberBS{Value: [][]byte{{1}, nil, {}}}),
		one("ss0", &types.AttributeValueMemberSS{Value: []string{}}),
		one("l", &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "x"}, &types.AttributeValueMemberN{Value: "2"},
			&types.AttributeValueMemberL{}, &types.AttributeValueMemberM{},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		}}),
		one("l0", &types.AttributeValueMemberL{Value: []types.AttributeValue{}}),
		map[string]types.AttributeValue{},
	)
	in := puts(items...)
	in.RequestItems["t"] = append(in.RequestItems["t"],
		types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: one("PK", &types.AttributeValueMemberS{Value: "k\"1"})}})
	sdk, ours := bodies(t, in)
	if !bytes.Equal(sdk, ours) {
		t.Fatalf("bodies differ:\nSDK:  %s\nours: %s", sdk, ours)
	}
	direct, ok := appendBatchWrite(nil, in)
	if !ok || !bytes.Equal(direct, sdk) {
		t.Fatalf("appendBatchWrite: ok %v\n%s", ok, direct)
	}
}

// TestBatchWriteBodyManyKeys: with several keys per map (in map order, so
// not byte for byte) both bodies decode to the same JSON value, over
// several tables.
func TestBatchWriteBodyManyKeys(t *testing.T) {
	item := map[string]types.AttributeValue{}
	for i, s := range tricky {
		item["a"+s] = &types.AttributeValueMemberS{Value: s}
		item["n"+string(rune('a'+i))] = &types.AttributeValueMemberN{Value: "3"}
	}
	item["m"] = &types.AttributeValueMemberM{Value: maps.Clone(item)}
	in := puts(item, item)
	in.RequestItems["other \"table\""] = in.RequestItems["t"]
	sdk, ours := bodies(t, in)
	if !sameJSON(t, sdk, ours) {
		t.Fatalf("bodies differ:\nSDK:  %s\nours: %s", sdk, ours)
	}
}

// TestBatchWriteFallsBackToSDK: what appendBatchWrite does not write is
// the SDK's to write, with the same body the SDK alone writes.
func TestBatchWriteFallsBackToSDK(t *testing.T) {
	ok := one("PK", &types.AttributeValueMemberS{Value: "x"})
	cases := map[string]*dynamodb.BatchWriteItemInput{
		"consumed capacity": func() *dynamodb.BatchWriteItemInput {
			in := puts(ok)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
			return in
		}(),
		"item collection metrics": func() *dynamodb.BatchWriteItemInput {
			in := puts(ok)
			in.ReturnItemCollectionMetrics = types.ReturnItemCollectionMetricsSize
			return in
		}(),
		"unknown member": puts(one("u", &types.UnknownUnionMember{Tag: "X", Value: []byte("1")})),
		"nested unknown": puts(one("l", &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.UnknownUnionMember{Tag: "X"}}})),
		"no request":     {RequestItems: map[string][]types.WriteRequest{"t": {{}}}},
		"both requests": {RequestItems: map[string][]types.WriteRequest{"t": {{
			PutRequest: &types.PutRequest{Item: ok}, DeleteRequest: &types.DeleteRequest{Key: ok}}}}},
		"nil item":  {RequestItems: map[string][]types.WriteRequest{"t": {{PutRequest: &types.PutRequest{}}}}},
		"nil list":  {RequestItems: map[string][]types.WriteRequest{"t": nil}},
		"no tables": {},
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if b, fast := appendBatchWrite(nil, in); fast {
				t.Fatalf("written directly: %s", b)
			}
			sdk, ours, _ := tryBodies(t, in) // the SDK refuses some before sending: then both refuse alike
			if !bytes.Equal(sdk, ours) {
				t.Fatalf("bodies differ:\nSDK:  %s\nours: %s", sdk, ours)
			}
		})
	}
}

// sameJSON says whether a and b are valid JSON with the same value.
func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("SDK body: %v: %s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("our body: %v: %s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

// FuzzBatchWriteBody: for attribute values built from the fuzzer's bytes,
// the body is the SDK's byte for byte when every map has at most one key,
// and decodes to the same JSON value otherwise.
func FuzzBatchWriteBody(f *testing.F) {
	for _, s := range tricky {
		f.Add([]byte(s))
	}
	f.Add([]byte{9, 1, 'a', 2, 'b', 7, 3, 0, 4, 1, 5, 2, 6, 0xff, 8, 8, 1, 'x', 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &avGen{data: data}
		var items []map[string]types.AttributeValue
		for len(g.data) > 0 && len(items) < 25 {
			items = append(items, g.item(0))
		}
		in := puts(items...)
		sdk, ours := bodies(t, in)
		if g.multi {
			if !sameJSON(t, sdk, ours) {
				t.Fatalf("bodies differ:\nSDK:  %s\nours: %s", sdk, ours)
			}
			return
		}
		if !bytes.Equal(sdk, ours) {
			t.Fatalf("bodies differ:\nSDK:  %s\nours: %s", sdk, ours)
		}
	})
}

// avGen builds attribute values from bytes.
type avGen struct {
	data  []byte
	multi bool // some map has several keys
}

func (g *avGen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *avGen) str() string {
	n := int(g.byte() % 24)
	n = min(n, len(g.data))
	s := string(g.data[:n])
	g.data = g.data[n:]
	return s
}

func (g *avGen) item(depth int) map[string]types.AttributeValue {
	n := int(g.byte() % 4)
	if n > 1 {
		g.multi = true
	}
	m := make(map[string]types.AttributeValue, n)
	for range n {
		k := g.str()
		if n > 1 { // two keys that differ only in bytes that are not UTF-8 would be one in JSON
			k = strings.ToValidUTF8(k, "")
		}
		m[k] = g.av(depth + 1)
	}
	return m
}

func (g *avGen) av(depth int) types.AttributeValue {
	k := g.byte() % 11
	if depth > 4 && k >= 9 {
		k = 0
	}
	switch k {
	case 0:
		return &types.AttributeValueMemberS{Value: g.str()}
	case 1:
		return &types.AttributeValueMemberN{Value: g.str()}
	case 2:
		if g.byte()%5 == 0 {
			return &types.AttributeValueMemberB{}
		}
		return &types.AttributeValueMemberB{Value: []byte(g.str())}
	case 3:
		return &types.AttributeValueMemberBOOL{Value: g.byte()%2 == 0}
	case 4:
		return &types.AttributeValueMemberNULL{Value: g.byte()%2 == 0}
	case 5:
		var ss []string
		for range g.byte() % 4 {
			ss = append(ss, g.str())
		}
		return &types.AttributeValueMemberSS{Value: ss}
	case 6:
		var ns []string
		for range g.byte() % 4 {
			ns = append(ns, g.str())
		}
		return &types.AttributeValueMemberNS{Value: ns}
	case 7:
		var bs [][]byte
		for range g.byte() % 4 {
			bs = append(bs, []byte(g.str()))
		}
		return &types.AttributeValueMemberBS{Value: bs}
	case 8:
		var l []types.AttributeValue
		for range g.byte() % 4 {
			l = append(l, g.av(depth+1))
		}
		return &types.AttributeValueMemberL{Value: l}
	default:
		if g.byte()%7 == 0 {
			return &types.AttributeValueMemberM{}
		}
		return &types.AttributeValueMemberM{Value: g.item(depth + 1)}
	}
}

// TestBatchWriteRoundTrip: items of every type and tricky strings (valid
// UTF-8: DynamoDB refuses the rest) written by Connect's client into
// DynamoDB Local read back as they were written.
func TestBatchWriteRoundTrip(t *testing.T) {
	ctx := context.Background()
	_, table := testenv.DynamoDBTable(t)
	db := client(t, testenv.DynamoDB(t), nil)
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	var items []map[string]types.AttributeValue
	for i, s := range tricky {
		if !utf8.ValidString(s) || s == "" {
			continue
		}
		items = append(items, map[string]types.AttributeValue{
			"PK":    &types.AttributeValueMemberS{Value: fmt.Sprint("k", i, s)},
			"s":     &types.AttributeValueMemberS{Value: s},
			"a" + s: &types.AttributeValueMemberN{Value: "-1.5"},
			"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: s}, &types.AttributeValueMemberNULL{Value: true}}},
				"b":  &types.AttributeValueMemberB{Value: []byte(s + "\x00\xff")},
				"ok": &types.AttributeValueMemberBOOL{Value: true},
			}},
			"ss": &types.AttributeValueMemberSS{Value: []string{s + "1", s + "2"}},
			"ns": &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
			"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		})
	}
	for len(items) > 0 {
		n := min(len(items), 25)
		in := puts(items[:n]...)
		in.RequestItems = map[string][]types.WriteRequest{table: in.RequestItems["t"]}
		out, err := db.BatchWriteItem(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.UnprocessedItems) > 0 {
			t.Fatalf("unprocessed: %v", out.UnprocessedItems)
		}
		for _, want := range items[:n] {
			got, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"PK": want["PK"]}, ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(normalize(got.Item), normalize(want)) {
				t.Errorf("read back %+v\nwritten   %+v", normalize(got.Item), normalize(want))
			}
		}
		items = items[n:]
	}
}

// normalize is item in a form reflect.DeepEqual compares by value (sets in
// order: DynamoDB does not keep a set's order).
func normalize(item map[string]types.AttributeValue) map[string]any {
	out := map[string]any{}
	for k, v := range item {
		out[k] = normAV(v)
	}
	return out
}

func normAV(v types.AttributeValue) any {
	switch x := v.(type) {
	case *types.AttributeValueMemberSS:
		return "SS" + fmt.Sprint(slices.Sorted(slices.Values(x.Value)))
	case *types.AttributeValueMemberNS:
		return "NS" + fmt.Sprint(slices.Sorted(slices.Values(x.Value)))
	case *types.AttributeValueMemberBS:
		var s []string
		for _, b := range x.Value {
			s = append(s, string(b))
		}
		return "BS" + fmt.Sprint(slices.Sorted(slices.Values(s)))
	case *types.AttributeValueMemberM:
		return normalize(x.Value)
	case *types.AttributeValueMemberL:
		var l []any
		for _, e := range x.Value {
			l = append(l, normAV(e))
		}
		return l
	}
	return v
}
