//go:build race

package parse

// raceEnabled: the race detector makes the mutation test ~10× slower, so
// under it the test checks every other mutant (all of them without it).
const raceEnabled = true
