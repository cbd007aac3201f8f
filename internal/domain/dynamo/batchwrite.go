package dynamo

import (
	"bytes"
	"context"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/remodel-dev/remodel/internal/domain/av"
)

// batchWriteProtocol is the SDK's own protocol (awsJson 1.0) except for
// the body of a BatchWriteItem request, which it writes itself: migrate's
// hot path sends one per 25 items, and the SDK's schema-driven serializer
// spent about 2 µs of CPU per item on it (walking schemas, growing its
// buffer, then copying it once more). Everything else is the SDK's: the
// headers, every other operation, signing, retries, reading the answer.
//
// The body is the same JSON the SDK writes, byte for byte for the same map
// order (TestBatchWriteBodyMatchesSDK, FuzzBatchWriteBody). A request it
// does not know how to write exactly as the SDK does (an option other than
// RequestItems, an attribute value of a type it does not know or nil, a
// write request that is neither one put nor one delete) is left to the SDK.
type batchWriteProtocol struct {
	smithyhttp.ClientProtocol
}

func (p batchWriteProtocol) SerializeRequest(ctx context.Context, schema *smithy.OperationSchema, in smithy.Serializable, req *smithyhttp.Request) error {
	bw, ok := in.(*dynamodb.BatchWriteItemInput)
	if !ok || schema.ID().Name != "BatchWriteItem" {
		return p.ClientProtocol.SerializeRequest(ctx, schema, in, req)
	}
	body, ok := appendBatchWrite(nil, bw)
	if !ok {
		return p.ClientProtocol.SerializeRequest(ctx, schema, in, req)
	}
	// The SDK's own serializer sets the method, path and headers and an
	// empty body; then the body is replaced by this one.
	if err := p.ClientProtocol.SerializeRequest(ctx, schema, emptyBatchWrite, req); err != nil {
		return err
	}
	sreq, err := req.SetStream(bytes.NewReader(body))
	if err != nil {
		return err
	}
	*req = *sreq
	return nil
}

// emptyBatchWrite is serialized by the SDK only for the request's headers.
var emptyBatchWrite = &dynamodb.BatchWriteItemInput{}

// appendBatchWrite appends in's JSON body to b, or returns false when in
// holds anything it does not write exactly as the SDK does.
func appendBatchWrite(b []byte, in *dynamodb.BatchWriteItemInput) ([]byte, bool) {
	if in.ReturnConsumedCapacity != "" || in.ReturnItemCollectionMetrics != "" || in.RequestItems == nil {
		return nil, false
	}
	if b == nil {
		// Room for a body a little larger than the last one: the batches
		// of one run are much alike.
		b = make([]byte, 0, lastSize.Load()*9/8+512)
	}
	b = append(b, `{"RequestItems":{`...)
	first := true
	for table, reqs := range in.RequestItems {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = av.AppendString(b, table)
		b = append(b, ':')
		if reqs == nil {
			return nil, false
		}
		b = append(b, '[')
		for i, r := range reqs {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			switch {
			case r.PutRequest != nil && r.DeleteRequest == nil && r.PutRequest.Item != nil:
				b = append(b, `{"PutRequest":{"Item":`...)
				b, ok = av.AppendItem(b, r.PutRequest.Item)
			case r.DeleteRequest != nil && r.PutRequest == nil && r.DeleteRequest.Key != nil:
				b = append(b, `{"DeleteRequest":{"Key":`...)
				b, ok = av.AppendItem(b, r.DeleteRequest.Key)
			}
			if !ok {
				return nil, false
			}
			b = append(b, "}}"...)
		}
		b = append(b, ']')
	}
	b = append(b, "}}"...)
	lastSize.Store(int64(len(b)))
	return b, true
}

// lastSize is the size of the last body appendBatchWrite wrote.
var lastSize atomic.Int64
