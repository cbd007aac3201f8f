package migrate

import "time"

// SetImportPoll makes --import ask for the import's progress every d, for
// the tests of package migrate_test; the returned func restores it.
func SetImportPoll(d time.Duration) func() {
	was := importPoll
	importPoll = d
	return func() { importPoll = was }
}
