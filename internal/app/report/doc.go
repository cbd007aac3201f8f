// Package report renders the results of remodel's commands, which their
// packages keep as data (migrate.Report, verify.Report, analyze.Report,
// preview.Result): one set of renderers in one place. It owns the formats
// (Format: text for people, JSON with a version, JUnit XML and Markdown for
// CI) and Write, which renders any of those results in any format it
// supports and returns the first error writing it (every renderer writes
// through one error-keeping writer, and Write returns its error); the
// analysis's figures as blocks (headings, paragraphs, lists, tables) that
// the modeling document and the text report share.
package report
