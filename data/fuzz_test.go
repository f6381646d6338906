package data_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"

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
	_, good := datatest.ShardBytes(f, "connect4", "w1", 1)
	f.Add(good)
	f.Add(good[:40])
	f.Add([]byte("TABSHRD\x00\x01\x00\x00\x00"))
	for _, b := range datatest.Bombs("w1", "connect4", 1) {
		f.Add(b.Bytes)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecode(t, b)
		if _, _, err := data.Decode(b); err != nil && !errors.Is(err, data.ErrCorrupt) && !bytes.HasPrefix(b, []byte("TABSHRD\x00")) {
			t.Fatalf("an error that is not ErrCorrupt: %v", err)
		}
	})
}

// checkDecode decodes a shard as the fuzz targets do: no panic, the
// header's count of samples when it decodes, Inspect agreeing, and
// allocations bounded by what the shard decodes to.
func checkDecode(t *testing.T, b []byte) {
	t.Helper()
	var h data.Header
	var s []data.Sample
	var err error
	got := allocated(func() { h, s, err = data.Decode(b) })
	_, sum, ierr := data.Inspect(b)
	if (err == nil) != (ierr == nil) {
		t.Fatalf("Decode: %v; Inspect: %v", err, ierr)
	}
	if err == nil && (len(s) != h.Samples || sum.Samples != h.Samples) {
		t.Fatalf("decoded %d samples, inspected %d, header says %d", len(s), sum.Samples, h.Samples)
	}
	if limit := uint64(decodeOverhead) + uint64(sum.Decoded()); got > limit {
		t.Fatalf("decoding %d bytes allocated %d, more than %d (err %v)", len(b), got, limit, err)
	}
}

// FuzzPayload: a well framed shard (its checksum right) with an arbitrary
// zstd payload and sample count, so the fuzzer reaches the decompressor
// and the records behind it.
func FuzzPayload(f *testing.F) {
	_, good := datatest.ShardBytes(f, "connect4", "w1", 1)
	f.Add(payloadOf(good), uint32(82))
	f.Add(datatest.ZeroFrame(70, false), uint32(10))
	f.Add(datatest.ZeroFrame(1<<20, true), uint32(data.MaxSamples))
	f.Add(datatest.PolicyBomb(1000), uint32(1))
	f.Fuzz(func(t *testing.T, payload []byte, n uint32) {
		h := data.Header{Game: "connect4", EncoderVersion: 1, Worker: "w1", Samples: int(n % (2 * data.MaxSamples))}
		checkDecode(t, datatest.Frame(h, payload))
	})
}

// FuzzRecords: arbitrary decompressed records, compressed and framed
// right, so every mutation reaches the record parser.
func FuzzRecords(f *testing.F) {
	_, good := datatest.ShardBytes(f, "connect4", "w1", 1)
	raw, err := zstd.NewReader(nil)
	if err != nil {
		f.Fatal(err)
	}
	records, err := raw.DecodeAll(payloadOf(good), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(records, uint32(82))
	f.Add(make([]byte, 70), uint32(10))
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f}, uint32(1))
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, records []byte, n uint32) {
		h := data.Header{Game: "connect4", EncoderVersion: 1, Worker: "w1", Samples: int(n % (2 * data.MaxSamples))}
		checkDecode(t, datatest.Frame(h, enc.EncodeAll(records, nil)))
	})
}

// payloadOf is a shard's compressed payload.
func payloadOf(shard []byte) []byte {
	hl := int(binary.LittleEndian.Uint32(shard[12:]))
	return shard[16+hl+12:]
}
