//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO, a directory or a link to a device stays what it is: Write
// refuses it and leaves no temporary file behind.
func TestWriteRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{fifo: "named pipe (FIFO)", sub: "a directory"}
	if _, err := os.Stat("/dev/null"); err == nil {
		link := filepath.Join(dir, "null")
		if err := os.Symlink("/dev/null", link); err != nil {
			t.Fatal(err)
		}
		cases[link] = "character device"
	}
	for path, kind := range cases {
		err := WriteBytes(path, []byte("x"), 0o644)
		if err == nil || !strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), "refusing to replace") {
			t.Fatalf("%s: %v, want a refusal naming %q", path, err, kind)
		}
	}
	for path := range cases {
		st, err := os.Stat(path)
		if err != nil || st.Mode().IsRegular() {
			t.Fatalf("%s was replaced: %v %v", path, st.Mode(), err)
		}
	}
	es, _ := os.ReadDir(dir)
	if len(es) != len(cases) {
		t.Fatalf("left %d entries in the directory, want %d", len(es), len(cases))
	}
}
