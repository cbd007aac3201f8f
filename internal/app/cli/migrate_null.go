package cli

import (
	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/migrate"
)

// nullTo is --to's value for the null sink: every row read, rendered and
// its key checked, nothing written (no table, no DynamoDB connection).
const nullTo = "null:"

// nullRefused are the flags that do not go with --to null:, each with
// the reason.
var nullRefused = []struct{ flag, why string }{
	{"follow", "the changes would be applied to a table"},
	{"slot", "it names --follow's replication slot"},
	{"publication", "it names --follow's publication"},
	{"resume", "nothing is stored: a stopped run has nothing to go on from; run it again"},
	{"checkpoint", "nothing is stored: there is nothing to resume"},
	{"checkpoint-every", "nothing is stored: there is nothing to resume"},
	{"create-table", "there is no table"},
	{"stream", "there is no table"},
	{"warm-throughput", "there is no table"},
	{"allow-non-empty", "there is no table"},
	{"delete-stale", "there is no table"},
	{"rate-limit", "nothing is written"},
	{"shard", "a shard is one part of a job that writes"},
	{"job", "it names a sharded job"},
	{"object-size", "it sizes --to s3:// or file:// objects"},
	{"object-items", "it sizes --to s3:// or file:// objects"},
	{"compression", "it compresses --to s3:// or file:// objects"},
	{"import", "there are no objects to import"},
	{"import-timeout", "there are no objects to import"},
	{"shards-done", "there are no objects to import"},
	{"bulk-put", "there are no objects to load"},
	{"bulk-tier", "there are no objects to load"},
}

// checkNull has the run write into the null sink and refuses the flags
// that need a store, each with its reason.
func checkNull(c *checks, cmd *cobra.Command, m *migrate.Options) {
	m.Null = true
	for _, r := range nullRefused {
		if cmd.Flags().Changed(r.flag) {
			*c = append(*c, "--"+r.flag+" does not go with --to null: ("+r.why+"; the null sink reads and renders every row and writes nothing)")
		}
	}
}
