package c4solver

import (
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// allocEntries returns n zeroed entries. On Linux a table of at least a
// huge page is aligned to 2 MiB and advised MADV_HUGEPAGE: a table larger
// than the caches is probed at random, and with 4 KiB pages nearly every
// probe also misses the TLB (transparent huge pages are often in madvise
// mode). The memory stays owned by the Go heap; the advice is only a hint.
func allocEntries(n int) []uint64 {
	if n*entrySize < hugePage {
		return make([]uint64, n)
	}
	const per = hugePage / entrySize
	buf := make([]uint64, n+per)
	off := 0
	if r := uintptr(unsafe.Pointer(&buf[0])) % hugePage; r != 0 {
		off = int(hugePage-r) / entrySize
	}
	e := buf[off : off+n : off+n]
	const madvHugepage = 14 // MADV_HUGEPAGE, the same on every Linux architecture
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&e[0])), n*entrySize), madvHugepage)
	return e
}
