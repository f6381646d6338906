package nnuedata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// randomRecords plays random games from the start and records every
// position that is not in check with a quiet move, labelled with made-up
// scores and results.
func randomRecords(t testing.TB, n int, seed uint64) []Record {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []Record
	for len(out) < n {
		p := xiangqi.New(xiangqi.DefaultRules)
		for len(out) < n && !p.Status().Over() {
			ms := p.GenerateMoves(nil)
			m := ms[rng.IntN(len(ms))]
			if _, typ := p.PieceAt(xiangqi.To(m)); !p.InCheck() && typ == xiangqi.NoType {
				r, err := FromPosition(p)
				if err != nil {
					t.Fatal(err)
				}
				r.SetScore(rng.IntN(2001) - 1000)
				if rng.IntN(20) == 0 {
					r.SetScore(alphabeta.Mate - rng.IntN(20))
				}
				r.Move = uint16(m)
				r.Result = int8(rng.IntN(3) - 1)
				r.Depth = uint8(rng.IntN(64))
				out = append(out, r)
			}
			p.Make(m)
		}
	}
	return out
}

func testHeader() Header {
	return Header{Game: "xiangqi", Seq: 3, Seed: 7, Budget: Budget{Depth: 2}, Eval: "classical"}
}

// encode writes recs as one game's shard.
func encode(t testing.TB, h Header, recs []Record) []byte {
	t.Helper()
	b, err := Encode(oneGame(h, len(recs)), recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// oneGame makes h a shard of one game of n records.
func oneGame(h Header, n int) Header {
	h.Games, h.GameRecords = 1, []int{n}
	return h
}

func TestRecordRoundTrip(t *testing.T) {
	recs := randomRecords(t, 3000, 1)
	for i := range recs {
		var b [RecordSize]byte
		recs[i].put(b[:])
		var got Record
		got.get(b[:])
		if got != recs[i] {
			t.Fatalf("record %d: %+v read back as %+v", i, recs[i], got)
		}
		// The board survives as a position: FEN, parse, record again.
		p, err := recs[i].Position(xiangqi.DefaultRules)
		if err != nil {
			t.Fatal(err)
		}
		again, err := FromPosition(p)
		if err != nil {
			t.Fatal(err)
		}
		if again.Squares != recs[i].Squares || again.Side != recs[i].Side || again.Ply != recs[i].Ply {
			t.Fatalf("record %d: %s reads back as %s", i, recs[i].FEN(), again.FEN())
		}
	}
	// The start position's slots are those SlotPiece names.
	r, err := FromPosition(xiangqi.New(xiangqi.DefaultRules))
	if err != nil {
		t.Fatal(err)
	}
	p := xiangqi.New(xiangqi.DefaultRules)
	for i, sq := range r.Squares {
		c, typ := SlotPiece(i)
		if gc, gt := p.PieceAt(int(sq)); gc != c || gt != typ {
			t.Fatalf("slot %d: square %d holds %v %d, SlotPiece says %v %d", i, sq, gc, gt, c, typ)
		}
	}
	if r.FEN() != xiangqi.StartFEN {
		t.Fatalf("start FEN %q", r.FEN())
	}
}

func TestShardRoundTrip(t *testing.T) {
	recs := randomRecords(t, 5000, 2)
	dir := t.TempDir()
	h := testHeader()
	h.Stats.RedWins = 1
	h = oneGame(h, len(recs))
	path, err := Write(dir, h, recs)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "shard-000003.nnuedata" {
		t.Fatalf("path %s", path)
	}
	gh, got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	h.Records = len(recs)
	if !reflect.DeepEqual(gh, h) {
		t.Fatalf("header %+v, want %+v", gh, h)
	}
	if len(got) != len(recs) {
		t.Fatalf("%d records, want %d", len(got), len(recs))
	}
	for i := range got {
		if got[i] != recs[i] {
			t.Fatalf("record %d: %+v, want %+v", i, got[i], recs[i])
		}
	}
	st, _ := os.Stat(path)
	t.Logf("%d random-game records: %d bytes, %.1f bytes a record", len(recs), st.Size(), float64(st.Size())/float64(len(recs)))

	// ReadDir streams them in sequence order; Count agrees.
	h.Seq = 1
	if _, err := Write(dir, oneGame(h, 10), recs[:10]); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".shard-000009.nnuedata.tmp-1"), []byte("junk"), 0o644)
	var seqs []int
	total := 0
	if err := ReadDir(dir, func(h *Header, rs []Record) error {
		seqs = append(seqs, h.Seq)
		total += len(rs)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 3 || total != len(recs)+10 {
		t.Fatalf("ReadDir: shards %v, %d records", seqs, total)
	}
	shards, n, err := Count(dir)
	if err != nil || shards != 2 || n != total {
		t.Fatalf("Count: %d shards, %d records, %v", shards, n, err)
	}
	calls := 0
	if err := ReadDir(dir, func(*Header, []Record) error { calls++; return ErrStop }); err != nil || calls != 1 {
		t.Fatalf("ErrStop: %v after %d calls", err, calls)
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		name string
		seq  int
		ok   bool
	}{
		{"shard-000000.nnuedata", 0, true},
		{"shard-123456.nnuedata", 123456, true},
		{"shard-1234567.nnuedata", 1234567, true},
		{"shard-00001.nnuedata", 0, false},
		{"shard-0000001.nnuedata", 0, false},
		{"shard-+00001.nnuedata", 0, false},
		{"shard--00001.nnuedata", 0, false},
		{"shard-000001.nnuedata.tmp-3", 0, false},
		{".shard-000001.nnuedata.tmp-3", 0, false},
		{"shard-000001.shard", 0, false},
	} {
		seq, ok := ParseName(c.name)
		if ok != c.ok || seq != c.seq {
			t.Errorf("ParseName(%q) = %d, %v", c.name, seq, ok)
		}
	}
}

// reframe rewrites a shard's header JSON and payload with a good
// checksum, so that the checks behind the checksum are reached.
func reframe(hj, payload []byte) []byte {
	var b bytes.Buffer
	b.Write(magic[:])
	b.Write(binary.LittleEndian.AppendUint32(nil, FormatVersion))
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(hj))))
	b.Write(hj)
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(payload))))
	b.Write(binary.LittleEndian.AppendUint32(nil, crc32.Update(crc32.Checksum(hj, crcTable), crcTable, payload)))
	b.Write(payload)
	return b.Bytes()
}

