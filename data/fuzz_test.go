package data_test

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/data/datatest"
)

// decodeOverhead bounds what decoding a shard allocates beside its
// samples: a zstd decoder with its history (up to the 8 MiB window and
// 1 MiB of blocks), the record reader's buffer and the game ids' set.
const decodeOverhead = 24 << 20

// allocated returns the bytes f allocated (whatever it kept or let go).
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// FuzzDecode: arbitrary bytes never panic or hang the shard reader, and
// what it allocates is bounded by what the shard decodes to (never by a
// count the shard states). Inspect agrees with Decode. The seeds include
// every hostile shape of datatest.Bombs.
func FuzzDecode(f *testing.F) {
	name, good := datatest.ShardBytes(f, "connect4", "w1", 1)
	_ = name
	f.Add(good)
	f.Add(good[:40])
	f.Add([]byte("TABSHRD\x00\x01\x00\x00\x00"))
	for _, b := range datatest.Bombs("w1", "connect4", 1) {
		f.Add(b.Bytes)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var h data.Header
		var s []data.Sample
		var err error
		got := allocated(func() { h, s, err = data.Decode(b) })
		if err == nil && len(s) != h.Samples {
			t.Fatalf("decoded %d samples, header says %d", len(s), h.Samples)
		}
		var sum data.Summary
		_, sum, ierr := data.Inspect(b)
		if (err == nil) != (ierr == nil) {
			t.Fatalf("Decode: %v; Inspect: %v", err, ierr)
		}
		if limit := uint64(decodeOverhead) + uint64(sum.Decoded()); got > limit {
			t.Fatalf("decoding %d bytes allocated %d, more than %d (err %v)", len(b), got, limit, err)
		}
		if err != nil && !errors.Is(err, data.ErrCorrupt) && !bytes.HasPrefix(b, []byte("TABSHRD\x00")) {
			t.Fatalf("an error that is not ErrCorrupt: %v", err)
		}
	})
}
