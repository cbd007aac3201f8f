package report

import (
	"github.com/remodel-dev/remodel/internal/domain/followback"
)

// followBackText renders a follow-back run for people.
func followBackText(e *errWriter, r *followback.Report) {
	e.printf("follow-back of table %s: %s\n", r.Table, followBackState(r))
	e.printf("  stream          %s\n", r.Stream)
	e.printf("  records read    %d (after the start point; %d of its own lock)\n", r.Records, r.Own)
	e.printf("  item changes    %d applied (%d rows written, %d found applied already), %.1f/s\n", r.Applied, r.Rows, r.AlreadyApplied, r.PerSecond)
	e.printf("  lag             p50 %.3fs, p99 %.3fs\n", r.LagP50, r.LagP99)
	e.printf("  dead letters    %d (%s)\n", r.DeadLetters, r.DeadLetterFile)
	if r.Deferred > 0 {
		e.printf("  deferred        %d waiting at the stop: --resume reads them again\n", r.Deferred)
	}
	for _, c := range r.Entities {
		e.printf("  %-15s %d applied, %d rows, %d dead letters\n", c.Entity, c.Applied, c.Rows, c.DeadLetters)
	}
	for _, n := range r.Notes {
		e.printf("  note: %s\n", n)
	}
	e.printf("  go on with: remodel follow-back --resume --checkpoint %s\n", shellWord(r.Checkpoint))
}

func followBackState(r *followback.Report) string {
	if r.OK {
		return "stopped by a signal, as it should"
	}
	return "FAILED: " + r.Error
}

// followBackMarkdown renders a follow-back run as Markdown.
func followBackMarkdown(e *errWriter, r *followback.Report) {
	e.printf("## follow-back of table `%s`: %s\n\n", r.Table, MarkdownCell(followBackState(r)))
	e.printf("| | |\n|---|---|\n")
	e.printf("| records read | %d |\n| item changes applied | %d |\n| rows written | %d |\n| found applied already | %d |\n", r.Records, r.Applied, r.Rows, r.AlreadyApplied)
	e.printf("| dead letters | %d |\n| deferred at the stop | %d |\n| lag p50 / p99 | %.3fs / %.3fs |\n| changes per second | %.1f |\n\n", r.DeadLetters, r.Deferred, r.LagP50, r.LagP99, r.PerSecond)
	if len(r.Entities) > 0 {
		e.printf("| entity | applied | rows | dead letters |\n|---|---:|---:|---:|\n")
		for _, c := range r.Entities {
			e.printf("| %s | %d | %d | %d |\n", MarkdownCell(c.Entity), c.Applied, c.Rows, c.DeadLetters)
		}
	}
	for _, n := range r.Notes {
		e.printf("\n- %s\n", MarkdownCell(n))
	}
}
