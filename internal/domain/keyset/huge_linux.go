package keyset

import "golang.org/x/sys/unix"

// hugePages asks for b to be backed by transparent huge pages: the filter
// and the table are written at random places, and with 4 KiB pages their
// first writes fault once a page, some twelve thousand faults for the
// default 64 MiB, which cost a run of a hundred thousand keys most of the
// check's time. A system that gives none (THP "never") keeps small pages:
// the hint's error changes nothing.
func hugePages(b []byte) {
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}