// split returns a shard's header JSON and payload.
func split(t testing.TB, b []byte) (hj, payload []byte) {
	hl := binary.LittleEndian.Uint32(b[12:])
	return b[prefix : prefix+hl], b[prefix+hl+middle:]
}

// hostile are damaged and crafted shards, each with the error it must
// give.
func hostile(t testing.TB) []struct {
	name string
	b    []byte
	want error
} {
	recs := randomRecords(t, 200, 3)
	good := encode(t, testHeader(), recs)
	hj, payload := split(t, good)
	flip := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x40
		return b
	}
	header := func(s string) []byte { return reframe([]byte(s), payload) }
	raw := make([]byte, len(recs)*RecordSize)
	for i := range recs {
		recs[i].put(raw[i*RecordSize:])
	}
	enc, _ := zstd.NewWriter(nil)
	// Bombs: frames of megabytes of zeros in a few hundred bytes, one
	// stating more than the header's records, one as many as its header
	// (100,000 records).
	bomb := enc.EncodeAll(make([]byte, 8<<20), nil)
	bigBomb := enc.EncodeAll(make([]byte, 100000*RecordSize), nil)
	// A frame without its size, and one a record longer than stated.
	noFCS := func() []byte {
		var w bytes.Buffer
		zw, _ := zstd.NewWriter(&w)
		// Flushed before the end, the frame cannot know its size.
		zw.Write(raw[:4000])
		zw.Flush()
		zw.Write(raw[4000:])
		zw.Close()
		var zh zstd.Header
		if zh.Decode(w.Bytes()); zh.HasFCS {
			t.Fatal("the streamed frame states its size")
		}
		return w.Bytes()
	}()
	long := enc.EncodeAll(append(bytes.Clone(raw), raw[:RecordSize]...), nil)
	// Records that decode but fail their check: a square off the board.
	badRec := bytes.Clone(raw)
	badRec[5*RecordSize+3] = 95
	twoOnOne := bytes.Clone(raw)
	twoOnOne[1] = twoOnOne[0]
	hjs := string(hj)
	return []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrNotShard},
		{"bad magic", flip(2), ErrNotShard},
		{"magic only", good[:8], ErrTruncated},
		{"cut in the header", good[:prefix+10], ErrTruncated},
		{"cut in the payload", good[:len(good)-7], ErrTruncated},
		{"bytes after", append(bytes.Clone(good), 0), ErrPayload},
		{"flipped header", flip(prefix + 3), ErrChecksum},
		{"flipped payload", flip(len(good) - 20), ErrChecksum},
		{"flipped checksum", flip(prefix + len(hj) + 9), ErrChecksum},
		{"huge header length", func() []byte {
			b := bytes.Clone(good)
			binary.LittleEndian.PutUint32(b[12:], 1<<31)
			return b
		}(), ErrLimit},
		{"header not JSON", header("{\"game\":"), ErrHeader},
		{"unknown header field", header(strings.Replace(hjs, "{", "{\"extra\":1,", 1)), ErrHeader},
		{"other game", header(strings.Replace(hjs, "xiangqi", "connect4", 1)), ErrHeader},
		{"too many records stated", header(strings.Replace(hjs, "\"records\":200", "\"records\":2000000", 1)), ErrHeader},
		{"fewer records stated", header(strings.Replace(strings.Replace(hjs, "\"records\":200", "\"records\":199", 1), "[200]", "[199]", 1)), ErrPayload},
		{"games not adding up", header(strings.Replace(hjs, "[200]", "[100,99]", 1)), ErrHeader},
		{"bomb", reframe(hj, bomb), ErrPayload},
		{"bomb as stated", reframe([]byte(strings.Replace(strings.Replace(hjs, "\"records\":200", "\"records\":100000", 1), "[200]", "[100000]", 1)), bigBomb), ErrLimit},
		{"frame without its size", reframe(hj, noFCS), ErrPayload},
		{"frame longer than stated", reframe(hj, long), ErrPayload},
		{"payload not zstd", reframe(hj, []byte("not zstd at all")), ErrPayload},
		{"square off the board", reframe(hj, enc.EncodeAll(badRec, nil)), ErrPayload},
		{"two pieces on a square", reframe(hj, enc.EncodeAll(twoOnOne, nil)), ErrPayload},
	}
}

func TestHostileShardsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range hostile(t) {
		_, _, err := Decode(c.b)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
			continue
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v does not wrap ErrCorrupt", c.name, err)
		}
		// From a file, the error names it.
		path := filepath.Join(dir, Name(1))
		os.WriteFile(path, c.b, 0o644)
		if _, _, err := Read(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: read from a file: %v", c.name, err)
		}
	}
	// Another version is refused as such, not as damage.
	good := encode(t, testHeader(), randomRecords(t, 10, 4))
	binary.LittleEndian.PutUint32(good[8:], FormatVersion+1)
	if _, _, err := Decode(good); !errors.Is(err, ErrVersion) || errors.Is(err, ErrCorrupt) {
		t.Errorf("version %d: %v", FormatVersion+1, err)
	}
	// A record that Decode would refuse is refused when written.
	recs := randomRecords(t, 10, 5)
	recs[4].Result = 2
	if _, err := Encode(oneGame(testHeader(), 10), recs); !errors.Is(err, ErrRecord) {
		t.Errorf("result 2 written: %v", err)
	}
	if _, err := Encode(testHeader(), nil); err == nil {
		t.Error("an empty shard was written")
	}
	if _, err := Encode(oneGame(testHeader(), 9), recs); err == nil {
		t.Error("a shard whose games do not add up to its records was written")
	}
}

func TestReadRefusesSpecialAndLargeFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, Name(0))
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxFile + 1) // sparse: nothing is read
	f.Close()
	if _, _, err := Read(big); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("a file past MaxFile: %v", err)
	}
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a directory: %v", err)
	}
}

func TestRecordChecks(t *testing.T) {
	good := randomRecords(t, 1, 6)[0]
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(r *Record){
		"no red general":   func(r *Record) { r.Squares[0] = NoSquare },
		"no black general": func(r *Record) { r.Squares[16] = NoSquare },
		"square 90":        func(r *Record) { r.Squares[3] = 90 },
		"shared square":    func(r *Record) { r.Squares[2] = r.Squares[1] },
		"side 2":           func(r *Record) { r.Side = 2 },
		"ply parity":       func(r *Record) { r.Ply++ },
		"result -2":        func(r *Record) { r.Result = -2 },
		"depth 64":         func(r *Record) { r.Depth = 64 },
		"mate flag alone":  func(r *Record) { r.Score, r.Mate = 10, true },
		"mate unflagged":   func(r *Record) { r.Score, r.Mate = alphabeta.Mate-3, false },
		"score past mate":  func(r *Record) { r.Score, r.Mate = alphabeta.Infinity+1, true },
		"null move":        func(r *Record) { r.Move = 0 },
		"move off board":   func(r *Record) { r.Move = uint16(xiangqi.NumSquares) },
	} {
		r := good
		mutate(&r)
		if err := r.Check(); !errors.Is(err, ErrRecord) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestDecodeAllocates: a decoder reused over shards allocates nothing
// per record once its buffers fit.
func TestDecodeAllocates(t *testing.T) {
	b := encode(t, testHeader(), randomRecords(t, 4000, 7))
	var d Decoder
	if _, _, err := d.Decode(b); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, _, err := d.Decode(b); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > 64<<10 {
		t.Errorf("a reused decoder allocated %d bytes a shard of 4,000 records", per)
	}
}

func BenchmarkDecode(b *testing.B) {
	data := encode(b, testHeader(), randomRecords(b, 20000, 8))
	var d Decoder
	b.SetBytes(20000 * RecordSize)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := d.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/20000, "ns/record")
}
