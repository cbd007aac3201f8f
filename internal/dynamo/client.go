package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// New returns a DynamoDB client from the standard AWS configuration chain.
// A non-empty endpoint (for example DynamoDB Local's http://127.0.0.1:8000)
// overrides the service endpoint; otherwise the SDK honours
// AWS_ENDPOINT_URL_DYNAMODB and AWS_ENDPOINT_URL by itself.
func New(ctx context.Context, endpoint string, opts ...func(*config.LoadOptions) error) (*dynamodb.Client, error) {
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("dynamo: loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("dynamo: no AWS region: set AWS_REGION (DynamoDB Local accepts any, e.g. us-east-1)")
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}
