package dynamo

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/schemas"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// The direct path: Client.WriteBatch sends in as one attempt of
// BatchWriteItem: no retry by the SDK (the caller retries), the attempt
// given a deadline of timeout (<= 0: none) as AttemptTimeout does. It is
// what
//
//	db.BatchWriteItem(ctx, in, NoRetry, AttemptTimeout(timeout))
//
// returns, for less CPU: for a client made by Connect, once the SDK has
// sent one such request for the table (with the same credentials' account),
// the next ones are signed and sent directly: the same URL, the same
// headers (the SDK's User-Agent among them), signed by the SDK's own SigV4
// signer with the same credentials and clock-skew correction, sent by the
// same HTTP client, its answer checked against X-Amz-Crc32 (crc32.go). An
// answer with nothing unprocessed is read here; any other answer (items
// left unprocessed, an error) is read by the SDK's own deserializer, and
// every error is wrapped as the SDK wraps it (smithy.OperationError,
// awshttp.ResponseError, smithyhttp.RequestSendError, smithy.CanceledError),
// so that what a caller classifies as retryable, throttled or refused is
// unchanged (TestDirectMatchesSDK).
//
// Skipped by the direct path: the SDK's middleware stack, built and run for
// every call (about twenty layers: endpoint rules evaluated on every call,
// identity and auth scheme resolution, user agent assembly, recursion
// detection, the retry wrapper, tracing and metrics hooks that do nothing
// here), which cost about as much CPU as writing the body. Result metadata
// (out.ResultMetadata) is not filled in.

// NoRetry is a per-call option for callers that retry themselves (migrate's
// writer, verify's item reads): the SDK makes one attempt and does not wait.
func NoRetry(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }

// direct is what BatchWriteItem needs to send a request without the SDK's
// stack, for one client.
type direct struct {
	http      smithyhttp.ClientDo
	creds     aws.CredentialsProvider
	signer    *v4.Signer
	logger    logging.Logger
	log       *slog.Logger
	skew      *atomic.Int64 // the client's clock skew (server - local), learned from every answer
	noSkew    bool          // DisableClockSkewCorrection
	protocol  smithyhttp.ClientProtocol
	templates sync.Map // templateKey → *template
	calls     atomic.Int64
}

// templateKey: the endpoint rules depend, for one client, on the tables
// named (ResourceArnList) and the credentials' account ID.
type templateKey struct{ table, account string }

// template is a request the SDK sent: where to, its headers but those of
// the signature and the body, and the signing name and region it used.
type template struct {
	url, host    string
	header       http.Header
	name, region string
}

// newDirect returns the direct path for a client with options o, or nil
// when o asks for something only the SDK's stack does: interceptors,
// logging of requests or responses, a signer other than the standard one;
// or when running in AWS Lambda (the SDK adds a trace header per request
// there). Connect also leaves it out when the configuration adds
// middleware of its own (LoadOptions' APIOptions).
func newDirect(o dynamodb.Options, skew *atomic.Int64, log *slog.Logger) *direct {
	lm := o.ClientLogMode
	if lm.IsRequest() || lm.IsRequestWithBody() || lm.IsResponse() || lm.IsResponseWithBody() || lm.IsRequestEventMessage() || lm.IsResponseEventMessage() ||
		o.HTTPSignerV4 != nil && !isSigner(o.HTTPSignerV4) ||
		!noInterceptors(o.Interceptors) || o.Credentials == nil || o.HTTPClient == nil || o.Protocol == nil ||
		os.Getenv("AWS_LAMBDA_FUNCTION_NAME") != "" {
		return nil
	}
	logger := o.Logger
	if logger == nil {
		logger = logging.Nop{}
	}
	return &direct{
		http: o.HTTPClient, creds: o.Credentials, logger: logger, log: log, skew: skew, noSkew: o.DisableClockSkewCorrection,
		protocol: o.Protocol,
		signer: v4.NewSigner(func(so *v4.SignerOptions) {
			so.Logger = logger
			so.LogSigning = lm.IsSigning()
		}),
	}
}

func isSigner(s dynamodb.HTTPSignerV4) bool { _, ok := s.(*v4.Signer); return ok }

