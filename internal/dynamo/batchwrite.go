package dynamo

import (
	"bytes"
	"context"
	"encoding/base64"
	"sync/atomic"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
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
		b = appendString(b, table)
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
				b, ok = appendItem(b, r.PutRequest.Item)
			case r.DeleteRequest != nil && r.PutRequest == nil && r.DeleteRequest.Key != nil:
				b = append(b, `{"DeleteRequest":{"Key":`...)
				b, ok = appendItem(b, r.DeleteRequest.Key)
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

// appendItem appends a map of attribute values: {"name":{"S":"…"},…}.
func appendItem(b []byte, item map[string]types.AttributeValue) ([]byte, bool) {
	b = append(b, '{')
	first := true
	for k, v := range item {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendAV(b, v); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendAV appends one attribute value as the SDK does: a union with one
// member, {"S":"…"}.
func appendAV(b []byte, v types.AttributeValue) ([]byte, bool) {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		b = append(b, `{"S":`...)
		b = appendString(b, x.Value)
	case *types.AttributeValueMemberN:
		b = append(b, `{"N":`...)
		b = appendString(b, x.Value)
	case *types.AttributeValueMemberB:
		b = append(b, `{"B":`...)
		b = appendBlob(b, x.Value)
	case *types.AttributeValueMemberBOOL:
		b = append(b, `{"BOOL":`...)
		b = appendBool(b, x.Value)
	case *types.AttributeValueMemberNULL:
		b = append(b, `{"NULL":`...)
		b = appendBool(b, x.Value)
	case *types.AttributeValueMemberSS:
		b = append(b, `{"SS":[`...)
		for i, s := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	case *types.AttributeValueMemberNS:
		b = append(b, `{"NS":[`...)
		for i, s := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	case *types.AttributeValueMemberBS:
		b = append(b, `{"BS":[`...)
		for i, s := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendBlob(b, s)
		}
		b = append(b, ']')
	case *types.AttributeValueMemberL:
		b = append(b, `{"L":[`...)
		for i, e := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendAV(b, e); !ok {
				return nil, false
			}
		}
		b = append(b, ']')
	case *types.AttributeValueMemberM:
		b = append(b, `{"M":`...)
		var ok bool
		if x.Value == nil {
			b = append(b, "{}"...) // the SDK writes a nil map as an empty one
		} else if b, ok = appendItem(b, x.Value); !ok {
			return nil, false
		}
	default: // nil, or a type this code does not know: the SDK writes the request
		return nil, false
	}
	return append(b, '}'), true
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// appendBlob writes bytes as the SDK does: base64 in quotes, nil as null.
func appendBlob(b []byte, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes appendString copies as they are: printable
// ASCII but " and \.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString writes s as a JSON string exactly as the SDK's serializer
// does (smithy-go's appendEscapedString): ", \ and the control characters
// below 0x20 escaped (\n, \r, \t by name, the others as \u00XX, as is DEL
// 0x7F), U+2028 and U+2029 escaped, each byte that is not valid UTF-8
// replaced by U+FFFD, everything else as it is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscape(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscape writes the escape of an ASCII byte that is not plain.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
