package nnuedata

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// fastOptions searches to depth 1: games of a few milliseconds.
func fastOptions() Options {
	o := DefaultOptions()
	o.Budget = Budget{Depth: 1}
	o.Search.HashMiB = 1
	o.ShardRecords = 80
	o.Seed = 11
	return o
}

// board is a FEN's board and side to move.
func board(fen string) string {
	f := strings.Fields(fen)
	return f[0] + " " + f[1]
}

// TestGameLabels replays games move by move and checks every record
// against the position it came from: skipped positions (in check, a
// capture as the best move, the random opening) are really skipped and
// no other is, each record's result is the game's actual end from its
// side to move's view.
func TestGameLabels(t *testing.T) {
	o := fastOptions()
	o.Budget = Budget{Depth: 2}
	s, err := alphabeta.New(o.search())
	if err != nil {
		t.Fatal(err)
	}
	ruleEnds, decisive := 0, 0
	for j := range 8 {
		if j%2 == 0 {
			// Without adjudication the games end by the rules.
			o.ResignPlies, o.DrawPlies = 0, 0
		} else {
			o.ResignPlies, o.DrawPlies = 4, 20
		}
		g, err := PlayGame(context.Background(), s, &o, GameSeed(o.Seed, 0, j))
		if err != nil {
			t.Fatal(err)
		}
		if g.Opening < o.RandomPlies[0] || g.Opening > o.RandomPlies[1] {
			t.Fatalf("game %d: %d random plies", j, g.Opening)
		}
		p := g.Start.Copy()
		recs := g.Records
		for i, m := range g.Moves {
			if i >= g.Opening {
				_, captured := p.PieceAt(xiangqi.To(m))
				recorded := len(recs) > 0 && int(recs[0].Ply) == p.Ply()
				want := !p.InCheck() && captured == xiangqi.NoType
				if recorded != want {
					t.Fatalf("game %d ply %d (%s, in check %v, move %s captures %v): recorded %v",
						j, p.Ply(), p, p.InCheck(), p.FormatMove(m), captured != xiangqi.NoType, recorded)
				}
				if recorded {
					r := recs[0]
					recs = recs[1:]
					if board(r.FEN()) != board(p.String()) || game.Move(r.Move) != m {
						t.Fatalf("game %d ply %d: record %s move %#x, game %s move %s", j, p.Ply(), r.FEN(), r.Move, p, p.FormatMove(m))
					}
				}
			} else if len(recs) > 0 && int(recs[0].Ply) == p.Ply() {
				t.Fatalf("game %d: random ply %d recorded", j, p.Ply())
			}
			p.Make(m)
		}
		if len(recs) > 0 {
			t.Fatalf("game %d: %d records past its moves", j, len(recs))
		}
		// The end: by the rules, the replayed position says who won.
		want := g.Result
		if st := p.Status(); st.Over() {
			ruleEnds++
			if st.Reason != g.Reason {
				t.Fatalf("game %d: ended by %q, says %q", j, st.Reason, g.Reason)
			}
			want = int(st.Result.Value())
			if p.SideToMove() == game.Second {
				want = -want
			}
			if want != g.Result {
				t.Fatalf("game %d: %s for the side to move at the end, game result %d for Red", j, st.Result, g.Result)
			}
		} else if g.Reason != ReasonResign && g.Reason != ReasonDrawn {
			t.Fatalf("game %d: not over, reason %q", j, g.Reason)
		}
		if want != 0 {
			decisive++
		}
		for _, r := range g.Records {
			z := want
			if r.Side == 1 {
				z = -z
			}
			if int(r.Result) != z {
				t.Fatalf("game %d ply %d: result %d for side %d, the game ended %d for Red", j, r.Ply, r.Result, r.Side, want)
			}
		}
		if n := g.Stats.Searched - g.Stats.SkipCheck - g.Stats.SkipCapture; n != len(g.Records) {
			t.Fatalf("game %d: %d searched less skipped, %d records", j, n, len(g.Records))
		}
	}
	if ruleEnds == 0 || decisive == 0 {
		t.Fatalf("no game ended by the rules (%d) or decisively (%d): the checks saw nothing", ruleEnds, decisive)
	}
}