func noInterceptors(r smithyhttp.InterceptorRegistry) bool {
	return len(r.BeforeExecution)+len(r.BeforeSerialization)+len(r.AfterSerialization)+len(r.BeforeRetryLoop)+
		len(r.BeforeAttempt)+len(r.BeforeSigning)+len(r.AfterSigning)+len(r.BeforeTransmit)+len(r.AfterTransmit)+
		len(r.BeforeDeserialization)+len(r.AfterDeserialization)+len(r.AfterAttempt)+len(r.AfterExecution) == 0
}

// single returns the one table of in and whether there is exactly one.
func single(in *dynamodb.BatchWriteItemInput) (string, bool) {
	if len(in.RequestItems) != 1 {
		return "", false
	}
	for t := range in.RequestItems {
		return t, true
	}
	return "", false
}

// notSigned are the headers of a captured request that belong to one
// request only: the signer's and the SDK's per-attempt ones.
var notSigned = map[string]bool{
	"Authorization": true, "X-Amz-Date": true, "X-Amz-Security-Token": true, "Content-Length": true,
	"Amz-Sdk-Invocation-Id": true, "X-Amz-Content-Sha256": true,
}

// capture returns a per-call option that records the request the SDK
// sends for in, once signed, as the template of the next ones.
func (d *direct) capture(in *dynamodb.BatchWriteItemInput) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Finalize.Add(captureTemplate{d, in}, middleware.After)
		})
	}
}

type captureTemplate struct {
	d  *direct
	in *dynamodb.BatchWriteItemInput
}

func (captureTemplate) ID() string { return "remodel:CaptureTemplate" }

func (m captureTemplate) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
	if req, ok := in.Request.(*smithyhttp.Request); ok {
		m.d.record(ctx, m.in, req)
	}
	return next.HandleFinalize(ctx, in)
}

// record keeps req, signed by the SDK, as the template for in's table and
// the current credentials' account.
func (d *direct) record(ctx context.Context, in *dynamodb.BatchWriteItemInput, req *smithyhttp.Request) {
	table, ok := single(in)
	if !ok || req.Method != http.MethodPost {
		return
	}
	// AWS4-HMAC-SHA256 Credential=AKID/20261125/us-east-1/dynamodb/aws4_request, SignedHeaders=..., Signature=...
	auth, ok := strings.CutPrefix(req.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=")
	if !ok {
		return // anonymous, or another scheme (SigV4a): left to the SDK
	}
	scope, _, _ := strings.Cut(auth, ",")
	parts := strings.Split(scope, "/")
	if len(parts) < 5 || parts[len(parts)-1] != "aws4_request" {
		return
	}
	creds, err := d.creds.Retrieve(ctx)
	if err != nil {
		return
	}
	t := &template{url: req.URL.String(), header: http.Header{}, name: parts[len(parts)-2], region: parts[len(parts)-3]}
	if req.Host != "" && req.Host != req.URL.Host {
		t.host = req.Host
	}
	for k, v := range req.Header {
		if !notSigned[http.CanonicalHeaderKey(k)] {
			t.header[k] = append([]string(nil), v...)
		}
	}
	d.templates.Store(templateKey{table, creds.AccountID}, t)
}

// batchWrite sends in directly; ok false when it cannot (no template yet,
// a body it does not write, no credentials): then the SDK sends it.
func (d *direct) batchWrite(ctx context.Context, in *dynamodb.BatchWriteItemInput, timeout time.Duration) (_ *dynamodb.BatchWriteItemOutput, _ error, ok bool) {
	table, ok := single(in)
	if !ok {
		return nil, nil, false
	}
	creds, err := d.creds.Retrieve(ctx)
	if err != nil || !creds.HasKeys() {
		return nil, nil, false // the SDK says why, in its words
	}
	t, ok := d.templates.Load(templateKey{table, creds.AccountID})
	if !ok {
		return nil, nil, false
	}
	body, ok := appendBatchWrite(nil, in)
	if !ok {
		return nil, nil, false
	}
	d.calls.Add(1)
	out, err := d.send(ctx, t.(*template), creds, body, timeout)
	if err != nil {
		err = &smithy.OperationError{ServiceID: dynamodb.ServiceID, OperationName: "BatchWriteItem", Err: err}
	}
	return out, err, true
}

// send is one attempt, with the errors the SDK's stack would return (but
// the OperationError around them).
func (d *direct) send(ctx context.Context, t *template, creds aws.Credentials, body []byte, timeout time.Duration) (*dynamodb.BatchWriteItemOutput, error) {
	actx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	out, err := d.attempt(actx, t, creds, body)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		err = &NoAnswerError{Timeout: timeout}
	}
	return out, err
}

