package migrate

import "time"

// SetFollowDrain sets how long a stopped follower drains, for the tests of
// package migrate_test; it returns the setting before.
func SetFollowDrain(d time.Duration) time.Duration {
	old := followDrain
	followDrain = d
	return old
}
