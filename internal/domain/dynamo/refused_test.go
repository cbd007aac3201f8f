package dynamo

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/aws/smithy-go"
)

// TestRefused: only a DynamoDB call whose connection was refused is a
// RefusedError; S3's, a source's, or another DynamoDB failure are not.
func TestRefused(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9},
		Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	post := &url.Error{Op: "Post", URL: "http://127.0.0.1:9/", Err: dial}
	sdk := func(service string, err error) error {
		return fmt.Errorf("verify: describing table t: %w", &smithy.OperationError{ServiceID: service, OperationName: "DescribeTable",
			Err: fmt.Errorf("https response error StatusCode: 0, RequestID: , request send failed, %w", err)})
	}
	tests := []struct {
		name string
		err  error
		want string // "": not refused
	}{
		{"DynamoDB refused", sdk("DynamoDB", post), "DynamoDB at http://127.0.0.1:9 refuses connections (dial tcp 127.0.0.1:9: connect: connection refused): is DynamoDB Local running?"},
		{"S3 refused", sdk("S3", post), ""},
		{"a source refused", fmt.Errorf("source: connecting: %w", dial), ""},
		{"DynamoDB timed out", sdk("DynamoDB", &url.Error{Op: "Post", URL: "http://127.0.0.1:9/", Err: errors.New("i/o timeout")}), ""},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re := Refused(tt.err)
			switch {
			case tt.want == "" && re != nil:
				t.Errorf("Refused = %q, want nil", re)
			case tt.want != "" && (re == nil || re.Error() != tt.want):
				t.Errorf("Refused = %v, want %q", re, tt.want)
			case re != nil && !errors.Is(re, syscall.ECONNREFUSED):
				t.Errorf("the RefusedError does not unwrap to the original error")
			}
		})
	}
}
