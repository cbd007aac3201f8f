// Package cli owns remodel's command line: one options struct and one runX
// function per command (introspect, validate, preview, migrate, verify,
// version), flag parsing with cobra, and turning results into output and
// exit statuses. main calls Run and nothing else.
package cli
