package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/migrate"
)

// s3Flags are migrate's flags of the S3 import route: --to, --object-size,
// --compression, --import, --import-timeout, --bulk-put, --bulk-tier.
type s3Flags struct {
	to          string
	objectMiB   int64
	compression string
	bulkPut     bool
	bulkTier    string
}

func (s *s3Flags) register(cmd *cobra.Command, m *migrate.Options) {
	f := cmd.Flags()
	f.StringVar(&s.to, "to", "", "write the items as DynamoDB ImportTable objects (DYNAMODB_JSON, compressed) under this S3 prefix, s3://bucket/prefix/, instead of into the table; a manifest is written beside the prefix (prefix.remodel-manifest.json); file:///abs/dir/prefix/ writes the same objects and manifest into a local directory (not with --import); null: writes nothing (the null sink: every row read, rendered and its key checked)")
	f.Int64Var(&s.objectMiB, "object-size", migrate.DefaultObjectSize>>20, "--to: MiB of DynamoDB JSON an object holds at most, before compression")
	f.Int64Var(&m.ObjectItems, "object-items", migrate.DefaultObjectItems, "--to: items an object holds at most")
	f.StringVar(&s.compression, "compression", string(s3out.Gzip), "--to: how the objects are compressed: gzip, zstd or none (both ImportTable and StartBulkPutItems read all three)")
	f.BoolVar(&m.Import, "import", false, "--to: then have DynamoDB create the table from the objects (ImportTable), wait for it, and enable TTL")
	f.DurationVar(&m.ImportTimeout, "import-timeout", migrate.DefaultImportTimeout, "--import: how long to wait for the import")
	f.BoolVar(&s.bulkPut, "bulk-put", false, "--to: then have DynamoDB load the objects into the existing table --table (StartBulkPutItems: local indexes and the table's items kept), wait for it, and record the items it refuses as rejected rows; --rate-limit becomes its MaxWriteRequestUnits (1024 or more)")
	f.StringVar(&s.bulkTier, "bulk-tier", "standard", "--bulk-put: the performance tier, standard or accelerated")
	f.IntVar(&m.ShardsDone, "shards-done", 0, "--import: copy nothing; import the objects the n shards of a sharded job (--shard i/n --to) wrote under --to, once their n manifests are there and agree and the prefix holds exactly their objects")
}

func (s *s3Flags) check(c *checks, cmd *cobra.Command, m *migrate.Options) {
	changed := func(names ...string) bool {
		for _, n := range names {
			if cmd.Flags().Changed(n) {
				return true
			}
		}
		return false
	}
	if s.to == nullTo {
		checkNull(c, cmd, m)
		return
	}
	if s.to == "" {
		if changed("object-size", "object-items", "compression", "import", "import-timeout", "shards-done", "bulk-put", "bulk-tier") {
			*c = append(*c, "--object-size, --object-items, --compression, --import, --import-timeout, --shards-done, --bulk-put and --bulk-tier need --to")
		}
		return
	}
	loc, err := s3out.Parse(s.to)
	if err != nil {
		*c = append(*c, "--to: "+err.Error())
	} else {
		m.To = &loc
		if loc.Dir && changed("import", "shards-done") {
			*c = append(*c, "--import does not go with a local directory (--to file://): ImportTable reads its objects from S3; give --to s3://bucket/prefix/")
		}
	}
	if s.bulkPut {
		s.checkBulk(c, cmd, m)
	} else if changed("bulk-tier") {
		*c = append(*c, "--bulk-tier needs --bulk-put")
	}
	comp, err := s3out.ParseCompression(s.compression)
	if err != nil {
		*c = append(*c, "--compression: "+err.Error())
	}
	m.Compression = comp
	c.atLeast("object-size", s.objectMiB, migrate.MinObjectSize>>20)
	m.ObjectSize = s.objectMiB << 20
	c.atLeast("object-items", m.ObjectItems, 1)
	c.positive("import-timeout", m.ImportTimeout)
	if changed("shards-done") {
		switch {
		case m.ShardsDone < 1 || m.ShardsDone > migrate.MaxShards:
			*c = append(*c, fmt.Sprintf("--shards-done must be the number of shards, from 1 to %d", migrate.MaxShards))
		case !m.Import:
			*c = append(*c, "--shards-done needs --import: it imports the objects the shards wrote")
		case changed("resume") && !changed("follow"):
			*c = append(*c, "--shards-done does not go with --resume but with --follow: it copies nothing (resume the shard that stopped, with --shard)")
		}
	}
	followed := changed("follow") && (m.Import || s.bulkPut || changed("shard")) // large and live: the follower writes into the table the import or bulk put made (a shard's, the job's import)
	for _, f := range []string{"create-table", "allow-non-empty", "follow", "delete-stale", "slot", "publication", "rate-limit"} {
		if s.bulkPut && (f == "allow-non-empty" || f == "rate-limit") {
			continue // into an existing table: checkBulk
		}
		if followed && (f == "follow" || f == "slot" || f == "publication" || f == "rate-limit") {
			continue
		}
		if changed(f) {
			*c = append(*c, "--"+f+" does not go with --to: the items go to S3 objects for ImportTable, not into a table (--follow goes with --to and --import or --bulk-put)")
		}
	}
}

