package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/progressview"
	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// progressFlags are the progress flags of preview, migrate and verify:
// --progress MODE, --progress-interval, and (migrate) --exact-counts.
type progressFlags struct {
	mode  string
	every time.Duration
	exact bool
}

func (p *progressFlags) register(cmd *cobra.Command, exactCounts bool) {
	f := cmd.Flags()
	f.StringVar(&p.mode, "progress", progressview.Auto, "progress on stderr: "+strings.Join(progressview.Modes, ", ")+" (auto: bars on a terminal, plain lines otherwise)")
	f.DurationVar(&p.every, "progress-interval", 5*time.Second, "how often plain and json progress lines are printed")
	if exactCounts {
		f.BoolVar(&p.exact, "exact-counts", false, "count every entity's rows (SELECT count(*) in the snapshot) before copying, for exact progress totals instead of the source's estimates")
	}
}

func (p *progressFlags) check(c *checks) {
	c.oneOf("progress", p.mode, progressview.Modes...)
	c.positive("progress-interval", p.every)
}

// start starts showing the progress of command on stderr. The tracker is
// nil with --progress none; stop shows the final state and must be called
// before the report is printed.
func (p *progressFlags) start(a *app, command string) (t *progress.Tracker, stop func(), err error) {
	pr, every, err := progressview.New(p.mode, a.stderr, p.every)
	if err != nil {
		return nil, nil, usageError{fmt.Errorf("--progress: %w", err)}
	}
	if pr == nil {
		return nil, func() {}, nil
	}
	t = progress.New(command)
	return t, progress.Run(t, pr, every), nil
}
