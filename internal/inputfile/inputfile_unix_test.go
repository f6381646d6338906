//go:build unix

package inputfile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	refused(t, "a FIFO", "named pipe (FIFO), not a regular file", func() error {
		_, err := ReadFile(fifo, "checkpoint", 1<<20)
		return err
	})
	refused(t, "a directory", "a directory, not a regular file", func() error {
		_, err := ReadFile(dir, "checkpoint", 1<<20)
		return err
	})
	if _, err := os.Stat("/dev/zero"); err == nil {
		refused(t, "/dev/zero", "character device, not a regular file", func() error {
			_, err := ReadFile("/dev/zero", "checkpoint", 0)
			return err
		})
		link := filepath.Join(dir, "link")
		if err := os.Symlink("/dev/zero", link); err != nil {
			t.Fatal(err)
		}
		refused(t, "a link to /dev/zero", "character device, not a regular file", func() error {
			_, _, err := Open(link, "config", 0)
			return err
		})
	}
}
