package s3out

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	tm "github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	tmtypes "github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
)

// DefaultRequestTimeout bounds every S3 request (one part of an upload or
// download, 8 MiB at most; a listing page; the manifest).
const DefaultRequestTimeout = 30 * time.Second

// PartSize is the size of the parts objects are uploaded and downloaded in
// (the transfer manager's default); an object above 16 MiB is uploaded
// multipart.
const PartSize = 8 << 20

// Config says where and as whom to reach S3: empty fields leave the choice
// to the standard AWS chain (AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_S3
// or AWS_ENDPOINT_URL, the shared files, SSO, roles).
type Config struct {
	Profile, Region string
	// Endpoint overrides the chain's (tests). With any endpoint that is not
	// AWS's own (this, or AWS_ENDPOINT_URL_S3), requests use path-style
	// addressing (http://host/bucket/key, which S3-compatible servers
	// expect) and checksums only where an operation requires them.
	Endpoint string
	// RequestTimeout bounds every request, its body included (0:
	// DefaultRequestTimeout).
	RequestTimeout time.Duration
	Log            *slog.Logger
	LoadOptions    []func(*config.LoadOptions) error
}

// Store is what the import route needs of where its objects go: S3 (the
// SDK) or Dir (a local directory). bucket is the Location's Bucket, key a
// key under it (a path below the directory for Dir).
type Store interface {
	// List lists the objects whose key starts with prefix, every level
	// below it included.
	List(ctx context.Context, bucket, prefix string) ([]Listed, error)
	// Upload stores body (size bytes, a finished object's file) as the
	// object, whole or not at all, and returns its ETag.
	Upload(ctx context.Context, bucket, key string, body io.Reader, size int64, contentType string) (string, error)
	// Put stores a small object (the manifest), whole or not at all.
	Put(ctx context.Context, bucket, key string, body []byte, contentType string) error
	// Get reads a small object (a manifest) whole.
	Get(ctx context.Context, bucket, key string) ([]byte, error)
	// Download writes the object into w and returns its size.
	Download(ctx context.Context, bucket, key string, w io.WriterAt) (int64, error)
	// Create stores a small object (a claim) whole, only where there is
	// none: an error wrapping ErrExists when the key holds one, also when
	// another writer creates it at the same moment.
	Create(ctx context.Context, bucket, key string, body []byte, contentType string) error
	// Delete removes the object; one that is not there is no error.
	Delete(ctx context.Context, bucket, key string) error
}

// ErrExists is Create's answer where the key holds an object.
var ErrExists = errors.New("the object exists")

// S3 makes remodel's S3 calls.
type S3 struct {
	c  *s3.Client
	tm *tm.Client
	// Where names the endpoint for messages.
	Where string
}

// Connect returns an S3 store for c; it sends no request.
func Connect(ctx context.Context, c Config) (*S3, error) {
	opts := []func(*config.LoadOptions) error{}
	if c.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.Profile))
	}
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	if c.Log != nil {
		opts = append(opts, config.WithLogger(logger{c.Log}))
	}
	opts = append(opts, c.LoadOptions...)
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("s3: loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errors.New("s3: no AWS region: give --region, set AWS_REGION or give the profile a region (an S3-compatible server accepts any, e.g. us-east-1)")
	}
	timeout := c.RequestTimeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	// Every request, its body included, within the timeout.
	if bc, ok := cfg.HTTPClient.(*awshttp.BuildableClient); ok {
		cfg.HTTPClient = bc.WithTimeout(timeout)
	} else if cfg.HTTPClient == nil {
		cfg.HTTPClient = awshttp.NewBuildableClient().WithTimeout(timeout)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
		if o.BaseEndpoint != nil && *o.BaseEndpoint != "" { // AWS_ENDPOINT_URL_S3 is resolved by now
			o.UsePathStyle = true
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
	return New(client), nil
}

// New wraps an S3 client.
func New(c *s3.Client) *S3 {
	o := c.Options()
	where := "region " + o.Region
	if o.BaseEndpoint != nil && *o.BaseEndpoint != "" {
		where = *o.BaseEndpoint + " (" + where + ")"
	}
	calc := o.RequestChecksumCalculation
	return &S3{c: c, Where: where, tm: tm.New(c, func(t *tm.Options) {
		t.PartSizeBytes = PartSize
		t.RequestChecksumCalculation = calc
		t.GetObjectType = tmtypes.GetObjectRanges
		t.FailTimeout = DefaultRequestTimeout // the abort of a failed multipart upload, also after a cancel
	})}
}

// Listed is an object found under a prefix.
type Listed struct {
	Key  string
	Size int64
	ETag string
}

// List lists the objects whose key starts with prefix.
func (s *S3) List(ctx context.Context, bucket, prefix string) ([]Listed, error) {
	var out []Listed
	p := s3.NewListObjectsV2Paginator(s.c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.fail("listing s3://"+bucket+"/"+prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, Listed{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag)})
		}
	}
	return out, nil
}

