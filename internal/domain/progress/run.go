package progress

import (
	"sync"
	"time"
)

// Printer shows progress. Run calls it from one goroutine.
type Printer interface {
	// Print shows the state: every interval, and when a phase starts or
	// ends.
	Print(s State)
	// Close shows the final state and releases what the printer holds
	// (a terminal's bars).
	Close(s State)
}

// Run hands p the tracker's state every interval and when a phase starts
// or ends, until stop is called; stop hands p the final state and returns
// when p is closed (a second call only waits). On a nil tracker or printer it does nothing.
func Run(t *Tracker, p Printer, every time.Duration) (stop func()) {
	if t == nil || p == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				p.Close(t.Snapshot())
				return
			case <-tick.C:
			case <-t.changed:
			}
			p.Print(t.Snapshot())
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}
