// Package cli owns remodel's command line, built with cobra: the root
// command (cli.go) and one command per verb (introspect, init, validate,
// preview, migrate, verify, status, follow-cleanup, follow-back, export,
// version), each a cobra.Command made by a method of app named after it
// (introspectCmd, migrateCmd, ...), which parses and checks its flags, calls
// the packages that do the work (introspect, mapping, migrate, verify and
// those under internal/domain) and renders the result through
// internal/app/report.
//
// What the commands share: --source and its timeout, the mapping file and
// the plan compiled from both (cli.go); the AWS flags of the commands that
// talk to DynamoDB (--profile, --region, --endpoint-url); one output flag
// scheme, --output and --output-file (output.go); the files a command
// reads and writes, checked before it starts (paths.go); the progress
// display of preview, migrate and verify (progress.go, drawn by
// internal/app/progressview); remodel's logger (--debug); the garbage
// collector's memory budget of migrate and verify (gc.go). Errors become
// exit statuses (exit.go: usageError and failedError mark 2 and 1, a
// canceled context 130, any other error 3).
//
// main calls Main and nothing else; tests call Run, which leaves the garbage
// collector alone. docs/cli.md describes what users see.
package cli
