//go:build unix

package keyset

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// alloc returns n zeroed bytes outside the Go heap (an anonymous private
// mapping: pages take memory when first written; huge pages where the
// system gives them, hugePages), and the function that gives them back.
func alloc(n int) ([]byte, func() error, error) {
	if n == 0 {
		return nil, func() error { return nil }, nil
	}
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("keyset: mapping %d bytes: %w", n, err)
	}
	hugePages(b)
	return b, func() error { return unix.Munmap(b) }, nil
}
