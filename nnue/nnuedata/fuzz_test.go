package nnuedata

import (
	"errors"
	"runtime"
	"testing"
)

// decodeOverhead bounds what decoding allocates beside the records a
// shard holds: a zstd decoder's state and history.
const decodeOverhead = 16 << 20

// FuzzDecode: arbitrary bytes never panic or hang the decoder; every
// refusal is ErrCorrupt or ErrVersion; what it allocates is bounded by the
// records the bytes really hold, never by a count they state; and what
// it accepts re-encodes to the same records.
func FuzzDecode(f *testing.F) {
	good := encode(f, testHeader(), randomRecords(f, 50, 9))
	f.Add(good)
	for _, c := range hostile(f) {
		f.Add(c.b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		h, recs, err := Decode(b)
		runtime.ReadMemStats(&after)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("an error of no kind: %v", err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > decodeOverhead+uint64(len(b))*maxRatio*2 {
				t.Fatalf("%d bytes refused after allocating %d", len(b), got)
			}
			return
		}
		if len(recs) != h.Records {
			t.Fatalf("%d records, header says %d", len(recs), h.Records)
		}
		again, err := Encode(h, recs)
		if err != nil {
			t.Fatalf("a decoded shard does not encode: %v", err)
		}
		_, recs2, err := Decode(again)
		if err != nil {
			t.Fatalf("a re-encoded shard does not decode: %v", err)
		}
		for i := range recs2 {
			if recs2[i] != recs[i] {
				t.Fatalf("record %d changed: %+v, %+v", i, recs[i], recs2[i])
			}
		}
	})
}
