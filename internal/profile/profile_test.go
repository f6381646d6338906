package profile

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A profile is written whole at stop, in pprof's gzipped format.
func TestStartCPUWritesProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err := StartCPU(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("profile exists before stop: %v", err)
	}
	x := 0
	for i := range 10_000_000 {
		x ^= i * i
	}
	_ = x
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// pprof's format is a gzipped protocol buffer: the stream must be
	// whole (a cut-off file fails to decompress) and hold a profile.
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("profile of %d bytes is not gzipped: %v", len(b), err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil || len(raw) == 0 {
		t.Fatalf("profile's gzip stream: %d bytes, %v", len(raw), err)
	}
}

func TestStartCPUErrors(t *testing.T) {
	_, err := StartCPU(filepath.Join(t.TempDir(), "missing", "cpu.pprof"))
	if err == nil || !strings.Contains(err.Error(), "no directory") {
		t.Fatalf("missing directory: %v", err)
	}
	// A second profile while one runs is refused by runtime/pprof.
	stop, err := StartCPU(filepath.Join(t.TempDir(), "a.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if _, err := StartCPU(filepath.Join(t.TempDir(), "b.pprof")); err == nil {
		t.Fatal("a second profile started")
	}
	stopNone, err := StartCPU("")
	if err != nil || stopNone() != nil {
		t.Fatalf("empty path: %v", err)
	}
}
