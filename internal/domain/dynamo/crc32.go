package dynamo

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"strconv"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// checkCRC32 checks a response body against its X-Amz-Crc32 header, the
// checksum DynamoDB computes over every answer.
//
// It replaces the SDK's own check (dynamodb.Options
// .DisableValidateResponseChecksum), which (1) compares with 0 when the
// header is missing, as it is in DynamoDB Local's error answers, and logs
// "WARN failed to close HTTP response body ... response did not match
// expected checksum" for each; and (2) only logs a real mismatch, when the
// body is closed, after the damaged answer has been used. Here a missing
// header is not checked, and a mismatch is an error the SDK's retryer
// retries (as the AWS SDKs for Java and Python do), before the body is
// decoded.
type checkCRC32 struct{ log *slog.Logger }

func (checkCRC32) ID() string { return "remodel:CheckCRC32" }

func (m checkCRC32) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok || resp.Body == nil || resp.Uncompressed {
		return out, md, nil // a body decompressed on the way has another checksum
	}
	h := resp.Header.Get("X-Amz-Crc32")
	if h == "" {
		return out, md, nil
	}
	want, perr := strconv.ParseUint(h, 10, 32)
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	if rerr != nil {
		return out, md, fmt.Errorf("dynamo: reading the response: %w", rerr)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if got := crc32.ChecksumIEEE(body); perr != nil || uint32(want) != got {
		e := &ChecksumError{Header: h, Computed: got}
		m.log.Debug("response checksum mismatch, retrying", "header", h, "computed", got, "bytes", len(body))
		return out, md, e
	}
	return out, md, nil
}

// ChecksumError is a response whose body does not match its X-Amz-Crc32
// header: damaged on the way. The SDK retries it.
type ChecksumError struct {
	Header   string // the header's value
	Computed uint32 // the body's CRC32
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("dynamo: the response does not match its X-Amz-Crc32 checksum (header %s, body %d)", e.Header, e.Computed)
}

// RetryableError tells the SDK's retryer to try again.
func (e *ChecksumError) RetryableError() bool { return true }