func TestSkipMateAndOpenings(t *testing.T) {
	o := fastOptions()
	o.ResignPlies, o.DrawPlies = 0, 0
	o.SkipMate = true
	o.RandomPlies = [2]int{0, 2}
	// An opening where Red's chariots face a bare general: mates come
	// quickly.
	op, err := xiangqi.Parse("3k5/9/9/9/9/9/9/9/R8/R3K4 w - - 0 1", o.Rules)
	if err != nil {
		t.Fatal(err)
	}
	o.Openings = []*xiangqi.Position{op}
	s, _ := alphabeta.New(o.search())
	skipped := 0
	for j := range 4 {
		g, err := PlayGame(context.Background(), s, &o, GameSeed(1, 0, j))
		if err != nil {
			t.Fatal(err)
		}
		if g.Start.String() != op.String() {
			t.Fatalf("game %d started from %s", j, g.Start)
		}
		for _, r := range g.Records {
			if r.Mate {
				t.Fatalf("game %d: a mate score recorded at ply %d", j, r.Ply)
			}
		}
		skipped += g.Stats.SkipMate
	}
	if skipped == 0 {
		t.Fatal("no mate score was seen to skip")
	}
}

// shardBytes reads every shard file of dir by name.
func shardBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, s := range list {
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(s.Path)] = b
	}
	return out
}

func generate(t *testing.T, ctx context.Context, dir string, target int, o Options, ev Events) Summary {
	t.Helper()
	sum, err := Generate(ctx, dir, target, o, ev)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestDeterministic: the same seed writes the same shards, byte for byte,
// on one thread or two; another seed other ones.
func TestDeterministic(t *testing.T) {
	o := fastOptions()
	o.RandomMoveProb = 0.1
	ctx := context.Background()
	one, two, other := t.TempDir(), t.TempDir(), t.TempDir()
	generate(t, ctx, one, 200, o, Events{})
	o.Threads = 2
	sum := generate(t, ctx, two, 200, o, Events{})
	if sum.Total < 200 || sum.Shards != 3 || sum.Records != sum.Total || sum.Before != 0 {
		t.Fatalf("summary %+v", sum)
	}
	a, b := shardBytes(t, one), shardBytes(t, two)
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("%d and %d shards", len(a), len(b))
	}
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Fatalf("%s differs between one thread and two", name)
		}
	}
	o.Seed++
	generate(t, ctx, other, 200, o, Events{})
	for name, c := range shardBytes(t, other) {
		if bytes.Equal(a[name], c) {
			t.Fatalf("%s is the same under another seed", name)
		}
	}
}