// Exists says whether the object exists.
func (s *S3) Exists(ctx context.Context, bucket, key string) (bool, error) {
	_, err := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	var nf *types.NotFound
	var nk *types.NoSuchKey
	var api smithy.APIError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &nf), errors.As(err, &nk), errors.As(err, &api) && api.ErrorCode() == "NotFound":
		return false, nil
	}
	return false, s.fail("looking for s3://"+bucket+"/"+key, err)
}

// Upload uploads body (size bytes) as the object, multipart above 16 MiB,
// and returns its ETag.
func (s *S3) Upload(ctx context.Context, bucket, key string, body io.Reader, size int64, contentType string) (string, error) {
	out, err := s.tm.UploadObject(ctx, &tm.UploadObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: body, ContentLength: aws.Int64(size), ContentType: aws.String(contentType),
	})
	if err != nil {
		return "", s.fail("uploading s3://"+bucket+"/"+key, err)
	}
	return aws.ToString(out.ETag), nil
}

// Put uploads a small object in one request.
func (s *S3) Put(ctx context.Context, bucket, key string, body []byte, contentType string) error {
	_, err := s.c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String(contentType),
	})
	if err != nil {
		return s.fail("writing s3://"+bucket+"/"+key, err)
	}
	return nil
}

// Create uploads a small object in one request with If-None-Match: *, so
// that S3 stores it only where no object has the key (412 Precondition
// Failed otherwise, or 409 ConditionalRequestConflict while another
// conditional write of the key is under way: both ErrExists).
func (s *S3) Create(ctx context.Context, bucket, key string, body []byte, contentType string) error {
	_, err := s.c.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body))), ContentType: aws.String(contentType),
		IfNoneMatch: aws.String("*"),
	})
	var api smithy.APIError
	var re *awshttp.ResponseError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &api) && (api.ErrorCode() == "PreconditionFailed" || api.ErrorCode() == "ConditionalRequestConflict"),
		errors.As(err, &re) && (re.HTTPStatusCode() == 412 || re.HTTPStatusCode() == 409):
		return fmt.Errorf("s3: s3://%s/%s: %w", bucket, key, ErrExists)
	}
	return s.fail("creating s3://"+bucket+"/"+key, err)
}

// Delete deletes the object (S3 answers a missing one as deleted).
func (s *S3) Delete(ctx context.Context, bucket, key string) error {
	if _, err := s.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		return s.fail("deleting s3://"+bucket+"/"+key, err)
	}
	return nil
}

// Download writes the object into w, in ranges of PartSize, and returns
// its size.
func (s *S3) Download(ctx context.Context, bucket, key string, w io.WriterAt) (int64, error) {
	out, err := s.tm.DownloadObject(ctx, &tm.DownloadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), WriterAt: w})
	if err != nil {
		return 0, s.fail("downloading s3://"+bucket+"/"+key, err)
	}
	return aws.ToInt64(out.ContentLength), nil
}

// Get reads a small object whole.
func (s *S3) Get(ctx context.Context, bucket, key string) ([]byte, error) {
	out, err := s.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, s.fail("reading s3://"+bucket+"/"+key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, s.fail("reading s3://"+bucket+"/"+key, err)
	}
	return b, nil
}

func (s *S3) fail(what string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("s3: %s at %s: %w", what, s.Where, err)
}

type logger struct{ log *slog.Logger }

func (l logger) Logf(_ logging.Classification, format string, v ...any) {
	l.log.Debug(fmt.Sprintf(format, v...), "from", "aws-sdk-s3")
}
