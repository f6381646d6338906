package jsonl

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type rec struct {
	N int `json:"n"`
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// A line cut short by a kill stays a line of its own: the next record is
// not glued to it, and every complete record reads back.
func TestCutLineIsEnded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	os.WriteFile(path, []byte(`{"n":1}`+"\n"+`{"n":2,"lo`), 0o644)
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(rec{3}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ls := lines(t, path)
	if len(ls) != 3 || ls[1] != `{"n":2,"lo` {
		t.Fatalf("lines %q", ls)
	}
	var got []int
	sc := bufio.NewScanner(strings.NewReader(strings.Join(ls, "\n")))
	for sc.Scan() {
		var r rec
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			got = append(got, r.N)
		}
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("records %v, want [1 3]", got)
	}
	// An intact file is left as it is.
	l, _ = Open(path)
	l.Close()
	if n := len(lines(t, path)); n != 3 {
		t.Fatalf("reopening changed the file: %d lines", n)
	}
}

// A failed write (a full disk) is an error, and stays one.
func TestWriteErrorsAreReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metrics.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// The file swapped for one open only for reading: every write fails.
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	l.f.Close()
	l.f = ro
	if err := l.Append(rec{1}); err == nil {
		t.Fatal("a failed write: no error")
	}
	if l.Err() == nil || l.Append(rec{2}) == nil || l.Close() == nil {
		t.Fatal("the write error did not stick")
	}
}

// Only a regular file takes records: a link to /dev/zero or /dev/null,
// a device or a FIFO would drop them without an error, and is refused
// with one that names it.
func TestRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{"a directory": dir}
	for _, dev := range []string{"/dev/zero", "/dev/null", "/dev/full"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		cases[dev] = dev
		link := filepath.Join(dir, strings.TrimPrefix(dev, "/dev/")+".jsonl")
		if err := os.Symlink(dev, link); err != nil {
			t.Fatal(err)
		}
		cases["a link to "+dev] = link
	}
	for name, path := range cases {
		l, err := Open(path)
		if err == nil {
			l.Close()
			t.Errorf("%s: opened", name)
			continue
		}
		if !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A link to a regular file is followed.
	file := filepath.Join(dir, "real.jsonl")
	link := filepath.Join(dir, "link.jsonl")
	os.Symlink(file, link)
	l, err := Open(link)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(rec{1}); err != nil || l.Close() != nil {
		t.Fatal(err)
	}
	if got := lines(t, file); len(got) != 1 || got[0] != `{"n":1}` {
		t.Fatalf("through a link: %q", got)
	}
}
