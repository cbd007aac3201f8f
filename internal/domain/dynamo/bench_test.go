package dynamo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// nullHTTP answers every request with body, as the null sink does, and
// reads the request's body as a server would.
type nullHTTP struct{ body []byte }

func (n nullHTTP) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{
			"Content-Type":     {"application/x-amz-json-1.0"},
			"X-Amz-Crc32":      {crc(string(n.body))},
			"X-Amzn-Requestid": {"REQ"},
		},
		Body:          io.NopCloser(bytes.NewReader(n.body)),
		ContentLength: int64(len(n.body)),
		Request:       r,
	}, nil
}

// benchBatch is 25 items like the personalization example's.
func benchBatch() map[string][]types.WriteRequest {
	reqs := make([]types.WriteRequest, 25)
	for i := range reqs {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"PK":        &types.AttributeValueMemberS{Value: fmt.Sprintf("USER#%08d", i)},
			"SK":        &types.AttributeValueMemberS{Value: "PERSONAL#web#theme"},
			"_type":     &types.AttributeValueMemberS{Value: "personal"},
			"value":     &types.AttributeValueMemberS{Value: "dark mode with a longer text value"},
			"updatedAt": &types.AttributeValueMemberS{Value: "2026-11-25T17:00:00.000000Z"},
			"version":   &types.AttributeValueMemberN{Value: "12"},
		}}}
	}
	return map[string][]types.WriteRequest{"bench": reqs}
}

// BenchmarkBatchWriteItem is one BatchWriteItem of 25 items as migrate's
// writer sends it (no SDK retries, an attempt deadline), answered at once
// with nothing unprocessed: the client's own cost per request.
func BenchmarkBatchWriteItem(b *testing.B) {
	isolate(b)
	db := benchClient(b)
	items := benchBatch()
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: items}, NoRetry, AttemptTimeout(time.Minute))
			if err != nil || len(out.UnprocessedItems) != 0 {
				b.Fatal(err, out.UnprocessedItems)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			out, err := db.WriteBatch(ctx, &dynamodb.BatchWriteItemInput{RequestItems: items}, time.Minute)
			if err != nil || len(out.UnprocessedItems) != 0 {
				b.Fatal(err, out.UnprocessedItems)
			}
		}
	})
}

// benchClient is Connect's client, answered by nullHTTP.
func benchClient(b *testing.B) *Client {
	db, err := Connect(context.Background(), Config{Region: "us-east-1", Endpoint: "http://127.0.0.1:1", LoadOptions: []func(*config.LoadOptions) error{
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")),
		config.WithHTTPClient(nullHTTP{[]byte(`{"UnprocessedItems":{}}`)}),
	}})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkAppendBatchWrite is the body of BenchmarkBatchWriteItem's
// request alone.
func BenchmarkAppendBatchWrite(b *testing.B) {
	in := &dynamodb.BatchWriteItemInput{RequestItems: benchBatch()}
	buf := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	for b.Loop() {
		var ok bool
		if buf, ok = appendBatchWrite(buf[:0], in); !ok {
			b.Fatal("not written")
		}
	}
}
