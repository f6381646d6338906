package data

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/gametest"
	_ "github.com/tabula-zero/tabula/game/xiangqi"
)

// samplesOf makes samples from random play: uniform policies over the
// legal moves (so each sample's policy covers exactly its legal moves).
func samplesOf(t testing.TB, name string, games int, seed uint64) (game.Game, []Sample) {
	g, err := game.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := g.New(nil)
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []Sample
	for i, p := range gametest.RandomPositions(start, games, 80, seed) {
		ms := p.GenerateMoves(nil)
		if len(ms) == 0 {
			continue
		}
		s := Sample{Position: p.String(), Result: float32(rng.IntN(3) - 1), RootValue: rng.Float32()*2 - 1, Ply: p.Ply(), GameID: uint64(i / 10)}
		for _, m := range ms {
			s.Policy = append(s.Policy, PolicyEntry{Action: g.Encoder.ActionIndex(p, m), Prob: 1 / float32(len(ms))})
		}
		out = append(out, s)
	}
	return g, out
}

func header(g game.Game, gen, seq int) Header {
	return Header{Game: g.Name, EncoderVersion: g.Encoder.Version(), Generation: gen, Worker: "w1", Seq: seq}
}

func TestRoundTrip(t *testing.T) {
	g, samples := samplesOf(t, "xiangqi", 3, 1)
	dir := t.TempDir()
	path, err := Write(dir, header(g, 2, 5), samples)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "g000002-w1-000005.shard" {
		t.Errorf("name %s", filepath.Base(path))
	}
	h, got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Samples != len(samples) || h.Game != "xiangqi" || len(got) != len(samples) {
		t.Fatalf("header %+v, %d samples", h, len(got))
	}
	for i := range samples {
		a, b := samples[i], got[i]
		if a.Position != b.Position || a.Result != b.Result || a.Ply != b.Ply || a.GameID != b.GameID || len(a.Policy) != len(b.Policy) {
			t.Fatalf("sample %d: %+v != %+v", i, b, a)
		}
		if math.Abs(float64(a.RootValue-b.RootValue)) > 1.0/32767 {
			t.Fatalf("root value %v != %v", b.RootValue, a.RootValue)
		}
		for j := range a.Policy {
			if a.Policy[j].Action != b.Policy[j].Action || math.Abs(float64(a.Policy[j].Prob-b.Policy[j].Prob)) > 1.0/65535 {
				t.Fatalf("policy %+v != %+v", b.Policy[j], a.Policy[j])
			}
		}
	}
	info, _ := os.Stat(path)
	t.Logf("%d Xiangqi samples, %d bytes: %.1f bytes per sample", len(samples), info.Size(), float64(info.Size())/float64(len(samples)))
}

func TestCorruptShards(t *testing.T) {
	g, samples := samplesOf(t, "connect4", 4, 2)
	data, err := Encode(header(g, 1, 1), samples)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n += 1 + n/30 {
		if _, _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncation to %d of %d bytes accepted", n, len(data))
		}
	}
	for i := 0; i < len(data); i++ {
		bad := slices.Clone(data)
		bad[i] ^= 0x41
		_, got, err := Decode(bad)
		if err == nil {
			t.Fatalf("flipped byte %d accepted (%d samples)", i, len(got))
		}
	}
	if _, err := Write(t.TempDir(), Header{Worker: "bad/name"}, samples); err == nil {
		t.Fatal("worker name with a slash accepted")
	}
	if _, err := Encode(header(g, 1, 1), []Sample{{Position: "4", Result: 2}}); err == nil {
		t.Fatal("result 2 accepted")
	}
}

