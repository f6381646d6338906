package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := WriteBytes(path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	assertOnly(t, dir, "f")
}

func TestFailedWriteKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := WriteBytes(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("old content lost: %q", b)
	}
	assertOnly(t, dir, "f")
}

func TestMissingDir(t *testing.T) {
	if err := WriteBytes(filepath.Join(t.TempDir(), "no", "f"), nil, 0o644); err == nil {
		t.Fatal("no error for a missing directory")
	}
}

func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	if len(es) != 1 || es[0].Name() != name {
		t.Fatalf("directory holds %v, want only %s (temporary files left?)", es, name)
	}
}

// The temporary file of a write killed midway is removed once it is old
// enough; files that only look alike, and fresh temporary files when an
// age is asked for, stay.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "best")
	// What a kill between CreateTemp and Rename leaves.
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+tempInfix+"*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	old := time.Now().Add(-time.Hour)
	os.Chtimes(f.Name(), old, old)
	fresh, _ := os.CreateTemp(dir, ".latest"+tempInfix+"*")
	fresh.Close()
	for _, keep := range []string{"best", "notes.tmp-1", ".hidden"} {
		os.WriteFile(filepath.Join(dir, keep), nil, 0o644)
	}
	if n, err := RemoveStale(dir, time.Minute); err != nil || n != 1 {
		t.Fatalf("RemoveStale = %d, %v; want the one old temporary file", n, err)
	}
	if _, err := os.Stat(f.Name()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the old temporary file is still there")
	}
	if n, _ := RemoveStale(dir, 0); n != 1 {
		t.Fatalf("RemoveStale(0) removed %d, want the fresh temporary file", n)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 3 {
		t.Fatalf("left %v, want best, notes.tmp-1 and .hidden", es)
	}
	if n, err := RemoveStale(filepath.Join(dir, "missing"), 0); n != 0 || err != nil {
		t.Fatalf("missing directory: %d, %v", n, err)
	}
}
