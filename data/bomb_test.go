package data_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/data/datatest"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/connect4"
)

// bombBound is what refusing a hostile shard may allocate: the decoder
// and its buffers, never the sizes the shard states (the old reader asked
// for 64 GiB for the first shape, inflated 1 GiB for the third and
// accepted the second at 700 MB).
const bombBound = 16 << 20

// Every hostile shape is refused with a reason that names it, by Decode
// and by Inspect alike, allocating at most bombBound. The shapes are what
// they claim to be: their payloads are checked to decompress (with a
// plain streaming decoder) to the sizes they stand for.
func TestBombsRefused(t *testing.T) {
	want := map[string]string{
		"1 GiB of records claiming 1,073,741,823 samples": "header states 1073741823 samples; a shard holds at most 262144",
		"9.6M samples in 2 KB":                            "header states 9600000 samples",
		"1 GiB of records after the samples claimed":      "bytes after the last of the 262144 records",
		"a zstd frame stating 1 TiB":                      "decompresses to 1099511627776 bytes",
		"a zstd window of 2 GiB":                          "zstd: ",
		"a record of 40M policy entries":                  "would take 640000064 bytes decoded; a shard takes at most 268435456",
		"a payload length of 2^62":                        "header says 4611686018427387904",
		"a header length of 4 GiB":                        "header of 4294967295 bytes",
	}
	sizes := map[string]int64{
		"1 GiB of records claiming 1,073,741,823 samples": 1 << 30,
		"9.6M samples in 2 KB":                            9_600_000 * 7,
		"1 GiB of records after the samples claimed":      1 << 30,
		"a record of 40M policy entries":                  1 + 4 + 3*40_000_000 + 5,
	}
	bombs := datatest.Bombs("evil", "connect4", 1)
	if len(bombs) != len(want) {
		t.Fatalf("%d bombs, %d expectations", len(bombs), len(want))
	}
	for _, b := range bombs {
		if n, ok := sizes[b.Name]; ok {
			if got := decompressed(t, b.Bytes); got != n {
				t.Fatalf("%s: its payload decompresses to %d bytes, want %d", b.Name, got, n)
			}
		}
		var err, ierr error
		got := allocated(func() { _, _, err = data.Decode(b.Bytes) })
		igot := allocated(func() { _, _, ierr = data.Inspect(b.Bytes) })
		t.Logf("%s (%d bytes): %v; allocated %d and %d bytes", b.Name, len(b.Bytes), err, got, igot)
		for _, e := range []error{err, ierr} {
			if !errors.Is(e, data.ErrCorrupt) || !strings.Contains(e.Error(), want[b.Name]) {
				t.Errorf("%s: %v, want an ErrCorrupt naming %q", b.Name, e, want[b.Name])
			}
		}
		if got > bombBound || igot > bombBound {
			t.Errorf("%s: decoding allocated %d bytes, inspecting %d; the bound is %d", b.Name, got, igot, bombBound)
		}
	}
}

// decompressed is the size a shard's payload decompresses to, streamed
// (a 128 KiB window), so the bombs themselves cost no memory here.
func decompressed(t *testing.T, shard []byte) int64 {
	t.Helper()
	hl := int(shard[12]) | int(shard[13])<<8
	d, err := zstd.NewReader(strings.NewReader(string(shard[16+hl+12:])), zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n, err := io.Copy(io.Discard, d)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A shard within the limits decodes into memory of the size its first
// pass counted (its samples, their policies in one block, their positions
// in one string), plus the decoder: checked on a real Connect Four shard.
func TestDecodeAllocatesWhatItCounts(t *testing.T) {
	_, b := datatest.ShardBytes(t, "connect4", "w1", 3)
	_, sum, err := data.Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	data.Decode(b) // the decoder pool's first decoder
	got := allocated(func() {
		if _, _, err := data.Decode(b); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d samples, %d policy entries, %d bytes of text: %d bytes decoded, %d allocated", sum.Samples, sum.Entries, sum.Text, sum.Decoded(), got)
	if sum.Samples == 0 || got > uint64(sum.Decoded())+1<<20 {
		t.Fatalf("decoding %d samples (%d bytes counted) allocated %d", sum.Samples, sum.Decoded(), got)
	}
}

// What Decode refuses, Encode refuses to write: a shard of more than
// MaxSamples samples, or whose samples would decode past MaxDecoded.
func TestEncodeRefusesPastTheLimits(t *testing.T) {
	g, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	h := data.Header{Game: g.Name, EncoderVersion: g.Encoder.Version(), Worker: "w1"}
	if _, err := data.Encode(h, make([]data.Sample, data.MaxSamples)); err != nil {
		t.Fatalf("a shard of MaxSamples samples: %v", err)
	}
	if _, err := data.Encode(h, make([]data.Sample, data.MaxSamples+1)); err == nil || !strings.Contains(err.Error(), "a shard holds at most 262144") {
		t.Fatalf("a shard of MaxSamples+1 samples: %v", err)
	}
	wide := make([]data.PolicyEntry, 2000)
	many := make([]data.Sample, 10000)
	for i := range many {
		many[i].Policy = wide
	}
	if _, err := data.Encode(h, many); err == nil || !strings.Contains(err.Error(), "would take") {
		t.Fatalf("a shard of 20M policy entries (320 MB decoded): %v", err)
	}
}

// A FIFO, a device or a symbolic link to one among the shards is refused
// by name, and the window goes on: the old reader opened a FIFO and
// waited for a writer for ever.
func TestWindowRefusesSpecialFiles(t *testing.T) {
	g, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	name, b := datatest.ShardBytes(t, "connect4", "w1", 0)
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "g000001-w1-000001.shard"), 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "g000001-w1-000002.shard")); err != nil {
		t.Fatal(err)
	}
	w, err := data.NewWindow(dir, g, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	w.OnCorrupt = func(path string, err error) { bad = append(bad, err.Error()) }
	type result struct {
		added int
		err   error
	}
	done := make(chan result, 1)
	go func() { n, err := w.Refresh(); done <- result{n, err} }()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Refresh did not come back in 30 s: it waits on the FIFO")
	}
	if r.err != nil || r.added == 0 {
		t.Fatalf("Refresh: added %d, %v", r.added, r.err)
	}
	all := strings.Join(bad, "\n")
	if len(bad) != 2 || !strings.Contains(all, "named pipe (FIFO), not a regular file") || !strings.Contains(all, "character device") {
		t.Fatalf("reported: %q", bad)
	}
}