func TestWindow(t *testing.T) {
	g, samples := samplesOf(t, "connect4", 20, 3)
	dir := t.TempDir()
	// Three shards of 40 samples; capacity 100 keeps the newest 100.
	for seq := 0; seq < 3; seq++ {
		if _, err := Write(dir, header(g, seq, seq), samples[seq*40:(seq+1)*40]); err != nil {
			t.Fatal(err)
		}
	}
	// A truncated shard and a shard of another game are skipped and reported.
	good, _ := Write(t.TempDir(), header(g, 9, 9), samples[:10])
	b, _ := os.ReadFile(good)
	os.WriteFile(filepath.Join(dir, "g000009-w1-000009.shard"), b[:len(b)-7], 0o644)
	xg, xs := samplesOf(t, "xiangqi", 1, 4)
	Write(dir, Header{Game: xg.Name, EncoderVersion: 1, Generation: 8, Worker: "x", Seq: 1}, xs[:5])
	w, err := NewWindow(dir, g, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	w.OnCorrupt = func(path string, err error) { bad = append(bad, filepath.Base(path)+": "+err.Error()) }
	added, err := w.Refresh()
	if err != nil || added != 120 || w.Len() != 100 {
		t.Fatalf("Refresh: added %d, len %d, %v", added, w.Len(), err)
	}
	if len(bad) != 2 || !strings.Contains(strings.Join(bad, "\n"), "corrupt shard") {
		t.Fatalf("reported: %q", bad)
	}
	if first := w.at(0); first.Position != samples[20].Position {
		t.Fatal("window does not hold the newest 100 samples")
	}
	if last := w.at(99); last.Position != samples[119].Position {
		t.Fatal("window does not hold the newest 100 samples")
	}
	if added, _ := w.Refresh(); added != 0 {
		t.Fatalf("second Refresh added %d", added)
	}

	// Batches: planes are the encoding (mirrored when the symmetry is),
	// and every policy's support lies on legal moves of its position.
	rng := rand.New(rand.NewPCG(5, 5))
	c, h, wd := g.Encoder.Shape()
	size, actions := c*h*wd, g.Encoder.ActionSize()
	const n = 200
	planes, policy, value := make([]float32, n*size), make([]float32, n*actions), make([]float32, n)
	checkRng := rand.New(rand.NewPCG(5, 5))
	if err := w.Batch(rng, n, planes, policy, value, nil, nil); err != nil {
		t.Fatal(err)
	}
	mirrored := 0
	for i := 0; i < n; i++ {
		s, sym := w.Draw(checkRng) // the same draws as Batch made
		p, _ := g.Parse(s.Position, nil)
		want := make([]float32, size)
		legal := map[int]bool{}
		g.Encoder.Encode(p, want)
		for _, m := range p.GenerateMoves(nil) {
			legal[g.Encoder.ActionIndex(p, m)] = true
		}
		if sym >= 0 {
			mirrored++
			src := slices.Clone(want)
			g.Encoder.Symmetries()[sym].ApplyPlanes(want, src, c)
			ml := map[int]bool{}
			for a := range legal {
				ml[g.Encoder.Symmetries()[sym].Actions[a]] = true
			}
			legal = ml
		}
		if !slices.Equal(want, planes[i*size:(i+1)*size]) {
			t.Fatalf("row %d: planes differ from the (mirrored) encoding", i)
		}
		var sum float32
		for a, v := range policy[i*actions : (i+1)*actions] {
			sum += v
			if v > 0 && !legal[a] {
				t.Fatalf("row %d: policy on illegal action %d (symmetry %d)", i, a, sym)
			}
		}
		if math.Abs(float64(sum-1)) > 1e-5 || value[i] != s.Result {
			t.Fatalf("row %d: policy sums to %v, value %v", i, sum, value[i])
		}
	}
	if mirrored < n/4 || mirrored > 3*n/4 {
		t.Errorf("mirrored %d of %d rows, expected about half", mirrored, n)
	}
	// A root-value weight mixes the search's value into the target; the
	// win/draw/loss target is the outcome's one-hot mixed with the root
	// value's split into W and L (no draw mass).
	w.RootValueWeight = 0.25
	rng, checkRng = rand.New(rand.NewPCG(6, 6)), rand.New(rand.NewPCG(6, 6))
	wdl := make([]float32, 3*n)
	if err := w.Batch(rng, n, planes, policy, value, wdl, nil); err != nil {
		t.Fatal(err)
	}
	mixed, outcomes := 0, map[float32]int{}
	for i := 0; i < n; i++ {
		s, _ := w.Draw(checkRng)
		if want := 0.75*s.Result + 0.25*s.RootValue; math.Abs(float64(value[i]-want)) > 1e-6 {
			t.Fatalf("row %d: value target %v, want 0.75*%v + 0.25*%v", i, value[i], s.Result, s.RootValue)
		}
		if s.RootValue != s.Result {
			mixed++
		}
		row := wdl[3*i : 3*i+3]
		draw := float32(0)
		if s.Result == 0 {
			draw = 0.75
		}
		if math.Abs(float64(row[0]+row[1]+row[2]-1)) > 1e-6 || row[1] != draw ||
			math.Abs(float64(row[0]-row[2]-value[i])) > 1e-6 || min(row[0], row[2]) < 0 {
			t.Fatalf("row %d: result %v, root value %v: WDL target %v", i, s.Result, s.RootValue, row)
		}
		outcomes[s.Result]++
	}
	if mixed == 0 {
		t.Fatal("no sample whose root value differs from its result: the mix is untested")
	}
	if len(outcomes) != 3 {
		t.Fatalf("results %v: the WDL target of each outcome is not tested", outcomes)
	}
	if err := w.Batch(rng, n, planes, policy, value, wdl[3:], nil); err == nil {
		t.Fatal("a short WDL buffer accepted")
	}
	if err := w.Batch(rng, 2, planes, policy, value, nil, nil); err == nil {
		t.Fatal("wrong buffer sizes accepted")
	}
	empty, _ := NewWindow(t.TempDir(), g, nil, 10)
	if err := empty.Batch(rng, 1, planes[:size], policy[:actions], value[:1], nil, nil); err == nil {
		t.Fatal("empty window gave a batch")
	}
}

// Shard names parse back, and a worker's sequence survives its shards
// leaving the directory (uploaded and deleted).
func TestShardSequence(t *testing.T) {
	g, samples := samplesOf(t, "connect4", 2, 3)
	dir := t.TempDir()
	for seq := range 3 {
		h := header(g, 4, seq)
		if gen, w, s, ok := ParseName(h.Name()); !ok || gen != 4 || w != "w1" || s != seq {
			t.Fatalf("ParseName(%s) = %d %s %d %v", h.Name(), gen, w, s, ok)
		}
		if _, err := Write(dir, h, samples[:2]); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"x.shard", "g000001-w1-000001.txt", "g00000x-w1-000001.shard", "g000001-w/1-000001.shard", "g000001--000001.shard"} {
		if _, _, _, ok := ParseName(bad); ok {
			t.Errorf("ParseName accepted %q", bad)
		}
	}
	if n := NextSeq(dir, "w1"); n != 3 {
		t.Fatalf("NextSeq = %d, want 3", n)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*"+Ext))
	for _, p := range names {
		if err := RecordSent(dir, filepath.Base(p)); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
	}
	if n := NextSeq(dir, "w1"); n != 3 {
		t.Fatalf("after the shards left, NextSeq = %d, want 3", n)
	}
	if n := NextSeq(dir, "w2"); n != 0 {
		t.Fatalf("another worker's NextSeq = %d", n)
	}
	if err := RecordSent(dir, "nonsense"); err == nil {
		t.Fatal("RecordSent of a non-shard name accepted")
	}
}

// A batch's legal mask marks exactly the legal moves of each sample's
// position, mirrored with the planes: checked against the moves of the
// mirrored position itself (Xiangqi's FEN with every rank reversed), so
// the symmetry's action table is not its own witness. An action the
// target names is kept even where the position read back does not
// allow it.
func TestBatchLegalMask(t *testing.T) {
	g, err := game.Lookup("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	if g, err = g.WithEncoder(4); err != nil {
		t.Fatal(err)
	}
	start, _ := g.New(nil)
	dir := t.TempDir()
	var samples []Sample
	for i, p := range gametest.RandomPositions(start, 6, 60, 9) {
		ms := p.GenerateMoves(nil)
		if len(ms) == 0 {
			continue
		}
		// The target names one legal move, and on the first sample also
		// a from == to pair that no move is.
		s := Sample{Position: p.String(), Policy: []PolicyEntry{{Action: g.Encoder.ActionIndex(p, ms[i%len(ms)]), Prob: 1}}, GameID: uint64(i)}
		if i == 0 {
			s.Policy = append(s.Policy, PolicyEntry{Action: 0, Prob: 0.5})
		}
		samples = append(samples, s)
	}
	if _, err := Write(dir, header(g, 1, 1), samples); err != nil {
		t.Fatal(err)
	}
	w, err := NewWindow(dir, g, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Refresh(); err != nil {
		t.Fatal(err)
	}
	c, h, wd := g.Encoder.Shape()
	actions := g.Encoder.ActionSize()
	const n = 300
	planes, policy, value, legal := make([]float32, n*c*h*wd), make([]float32, n*actions), make([]float32, n), make([]bool, n*actions)
	if err := w.Batch(rand.New(rand.NewPCG(4, 4)), n, planes, policy, value, nil, legal[1:]); err == nil {
		t.Fatal("a short legal-action buffer accepted")
	}
	if err := w.Batch(rand.New(rand.NewPCG(4, 4)), n, planes, policy, value, nil, legal); err != nil {
		t.Fatal(err)
	}
	check := rand.New(rand.NewPCG(4, 4))
	mirrored, named := 0, 0
	for i := 0; i < n; i++ {
		s, sym := w.Draw(check)
		fen := s.Position
		if sym >= 0 {
			mirrored++
			fields := strings.Fields(fen)
			ranks := strings.Split(fields[0], "/")
			for r, rank := range ranks {
				b := []byte(rank)
				slices.Reverse(b)
				ranks[r] = string(b)
			}
			fields[0] = strings.Join(ranks, "/")
			fen = strings.Join(fields, " ")
		}
		p, err := g.Parse(fen, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]bool, actions)
		for _, m := range p.GenerateMoves(nil) {
			want[g.Encoder.ActionIndex(p, m)] = true
		}
		if len(s.Policy) > 1 {
			named++ // the target's from == to pair, where the symmetry put it
			a := 0
			if sym >= 0 {
				a = g.Encoder.Symmetries()[sym].Actions[0]
			}
			want[a] = true
		}
		if got := legal[i*actions : (i+1)*actions]; !slices.Equal(got, want) {
			t.Fatalf("row %d (symmetry %d): the mask differs from the legal moves of %s", i, sym, fen)
		}
	}
	if mirrored == 0 || mirrored == n || named == 0 {
		t.Fatalf("%d mirrored rows and %d with an unplayable target of %d: a case is untested", mirrored, named, n)
	}
}

// A shard whose reading panics is reported and skipped like a corrupt
// one, and the window goes on with the others.
func TestWindowSurvivesAPanic(t *testing.T) {
	g, samples := samplesOf(t, "connect4", 4, 7)
	dir := t.TempDir()
	for seq := range 2 {
		if _, err := Write(dir, header(g, 1, seq), samples[:10]); err != nil {
			t.Fatal(err)
		}
	}
	defer func(f func(string) (Header, []Sample, error)) { readShard = f }(readShard)
	readShard = func(path string) (Header, []Sample, error) {
		if strings.HasSuffix(path, "000000.shard") {
			panic("a reader's bug")
		}
		return Read(path)
	}
	w, err := NewWindow(dir, g, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	w.OnCorrupt = func(path string, err error) { bad = append(bad, err.Error()) }
	if added, err := w.Refresh(); err != nil || added != 10 {
		t.Fatalf("Refresh: added %d, %v", added, err)
	}
	if len(bad) != 1 || !strings.Contains(bad[0], "reading it panicked: a reader's bug") {
		t.Fatalf("reported %q", bad)
	}
}
