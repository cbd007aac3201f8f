// Package cli owns remodel's command line: one options struct and one runX
// function per command (introspect, validate, preview, migrate, verify,
// version), flag parsing with cobra and the checks of flag values, the AWS
// flags (--profile, --region, --endpoint-url), remodel's logger (--debug),
// turning results into output, and errors into exit statuses (exit.go:
// usageError and failedError mark 2 and 1, a canceled context 130, any
// other error 3). main calls Main and nothing else (tests call Run, which
// leaves the garbage collector alone: gc.go). docs/cli.md describes
// what users see.
package cli
