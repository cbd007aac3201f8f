//go:build !unix

package keyset

// alloc returns n zeroed bytes (on the Go heap where there is no mmap).
func alloc(n int) ([]byte, func() error, error) {
	return make([]byte, n), func() error { return nil }, nil
}
