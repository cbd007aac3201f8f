// Command shape prints the shape of remodel's code, for a reader who wants
// to know where it is hard to follow: the longest functions and the most
// branching ones (cyclomatic complexity: 1 + the branches if, for, case,
// &&, || add), and, per engine, the files that hold its code (per-engine
// identifiers such as pgSource or myStream, or the engine's driver
// imported), which is what a third engine would have to touch.
//
//	go run ./internal/tools/shape [-top N] [dir]
//
// scripts/shape.sh runs it on the module.
package main