// connect sets up the S3 client of --to (no request is sent yet): the
// standard AWS chain, with --profile and --region, AWS_ENDPOINT_URL_S3
// honoured (path-style addressing then).
func (s *s3Flags) connect(ctx context.Context, a *app, d *dynamoFlags, m *migrate.Options) error {
	if m.To == nil {
		return nil
	}
	st, err := connectStore(ctx, a, d, *m.To)
	if err != nil {
		return err
	}
	m.S3 = st
	return nil
}

// connectStore is the store of loc: a local directory's (file://), or an
// S3 client from the standard AWS chain.
func connectStore(ctx context.Context, a *app, d *dynamoFlags, loc s3out.Location) (s3out.Store, error) {
	if loc.Dir {
		return s3out.Dir{}, nil
	}
	return s3out.Connect(ctx, s3out.Config{Profile: d.profile, Region: d.region, RequestTimeout: d.requestTimeout, Log: a.log()})
}

// checkBulk checks --bulk-put's flags and has the run load its objects
// with StartBulkPutItems (migrate.WithBulkPut, on the command's context).
func (s *s3Flags) checkBulk(c *checks, cmd *cobra.Command, m *migrate.Options) {
	switch s.bulkTier {
	case "standard", "accelerated":
	default:
		*c = append(*c, fmt.Sprintf("--bulk-tier %q: standard or accelerated", s.bulkTier))
	}
	switch {
	case cmd.Flags().Changed("import"):
		*c = append(*c, "--bulk-put does not go with --import: --import creates a new table (ImportTable), --bulk-put writes into an existing one (StartBulkPutItems)")
	case cmd.Flags().Changed("shards-done"), cmd.Flags().Changed("shard"):
		*c = append(*c, "--bulk-put does not go with --shard or --shards-done yet: bulk put the objects of one unsharded run")
	case m.To != nil && m.To.Dir:
		*c = append(*c, "--bulk-put does not go with a local directory (--to file://): StartBulkPutItems reads its objects from S3")
	}
	if m.RateLimit > 0 && m.RateLimit < migrate.MinBulkWriteUnits {
		*c = append(*c, fmt.Sprintf("--rate-limit %d with --bulk-put: the rate limit becomes the bulk put's MaxWriteRequestUnits, which DynamoDB takes from %d write units a second up", m.RateLimit, migrate.MinBulkWriteUnits))
	}
	if ctx := cmd.Context(); ctx != nil {
		cmd.SetContext(migrate.WithBulkPut(ctx, migrate.BulkPut{Tier: s.bulkTier}))
	}
}
