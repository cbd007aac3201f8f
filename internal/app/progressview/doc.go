// Package progressview owns how progress is shown on stderr: live bars on a
// terminal (github.com/vbauerster/mpb), plain lines every interval when
// stderr is not a terminal, JSON lines (a versioned shape, see JSONLine)
// for programs, or nothing. It reads progress.State only; the domain
// packages never import it.
package progressview
