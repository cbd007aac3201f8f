package faultproxy

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Late holds answers back: it wraps a handler (a Proxy, usually) and lets it
// handle each request whose operation is in ops (all when ops is empty) at
// once, so that DynamoDB acts on it, then holds the answer for a delay before
// sending it, or until the client gives up. A client that stops waiting
// within the delay has had its request carried out without learning it:
// the case a run that stops with requests in flight must account for.
// Proxy's Delay fault, by contrast, holds the request before forwarding it.
type Late struct {
	next  http.Handler
	delay time.Duration
	ops   []string

	mu                   sync.Mutex
	delivered, abandoned int
}

// NewLate returns a Late in front of next that holds answers for delay.
func NewLate(next http.Handler, delay time.Duration, ops ...string) *Late {
	return &Late{next: next, delay: delay, ops: ops}
}

// Counts returns how many held answers were delivered and how many were
// abandoned (the client had gone when the delay was over).
func (l *Late) Counts() (delivered, abandoned int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.delivered, l.abandoned
}

func (l *Late) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := operation(r)
	if len(l.ops) > 0 && !containsString(l.ops, op) {
		l.next.ServeHTTP(w, r)
		return
	}
	held := &heldAnswer{header: http.Header{}, status: http.StatusOK}
	l.next.ServeHTTP(held, r)
	t := time.NewTimer(l.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		l.count(false)
		return
	}
	if r.Context().Err() != nil {
		l.count(false)
		return
	}
	for k, v := range held.header {
		w.Header()[k] = v
	}
	w.WriteHeader(held.status)
	_, _ = w.Write(held.body.Bytes())
	l.count(true)
}

func (l *Late) count(delivered bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if delivered {
		l.delivered++
	} else {
		l.abandoned++
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// heldAnswer records an answer to send later. It is no http.Hijacker: a
// fault that drops the connection aborts the handler instead, which closes
// the connection all the same.
type heldAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
	wrote  bool
}

func (h *heldAnswer) Header() http.Header { return h.header }

func (h *heldAnswer) WriteHeader(status int) {
	if !h.wrote {
		h.status, h.wrote = status, true
	}
}

func (h *heldAnswer) Write(b []byte) (int, error) {
	h.wrote = true
	return h.body.Write(b)
}
