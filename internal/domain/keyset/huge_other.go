//go:build unix && !linux

package keyset

// hugePages: only Linux is asked for transparent huge pages.
func hugePages([]byte) {}
