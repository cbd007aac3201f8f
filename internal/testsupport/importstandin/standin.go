package importstandin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
)

// Objects is what the stand-in reads the objects from (an s3out.Store).
type Objects interface {
	List(ctx context.Context, bucket, prefix string) ([]s3out.Listed, error)
	Get(ctx context.Context, bucket, key string) ([]byte, error)
}

// Server is the stand-in.
type Server struct {
	// URL is the endpoint to give the caller (--endpoint-url).
	URL string
	// Pace is how long each object is held back before its items go in.
	Pace time.Duration
	// Hold, when set before an import starts, holds its items back until
	// it is closed (the import is IN_PROGRESS until then).
	Hold chan struct{}
	// Started counts the imports started (a ClientToken seen before is
	// not a new one).
	Started atomic.Int32
	// Calls counts the ImportTable requests (a repeated one too).
	Calls atomic.Int32

	target  *url.URL
	objects Objects
	srv     *httptest.Server
	proxy   *httputil.ReverseProxy
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu      sync.Mutex
	imports map[string]*importState // by ARN
	tokens  map[string]string       // ClientToken: ARN
}

type importState struct {
	arn, token, table, status, failure string
	processed, imported                int64
	started                            time.Time
}

// Start starts a stand-in in front of the DynamoDB Local at dynamoURL,
// reading the objects from objects. Close stops it.
func Start(dynamoURL string, objects Objects) (*Server, error) {
	u, err := url.Parse(dynamoURL)
	if err != nil {
		return nil, fmt.Errorf("importstandin: %w", err)
	}
	s := &Server{target: u, objects: objects, proxy: httputil.NewSingleHostReverseProxy(u), imports: map[string]*importState{}, tokens: map[string]string{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server and the imports still running.
func (s *Server) Close() {
	s.cancel()
	s.srv.Close()
	s.wg.Wait()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	switch op {
	case "ImportTable", "DescribeImport", "ListImports":
	default:
		s.proxy.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		apiError(w, "ValidationException", err.Error())
		return
	}
	var out any
	switch op {
	case "ImportTable":
		out, err = s.importTable(r, body)
	case "DescribeImport":
		out, err = s.describeImport(body)
	default:
		out, err = s.listImports(body)
	}
	var ae *awsError
	switch {
	case errors.As(err, &ae):
		apiError(w, ae.code, ae.msg)
		return
	case err != nil:
		apiError(w, "ValidationException", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_ = json.NewEncoder(w).Encode(out)
}

type awsError struct{ code, msg string }

func (e *awsError) Error() string { return e.code + ": " + e.msg }

func apiError(w http.ResponseWriter, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.dynamodb.v20120810#" + code, "message": msg})
}

// importRequest is the part of ImportTable's request the stand-in reads.
type importRequest struct {
	ClientToken    string
	S3BucketSource struct {
		S3Bucket, S3KeyPrefix string
	}
	InputFormat             string
	InputCompressionType    string
	TableCreationParameters json.RawMessage
}

func (s *Server) importTable(r *http.Request, body []byte) (any, error) {
	s.Calls.Add(1)
	var in importRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	var params struct{ TableName string }
	if err := json.Unmarshal(in.TableCreationParameters, &params); err != nil || params.TableName == "" {
		return nil, fmt.Errorf("TableCreationParameters: no TableName (%v)", err)
	}
	if in.InputFormat != "DYNAMODB_JSON" {
		return nil, fmt.Errorf("InputFormat %q: the stand-in reads DYNAMODB_JSON", in.InputFormat)
	}
	comp, ok := s3out.CompressionOfImportType(in.InputCompressionType)
	if !ok {
		return nil, fmt.Errorf("InputCompressionType %q", in.InputCompressionType)
	}
	s.mu.Lock()
	if arn, seen := s.tokens[in.ClientToken]; seen && in.ClientToken != "" {
		d := s.describe(s.imports[arn])
		s.mu.Unlock()
		return map[string]any{"ImportTableDescription": d}, nil
	}
	s.mu.Unlock()
	// The table first, as the API does (a table that exists is refused).
	if _, err := s.forward(r, "CreateTable", in.TableCreationParameters); err != nil {
		return nil, err
	}
	s.mu.Lock()
	im := &importState{arn: fmt.Sprintf("arn:aws:dynamodb:ddblocal:000000000000:table/%s/import/%016d", params.TableName, len(s.imports)+1), token: in.ClientToken, table: params.TableName, status: "IN_PROGRESS", started: time.Now()}
	s.imports[im.arn] = im
	if in.ClientToken != "" {
		s.tokens[in.ClientToken] = im.arn
	}
	d := s.describe(im)
	s.mu.Unlock()
	s.Started.Add(1)
	auth := r.Header.Clone()
	s.wg.Go(func() { s.run(auth, im, in, comp) })
	return map[string]any{"ImportTableDescription": d}, nil
}

// run imports the objects into the table.
func (s *Server) run(h http.Header, im *importState, in importRequest, comp s3out.Compression) {
	err := s.load(h, im, in, comp)
	s.mu.Lock()
	defer s.mu.Unlock()
	im.status = "COMPLETED"
	if err != nil {
		im.status, im.failure = "FAILED", err.Error()
	}
}

func (s *Server) load(h http.Header, im *importState, in importRequest, comp s3out.Compression) error {
	ctx := s.ctx
	if s.Hold != nil {
		select {
		case <-s.Hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	listed, err := s.objects.List(ctx, in.S3BucketSource.S3Bucket, in.S3BucketSource.S3KeyPrefix)
	if err != nil {
		return err
	}
	for _, l := range listed {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(s.Pace):
		}
		raw, err := s.objects.Get(ctx, in.S3BucketSource.S3Bucket, l.Key)
		if err != nil {
			return err
		}
		zr, err := comp.NewReader(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("%s: %w", l.Key, err)
		}
		text, err := io.ReadAll(zr)
		zr.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", l.Key, err)
		}
		var batch []json.RawMessage
		for _, line := range bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n")) {
			var item struct{ Item json.RawMessage }
			if err := json.Unmarshal(line, &item); err != nil || item.Item == nil {
				return fmt.Errorf("%s: a line that is not an item: %v", l.Key, err)
			}
			batch = append(batch, item.Item)
			if len(batch) == 25 {
				if err := s.put(ctx, h, im, batch); err != nil {
					return err
				}
				batch = nil
			}
		}
		if err := s.put(ctx, h, im, batch); err != nil {
			return err
		}
	}
	return nil
}

// put writes the items by BatchWriteItem, again with the unprocessed ones
// until none is left.
func (s *Server) put(ctx context.Context, h http.Header, im *importState, items []json.RawMessage) error {
	var reqs []any
	for _, it := range items {
		reqs = append(reqs, map[string]any{"PutRequest": map[string]any{"Item": it}})
	}
	n := int64(len(reqs))
	for len(reqs) > 0 {
		body, err := json.Marshal(map[string]any{"RequestItems": map[string]any{im.table: reqs}})
		if err != nil {
			return err
		}
		out, err := s.send(ctx, h, "BatchWriteItem", body)
		if err != nil {
			return err
		}
		var got struct {
			UnprocessedItems map[string][]any
		}
		if err := json.Unmarshal(out, &got); err != nil {
			return err
		}
		reqs = got.UnprocessedItems[im.table]
	}
	s.mu.Lock()
	im.processed += n
	im.imported += n
	s.mu.Unlock()
	return nil
}

// forward sends op to DynamoDB Local with the caller's headers.
func (s *Server) forward(r *http.Request, op string, body []byte) ([]byte, error) {
	return s.send(r.Context(), r.Header, op, body)
}

func (s *Server) send(ctx context.Context, h http.Header, op string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.target.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", h.Get("Authorization"))
	req.Header.Set("X-Amz-Date", h.Get("X-Amz-Date"))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Type    string `json:"__type"`
			Message string
		}
		_ = json.Unmarshal(out, &e)
		code := e.Type[strings.LastIndexByte(e.Type, '#')+1:]
		return nil, &awsError{code: code, msg: e.Message}
	}
	return out, nil
}

// describe is the ImportTableDescription of im (s.mu held).
func (s *Server) describe(im *importState) map[string]any {
	d := map[string]any{
		"ImportArn": im.arn, "ImportStatus": im.status, "ClientToken": im.token,
		"TableArn":           "arn:aws:dynamodb:ddblocal:000000000000:table/" + im.table,
		"ProcessedItemCount": im.processed, "ImportedItemCount": im.imported, "ErrorCount": 0,
		"StartTime": float64(im.started.UnixMilli()) / 1000,
	}
	if im.failure != "" {
		d["FailureCode"], d["FailureMessage"] = "StandIn", im.failure
	}
	return d
}

func (s *Server) describeImport(body []byte) (any, error) {
	var in struct{ ImportArn string }
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	im := s.imports[in.ImportArn]
	if im == nil {
		return nil, &awsError{"ImportNotFoundException", "no import " + in.ImportArn}
	}
	return map[string]any{"ImportTableDescription": s.describe(im)}, nil
}

func (s *Server) listImports(body []byte) (any, error) {
	var in struct{ TableArn string }
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	table := in.TableArn[strings.LastIndex(in.TableArn, "/")+1:]
	s.mu.Lock()
	defer s.mu.Unlock()
	list := []any{}
	for _, im := range s.imports {
		if in.TableArn == "" || im.table == table {
			list = append(list, map[string]any{"ImportArn": im.arn, "ImportStatus": im.status, "TableArn": "arn:aws:dynamodb:ddblocal:000000000000:table/" + im.table})
		}
	}
	return map[string]any{"ImportSummaryList": list}, nil
}
