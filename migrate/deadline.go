package migrate

import (
	"time"
)

// Defaults of the run's deadlines (Options).
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultTableTimeout   = 5 * time.Minute
	DefaultStopGrace      = 5 * time.Second
	DefaultLockStale      = 2 * time.Minute
)

func (o *Options) runDefaults() {
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.TableTimeout <= 0 {
		o.TableTimeout = DefaultTableTimeout
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.LockStale <= 0 {
		o.LockStale = DefaultLockStale
	}
}