// gamesOf returns each game's records of dir as bytes, keyed by them,
// with where they came from.
func gamesOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := ReadDir(dir, func(h *Header, recs []Record) error {
		for i, k := range h.GameRecords {
			if k == 0 {
				continue
			}
			var key bytes.Buffer
			for _, r := range recs[:k] {
				fmt.Fprintf(&key, "%v|", r)
			}
			recs = recs[k:]
			if prev, ok := out[key.String()]; ok {
				t.Fatalf("shard %d game %d repeats %s", h.Seq, i, prev)
			}
			out[key.String()] = fmt.Sprintf("shard %d game %d", h.Seq, i)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResume: a run stopped after its first shard, run again, reaches the
// target with the shards an unbroken run writes (the one filled to what
// was left aside), no game twice; a missing shard is played anew as it
// was; a directory at its target is left alone.
func TestResume(t *testing.T) {
	o := fastOptions()
	o.Threads = 2
	ref, dir := t.TempDir(), t.TempDir()
	bg := context.Background()
	refSum := generate(t, bg, ref, 300, o, Events{})
	if refSum.Shards != 4 {
		t.Fatalf("reference: %+v", refSum)
	}

	// A killed run leaves temporary files too.
	stale := filepath.Join(dir, ".shard-000007.nnuedata.tmp-123")
	os.WriteFile(stale, []byte("half a shard"), 0o644)
	ctx, cancel := context.WithCancel(bg)
	first := generate(t, ctx, dir, 300, o, Events{Shard: func(string, *Header, *Metric) { cancel() }})
	cancel()
	if !first.Stopped || first.Shards == 0 || first.Total >= 300 {
		t.Fatalf("stopped run: %+v", first)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the stale temporary file is still there: %v", err)
	}
	var started [2]int
	second := generate(t, bg, dir, 300, o, Events{Start: func(before, target int) { started = [2]int{before, target} }})
	if second.Before != first.Total || started != [2]int{first.Total, 300} || second.Total < 300 || second.Stopped {
		t.Fatalf("resumed: %+v after %+v (start %v)", second, first, started)
	}
	if second.CPUTotal < first.CPUTotal || second.CPUTotal < second.CPU {
		t.Fatalf("CPU time: first %v, then %v of %v in all", first.CPU, second.CPU, second.CPUTotal)
	}
	got, want := shardBytes(t, dir), shardBytes(t, ref)
	same := 0
	for name, b := range got {
		if bytes.Equal(b, want[name]) {
			same++
		}
	}
	if same < len(want)-1 {
		t.Fatalf("%d of %d shards as an unbroken run writes them", same, len(want))
	}
	gamesOf(t, dir)

	// At its target: nothing to do.
	third := generate(t, bg, dir, 300, o, Events{})
	if !third.Completed || third.Shards != 0 || third.Total != second.Total {
		t.Fatalf("at the target: %+v", third)
	}

	// A shard removed (as if its writer was killed while a later one was
	// written) is played anew, the same.
	os.Remove(filepath.Join(ref, Name(1)))
	hole := generate(t, bg, ref, refSum.Total, o, Events{})
	if hole.Shards < 1 || hole.Total < refSum.Total {
		t.Fatalf("refilled: %+v", hole)
	}
	if again := shardBytes(t, ref); !bytes.Equal(again[Name(1)], want[Name(1)]) {
		t.Fatal("shard 1 played anew differs")
	}

	// Further: new shards, no game of the earlier ones.
	o.Threads = 1
	more := generate(t, bg, dir, 500, o, Events{})
	if more.Total < 500 || more.Before != second.Total {
		t.Fatalf("to 500: %+v", more)
	}
	gamesOf(t, dir)

	// The metrics: a line a shard and one a stop, the directory's counts
	// growing, the CPU time of every sitting.
	f, err := os.Open(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	shards, stops, last := 0, 0, Metric{}
	for sc.Scan() {
		var m Metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("metrics line %q: %v", sc.Text(), err)
		}
		if m.Positions < last.Positions || m.CPUTotalSeconds < last.CPUTotalSeconds {
			t.Fatalf("metrics went back: %+v after %+v", m, last)
		}
		switch m.Event {
		case "shard":
			shards++
		case "stop":
			stops++
		}
		last = m
	}
	list, _ := List(dir)
	if shards != len(list) || stops != 3 || last.Positions != more.Total || last.Stats.Games() != last.Games {
		t.Fatalf("metrics: %d shard lines for %d shards, %d stops, last %+v", shards, len(list), stops, last)
	}
}

func TestGenerateRefuses(t *testing.T) {
	o := fastOptions()
	dir := t.TempDir()
	bg := context.Background()
	generate(t, bg, dir, 50, o, Events{})
	other := o
	other.Budget = Budget{Depth: 2}
	if _, err := Generate(bg, dir, 100, other, Events{}); err == nil || !strings.Contains(err.Error(), "depth 1") {
		t.Errorf("another budget: %v", err)
	}
	other = o
	other.Eval.Name = "learned"
	if _, err := Generate(bg, dir, 100, other, Events{}); err == nil || !strings.Contains(err.Error(), "classical") {
		t.Errorf("another evaluation: %v", err)
	}
	// A damaged shard is named, not played over.
	path := filepath.Join(dir, Name(0))
	b, _ := os.ReadFile(path)
	b[len(b)-3] ^= 1
	os.WriteFile(path, b, 0o644)
	if _, err := Generate(bg, dir, 100, o, Events{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a damaged shard: %v", err)
	}
	// A second generator on a directory is refused.
	release, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := Generate(bg, dir, 100, o, Events{}); err == nil || !strings.Contains(err.Error(), "another generator") {
		t.Errorf("a locked directory: %v", err)
	}
	for _, bad := range []func(o *Options){
		func(o *Options) { o.Budget = Budget{} },
		func(o *Options) { o.RandomPlies = [2]int{5, 2} },
		func(o *Options) { o.RandomMoveProb = 1.5 },
		func(o *Options) { o.Threads = 0 },
		func(o *Options) { o.ShardRecords = MaxRecords },
		func(o *Options) { o.Eval = Eval{} },
	} {
		o := fastOptions()
		bad(&o)
		if _, err := Generate(bg, t.TempDir(), 10, o, Events{}); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}
