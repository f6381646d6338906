//go:build unix

package tablebase

import (
	"os"
	"syscall"
)

// mapFile maps the file read-only, so that a probe reads one page from the
// page cache and the table costs no heap.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