func (d *direct) attempt(ctx context.Context, t *template, creds aws.Credentials, body []byte) (*dynamodb.BatchWriteItemOutput, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := make(http.Header, len(t.header)+5)
	for k, v := range t.header {
		h[k] = v
	}
	h["Amz-Sdk-Invocation-Id"] = []string{invocationID()}
	req.Header = h
	if t.host != "" {
		req.Host = t.host
	}
	sum := sha256.Sum256(body)
	signingTime := time.Now()
	if !d.noSkew {
		signingTime = signingTime.Add(time.Duration(d.skew.Load()))
	}
	if err := d.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), t.name, t.region, signingTime); err != nil {
		return nil, fmt.Errorf("sign http: %w", err)
	}

	requestAt := time.Now()
	resp, err := d.http.Do(req)
	responseAt := time.Now()
	if err != nil {
		// As smithyhttp.ClientHandler and the deserialize step wrap it.
		err = &smithyhttp.RequestSendError{Err: err}
		select {
		case <-ctx.Done():
			err = &smithy.CanceledError{Err: ctx.Err()}
		default:
		}
		if resp == nil {
			resp = &http.Response{Header: http.Header{}, Body: http.NoBody}
		}
		resp.Body.Close()
		return nil, &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: resp}, Err: err}}
	}
	defer resp.Body.Close()
	d.learnSkew(resp, requestAt, responseAt)
	requestID := resp.Header.Get("X-Amzn-Requestid")
	if requestID == "" {
		requestID = resp.Header.Get("X-Amz-Requestid")
	}
	wrap := func(err error) error {
		return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: resp}, Err: err}, RequestID: requestID}
	}

	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, wrap(fmt.Errorf("dynamo: reading the response: %w", err))
	}
	if h := resp.Header.Get("X-Amz-Crc32"); h != "" && !resp.Uncompressed {
		want, perr := strconv.ParseUint(h, 10, 32)
		if got := crc32.ChecksumIEEE(data); perr != nil || uint32(want) != got {
			d.log.Debug("response checksum mismatch, retrying", "header", h, "computed", got, "bytes", len(data))
			return nil, wrap(&ChecksumError{Header: h, Computed: got})
		}
	}
	if resp.StatusCode == http.StatusOK && bytes.Equal(data, allProcessed) {
		return &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{}}, nil
	}
	// Anything else is read by the SDK's own deserializer.
	resp.Body = io.NopCloser(bytes.NewReader(data))
	out := &dynamodb.BatchWriteItemOutput{}
	if err := d.protocol.DeserializeResponse(ctx, batchWriteSchema, dynamodb.TypeRegistry, &smithyhttp.Response{Response: resp}, out); err != nil {
		return nil, wrap(err)
	}
	return out, nil
}

// allProcessed is DynamoDB's answer to a BatchWriteItem that wrote everything.
var allProcessed = []byte(`{"UnprocessedItems":{}}`)

var batchWriteSchema = smithy.NewOperationSchema(schemas.BatchWriteItem, schemas.BatchWriteItemInput, schemas.BatchWriteItemOutput)

// learnSkew keeps the clock skew the answer shows, as the SDK's
// RecordResponseTiming and retry middlewares do.
func (d *direct) learnSkew(resp *http.Response, requestAt, responseAt time.Time) {
	date := resp.Header.Get("Date")
	if date == "" {
		return
	}
	server, err := smithyhttp.ParseTime(date)
	if err != nil {
		d.logger.Logf(logging.Warn, "failed to parse response Date header value, got %v", err.Error())
		return
	}
	if d.noSkew || resp.Header.Get("Age") != "" || responseAt.Sub(requestAt) > 15*time.Minute {
		return
	}
	d.skew.Store(int64(server.Sub(responseAt)))
}

// recordSkew is a client middleware that keeps the clock skew every SDK
// answer shows, for the direct path to sign with (the SDK keeps its own
// out of reach).
type recordSkew struct{ skew *atomic.Int64 }

func (recordSkew) ID() string { return "remodel:RecordSkew" }

func (m recordSkew) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if skew, ok := awsmiddleware.GetAttemptSkew(md); ok {
		m.skew.Store(int64(skew))
	}
	return out, md, err
}

// invocationID is a random UUID (version 4), as the SDK's
// amz-sdk-invocation-id header.
func invocationID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}
