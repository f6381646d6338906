package inputfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadFileRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	want := bytes.Repeat([]byte("abc"), 1000)
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{0, 3000, 1 << 20} {
		got, err := ReadFile(p, "file", max)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("max %d: %d bytes, %v", max, len(got), err)
		}
	}
	if _, err := ReadFile(p, "shard", 2999); err == nil || !strings.Contains(err.Error(), "3000 bytes; a shard is at most 2999") {
		t.Fatalf("a file past the limit: %v", err)
	}
}

// refused runs f and fails unless it returns an error naming want within
// a few seconds (a FIFO must not block the reader).
func refused(t *testing.T, what, want string, f func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: got %v, want an error naming %q", what, err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no answer in 10 s", what)
	}
}

// A sparse file claims its size without the disk: refused from its size
// alone, before anything is read.
func TestRefusesSparseFilePastLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	refused(t, "a 2 GiB sparse file", "2147483648 bytes; a network is at most 268435456", func() error {
		_, err := ReadFile(p, "network", 256<<20)
		return err
	})
}
