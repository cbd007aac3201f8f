package dynamo

import (
	"errors"
	"net"
	"net/url"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

// RefusedError is a DynamoDB call whose endpoint refused the connection:
// nothing listens there (DynamoDB Local not started, a wrong port). Its
// message is one line naming the endpoint and the dial error, instead of
// the SDK's chain (operation error, attempts, status code 0, request ID).
type RefusedError struct {
	Endpoint string // scheme://host:port the client dialled
	Dial     error  // the dial error (dial tcp 127.0.0.1:9: connect: connection refused)
	Err      error  // the whole error, for errors.Is and errors.As
}

func (e *RefusedError) Error() string {
	return "DynamoDB at " + e.Endpoint + " refuses connections (" + e.Dial.Error() + "): is DynamoDB Local running?"
}

func (e *RefusedError) Unwrap() error { return e.Err }

// Refused returns the RefusedError err is, when err is a DynamoDB call
// (the SDK's or the direct BatchWriteItem path, both wrapped in a
// smithy.OperationError of the DynamoDB service) that failed because the
// endpoint refused the connection; nil otherwise (another service, such as
// S3, or a source database refusing is not this).
func Refused(err error) *RefusedError {
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		return nil
	}
	if re, ok := errors.AsType[*RefusedError](err); ok {
		return re
	}
	op, ok := errors.AsType[*smithy.OperationError](err)
	if !ok || op.ServiceID != dynamodb.ServiceID {
		return nil
	}
	re := &RefusedError{Err: err, Dial: err}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		if u, perr := url.Parse(ue.URL); perr == nil {
			re.Endpoint = u.Scheme + "://" + u.Host
		} else {
			re.Endpoint = ue.URL
		}
		re.Dial = ue.Err
	}
	if oe, ok := errors.AsType[*net.OpError](err); ok {
		re.Dial = oe
	}
	if re.Endpoint == "" {
		re.Endpoint = "its endpoint"
	}
	return re
}

// Explain returns the RefusedError err is (one line), or err.
func Explain(err error) error {
	if re := Refused(err); re != nil {
		return re
	}
	return err
}
