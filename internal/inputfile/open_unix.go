//go:build unix

package inputfile

import (
	"os"
	"syscall"
)

// openNonblocking opens path read-only without blocking: opening a FIFO
// with no writer would wait for one, and Open refuses FIFOs anyway. For a
// regular file the flag changes nothing.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
