package cli

import (
	"fmt"
	"regexp"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/migrate"
)

var slotRE = regexp.MustCompile(`^[a-z0-9_]{1,63}$`)

// slotName refuses a replication slot name PostgreSQL would refuse.
func (c *checks) slotName(flag, v string) {
	if v != "" && !slotRE.MatchString(v) {
		*c = append(*c, fmt.Sprintf("--%s must be 1 to 63 lower-case letters, digits or _ (a replication slot's name), got %q", flag, v))
	}
}

// followCleanupCmd ends a followed migration: it drops the replication
// slot (and the publication remodel created) that its checkpoint names,
// and removes the checkpoint.
func (a *app) followCleanupCmd() *cobra.Command {
	var o common
	var checkpoint string
	var keepCheckpoint bool
	cmd := &cobra.Command{
		Use:   "follow-cleanup",
		Short: "End a followed migration: drop its replication slot and publication",
		Long: `follow-cleanup ends a migration that followed the source's changes
(migrate --follow): it drops the replication slot its checkpoint names, so that
the source stops keeping changes for it (a slot nobody reads makes PostgreSQL
keep its WAL), drops the publication if remodel created it, and removes the
checkpoint. Run it after the cutover, once the application writes to DynamoDB.
Without --source (or $REMODEL_SOURCE) it connects to the source the checkpoint
names, which holds no password. On MySQL/MariaDB there is nothing to drop on
the server: it removes the checkpoint.`,
		Example: `  remodel follow-cleanup --checkpoint orders.remodel-checkpoint.json
  remodel follow-cleanup --source $DSN --checkpoint orders.remodel-checkpoint.json --keep-checkpoint`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if checkpoint == "" {
				return usagef("--checkpoint names the followed migration's checkpoint file")
			}
			if o.dsn() == "" { // the checkpoint names the source (without a password)
				dsn, err := migrate.FollowSource(checkpoint)
				if err != nil {
					return err
				}
				o.source = dsn
			}
			src, err := o.open(cmd.Context())
			if err != nil {
				return err
			}
			defer src.Close()
			done, err := migrate.FollowCleanup(cmd.Context(), src, checkpoint, !keepCheckpoint)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, done)
			return nil
		},
	}
	o.sourceFlag(cmd)
	cmd.Flags().StringVar(&checkpoint, "checkpoint", "", "the checkpoint file of the followed migration")
	cmd.Flags().BoolVar(&keepCheckpoint, "keep-checkpoint", false, "leave the checkpoint file in place")
	return cmd
}
