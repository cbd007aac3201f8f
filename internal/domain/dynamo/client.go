package dynamo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
)

// Config says where and as whom the client connects. Empty fields leave the
// choice to the standard AWS chain: AWS_PROFILE, AWS_REGION,
// AWS_ENDPOINT_URL_DYNAMODB / AWS_ENDPOINT_URL, the shared config and
// credentials files, SSO, web identity, the container and EC2 role providers.
type Config struct {
	// Profile is the shared config profile (as the AWS CLI's --profile).
	Profile string
	// Region overrides the profile's or the environment's region.
	Region string
	// Endpoint overrides the service endpoint, e.g. DynamoDB Local's
	// http://127.0.0.1:8000 (as the AWS CLI's --endpoint-url).
	Endpoint string
	// Log receives the SDK's own log lines (its warnings included) at debug
	// level, and with debug enabled the SDK also logs its retries. Nil
	// discards them: the SDK never writes to stderr by itself.
	Log *slog.Logger
	// RequestTimeout is the deadline of every attempt of every request
	// (AttemptTimeout): 0 is DefaultRequestTimeout, less than 0 none. The
	// SDK's retryer makes at most 3 attempts of a call (AWS_MAX_ATTEMPTS
	// or the profile's max_attempts may say otherwise), so a call to an
	// endpoint that never answers ends after about 3 times this. A
	// per-call AttemptTimeout replaces it.
	RequestTimeout time.Duration
	// LoadOptions are passed on to config.LoadDefaultConfig after the
	// options above (tests give static credentials this way).
	LoadOptions []func(*config.LoadOptions) error
}

// ErrNoRegion is returned when no region is configured anywhere.
var ErrNoRegion = errors.New("dynamo: no AWS region: give --region, set AWS_REGION or give the profile a region (DynamoDB Local accepts any, e.g. us-east-1)")

// Connect returns a DynamoDB client for c. It reads the configuration (files,
// environment) but sends no request.
func Connect(ctx context.Context, c Config) (*Client, error) {
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts := []func(*config.LoadOptions) error{config.WithLogger(sdkLogger{log})}
	if log.Enabled(ctx, slog.LevelDebug) {
		opts = append(opts, config.WithClientLogMode(aws.LogRetries))
	}
	if c.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.Profile))
	}
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	opts = append(opts, c.LoadOptions...)
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		var nf config.SharedConfigProfileNotExistError
		if errors.As(err, &nf) {
			files := nf.Filename
			if len(files) == 0 {
				files = sharedFiles()
			}
			return nil, fmt.Errorf("dynamo: no AWS profile %q in %s", nf.Profile, strings.Join(files, " or "))
		}
		return nil, fmt.Errorf("dynamo: loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, ErrNoRegion
	}
	log.Debug("DynamoDB client", "region", cfg.Region, "profile", c.Profile, "endpoint", c.Endpoint)
	if cfg.Credentials != nil {
		cfg.Credentials = credentialsHint{cfg.Credentials}
	}
	// The SDK's default client, not one given in LoadOptions. The
	// configuration holds none unless it had to add a CA bundle
	// (AWS_CA_BUNDLE): then the service client makes the same default, to
	// which these options were not given.
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(transportOptions)
	} else if bc, ok := cfg.HTTPClient.(*awshttp.BuildableClient); ok {
		cfg.HTTPClient = bc.WithTransportOptions(transportOptions)
	}
	skew := new(atomic.Int64)
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
		}
		// The SDK's own CRC32 check only logs; checkCRC32 makes a mismatch
		// an error that is retried (see crc32.go).
		o.DisableValidateResponseChecksum = true
		// BatchWriteItem's body is written by batchWriteProtocol (see
		// batchwrite.go), the rest by the SDK.
		o.Protocol = batchWriteProtocol{o.Protocol}
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Deserialize.Add(checkCRC32{log: log}, middleware.After)
		})
		// No call waits for ever on an endpoint that does not answer.
		AttemptTimeout(requestTimeout(c.RequestTimeout))(o)
		// The clock skew the SDK learns from every answer, for
		// BatchWriteItem's direct path to sign with (see direct.go).
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Deserialize.Add(recordSkew{skew}, middleware.Before)
		})
	})
	client := New(db)
	if d := newDirect(db.Options(), skew, log); d != nil && len(cfg.APIOptions) == 0 {
		client.direct = d
	}
	return client, nil
}

// requestTimeout is Config.RequestTimeout's deadline (<= 0: none).
func requestTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return DefaultRequestTimeout
	}
	return d
}

// credentialsHint says where credentials come from when none could be got:
// the SDK's own error ends with the last provider it tried (the EC2
// instance role), which tells someone pointing remodel at DynamoDB Local
// nothing about the access key it wants.
type credentialsHint struct{ aws.CredentialsProvider }

func (h credentialsHint) Retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := h.CredentialsProvider.Retrieve(ctx)
	if err != nil {
		return creds, fmt.Errorf("no AWS credentials (give --profile, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; DynamoDB Local accepts any, e.g. local and local): %w", err)
	}
	return creds, nil
}

// IsCredentialsProvider lets the SDK see through the hint (it asks whether
// the credentials are anonymous).
func (h credentialsHint) IsCredentialsProvider(target aws.CredentialsProvider) bool {
	return aws.IsCredentialsProvider(h.CredentialsProvider, target)
}

// ProviderSources keeps the user agent's note of where the credentials
// came from.
func (h credentialsHint) ProviderSources() []aws.CredentialSource {
	if s, ok := h.CredentialsProvider.(aws.CredentialProviderSource); ok {
		return s.ProviderSources()
	}
	return nil
}

// transportOptions tune the SDK's HTTP transport for many writers sending
// requests of a few to a few hundred kilobytes: a request's headers and
// body leave in one write instead of 4 KiB pieces (net/http's default
// buffer), and every writer's connection is kept for the next request
// (the SDK keeps 10 idle connections per host; --writers may be more).
func transportOptions(t *http.Transport) {
	t.WriteBufferSize = 64 << 10
	t.MaxIdleConnsPerHost = max(t.MaxIdleConnsPerHost, 256)
	t.MaxIdleConns = max(t.MaxIdleConns, 256)
}

// sharedFiles are the shared config and credentials files the SDK reads.
func sharedFiles() []string {
	cfg, creds := os.Getenv("AWS_CONFIG_FILE"), os.Getenv("AWS_SHARED_CREDENTIALS_FILE")
	if cfg == "" {
		cfg = config.DefaultSharedConfigFilename()
	}
	if creds == "" {
		creds = config.DefaultSharedCredentialsFilename()
	}
	return []string{cfg, creds}
}

// Open returns a client from the standard AWS configuration chain with an
// optional endpoint and extra load options, its SDK log lines discarded.
func Open(ctx context.Context, endpoint string, opts ...func(*config.LoadOptions) error) (*Client, error) {
	return Connect(ctx, Config{Endpoint: endpoint, LoadOptions: opts})
}

// sdkLogger hands the SDK's log lines to remodel's logger at debug level,
// whatever the SDK's own classification (kept as an attribute): its
// warnings are about connection reuse, clock skew or credential fallbacks,
// which remodel either handles or reports as errors itself.
type sdkLogger struct{ log *slog.Logger }

func (l sdkLogger) Logf(c logging.Classification, format string, v ...any) {
	l.log.Debug(fmt.Sprintf(format, v...), "from", "aws-sdk", "sdk_level", string(c))
}
