package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

func entityNames(p *mapping.Plan) string {
	names := make([]string, len(p.Entities))
	for i, e := range p.Entities {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}

// dynamoFlags are the flags of commands that talk to DynamoDB: the AWS
// CLI's --profile, --region and --endpoint-url (--endpoint is accepted as
// an alias), the table, and the deadline of every request.
type dynamoFlags struct {
	profile        string
	region         string
	endpoint       string
	table          string
	requestTimeout time.Duration
}

func (d *dynamoFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&d.profile, "profile", "", "AWS profile from the shared config and credentials files (default: $AWS_PROFILE, or default)")
	f.StringVar(&d.region, "region", "", "AWS region (default: $AWS_REGION, or the profile's region)")
	f.StringVar(&d.endpoint, "endpoint-url", "", "DynamoDB endpoint URL, e.g. http://127.0.0.1:8000 for DynamoDB Local (default: $AWS_ENDPOINT_URL_DYNAMODB, the profile's, or the region's; --endpoint is an alias)")
	f.StringVar(&d.table, "table", "", "DynamoDB table name (default: table.name of the mapping)")
	f.DurationVar(&d.requestTimeout, "request-timeout", dynamo.DefaultRequestTimeout, "how long one request to DynamoDB may go unanswered before it is tried again (the SDK tries a request 3 times; migrate's writes retry for --retry-for)")
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "endpoint" {
			name = "endpoint-url"
		}
		return pflag.NormalizedName(name)
	})
}

func (d *dynamoFlags) check(c *checks) {
	c.region(d.region)
	c.endpoint("endpoint-url", d.endpoint)
	c.positive("request-timeout", d.requestTimeout)
}

// connect sets up the DynamoDB client (no request is sent yet).
func (d *dynamoFlags) connect(ctx context.Context, a *app) (*dynamo.Client, error) {
	db, err := dynamo.Connect(ctx, dynamo.Config{Profile: d.profile, Region: d.region, Endpoint: d.endpoint, RequestTimeout: d.requestTimeout, Log: a.log()})
	if errors.Is(err, dynamo.ErrNoRegion) {
		return nil, usageError{err}
	}
	return db, err
}

// plan sets up the DynamoDB client and compiles the mapping against the
// source; the caller closes the source.
func (d *dynamoFlags) plan(ctx context.Context, a *app, o *common) (*mapping.Plan, source.Source, *dynamo.Client, error) {
	db, err := d.connect(ctx, a)
	if err != nil {
		return nil, nil, nil, err
	}
	p, src, err := o.plan(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, src, db, nil
}

// writeReportFile writes result to of.path in of.format.
func writeReportFile(of outputFile, result any) error {
	file, err := os.Create(of.path)
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := report.Write(file, report.Format(of.format), result); err != nil {
		file.Close()
		return fmt.Errorf("writing the report %s: %w", of.path, err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("writing the report %s: %w", of.path, err)
	}
	return nil
}
