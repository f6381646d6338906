package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/uci"
)

// tinyNetwork saves a small untrained Xiangqi network and returns its path.
func tinyNetwork(t *testing.T) string { return testnet.Checkpoint(t, t.TempDir(), "xiangqi", 1) }

func xiangqiStart(t *testing.T) game.Position {
	t.Helper()
	g, _ := game.Lookup("xiangqi")
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// moverSearcher returns a searcher with the given mover and the network.
func moverSearcher(t *testing.T, mover, network string) *Searcher {
	t.Helper()
	s := New()
	for _, o := range [][2]string{{optMover, mover}, {optNetwork, network}, {optSimulations, "40"}, {optHash, "1"}} {
		if err := s.SetSearchOption(o[0], o[1]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// search runs s on p and returns the move and the info lines.
func search(t *testing.T, ctx context.Context, s *Searcher, p game.Position, lim uci.Limits) (game.Move, string) {
	t.Helper()
	var infos strings.Builder
	res, err := s.Search(ctx, p.Clone(), lim, func(l string) { infos.WriteString(l + "\n") })
	if err != nil {
		t.Fatal(err)
	}
	if !game.IsLegal(p, res.Best) {
		t.Fatalf("%+v: illegal best move %v; info:\n%s", lim, res.Best, infos.String())
	}
	return res.Best, infos.String()
}

func TestMCTSMover(t *testing.T) {
	s := moverSearcher(t, moverMCTS, tinyNetwork(t))
	p := xiangqiStart(t)
	ctx := context.Background()
	m1, info := search(t, ctx, s, p, uci.Limits{Nodes: 30})
	for _, want := range []string{"nodes 30 ", "score cp ", "pv " + p.FormatMove(m1), "string visits "} {
		if !strings.Contains(info, want) {
			t.Errorf("nodes 30: info lacks %q:\n%s", want, info)
		}
	}
	// The default: Simulations; deterministic after ucinewgame.
	s.NewGame()
	a, info := search(t, ctx, s, p, uci.Limits{})
	if !strings.Contains(info, "nodes 40 ") {
		t.Errorf("default simulations: info:\n%s", info)
	}
	s.NewGame()
	if b, _ := search(t, ctx, s, p, uci.Limits{}); a != b {
		t.Errorf("not deterministic: %s then %s", p.FormatMove(a), p.FormatMove(b))
	}
	// movetime ends the search by itself (before a watchdog context).
	wctx, wcancel := context.WithTimeout(ctx, time.Minute)
	defer wcancel()
	search(t, wctx, s, p, uci.Limits{MoveTime: 100 * time.Millisecond})
	if wctx.Err() != nil {
		t.Error("movetime 100: the search did not end by itself")
	}
	// infinite runs until the context ends, not before.
	cctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	search(t, cctx, s, p, uci.Limits{Infinite: true})
	if cctx.Err() == nil {
		t.Error("infinite returned before its context ended")
	}
}

// With Threads above one the network's search evaluates batches of
// leaves on that many cores: it still runs exactly the simulations asked,
// deterministically, and with one thread again it is the one-at-a-time
// search it was.
func TestMCTSMoverThreads(t *testing.T) {
	s := moverSearcher(t, moverMCTS, tinyNetwork(t))
	p := xiangqiStart(t)
	ctx := context.Background()
	one, _ := search(t, ctx, s, p, uci.Limits{Nodes: 200})
	if err := s.SetSearchOption(optThreads, "2"); err != nil {
		t.Fatal(err)
	}
	ev, err := s.evaluator(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Capacity() != 2*leafRows {
		t.Fatalf("two threads: batches of %d, want %d", ev.Capacity(), 2*leafRows)
	}
	var moves []game.Move
	for range 2 {
		s.NewGame()
		m, info := search(t, ctx, s, p, uci.Limits{Nodes: 200})
		if !strings.Contains(info, "nodes 200 ") {
			t.Fatalf("two threads, nodes 200: info:\n%s", info)
		}
		moves = append(moves, m)
	}
	if moves[0] != moves[1] {
		t.Errorf("two threads: not deterministic: %s then %s", p.FormatMove(moves[0]), p.FormatMove(moves[1]))
	}
	if err := s.SetSearchOption(optThreads, "1"); err != nil {
		t.Fatal(err)
	}
	s.NewGame()
	if again, _ := search(t, ctx, s, p, uci.Limits{Nodes: 200}); again != one {
		t.Errorf("one thread again: %s, first %s", p.FormatMove(again), p.FormatMove(one))
	}
}

// A network of Xiangqi's encoder 3 is searched with its own 21-plane
// encoding (the default encoder's 19 planes would not fit its input).
func TestMoverNetworkOfEncoder3(t *testing.T) {
	s := moverSearcher(t, moverMCTS, testnet.CheckpointEncoder(t, t.TempDir(), "xiangqi", 3, 1))
	if _, info := search(t, context.Background(), s, xiangqiStart(t), uci.Limits{Nodes: 30}); !strings.Contains(info, "nodes 30 ") {
		t.Errorf("info:\n%s", info)
	}
}

func TestABZeroMover(t *testing.T) {
	s := moverSearcher(t, moverABZero, tinyNetwork(t))
	p := xiangqiStart(t)
	_, info := search(t, context.Background(), s, p, uci.Limits{Depth: 2, Nodes: 16})
	for _, want := range []string{"depth 2 ", "nodes 16 ", "string abzero m 1 depth 2 sims 16:"} {
		if !strings.Contains(info, want) {
			t.Errorf("info lacks %q:\n%s", want, info)
		}
	}
	// A later Simulations value is the one searched with.
	if err := s.SetSearchOption(optSimulations, "23"); err != nil {
		t.Fatal(err)
	}
	if _, info := search(t, context.Background(), s, p, uci.Limits{Depth: 1}); !strings.Contains(info, " sims 23:") {
		t.Errorf("Simulations 23 not used:\n%s", info)
	}
	// A mate in one is found whatever the network thinks.
	if err := s.SetSearchOption(optABZeroWeight, "0.5"); err != nil {
		t.Fatal(err)
	}
	g, _ := game.Lookup("xiangqi")
	q, err := g.Parse("3k5/R8/9/9/9/9/9/9/9/R3K4 w", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := search(t, context.Background(), s, q, uci.Limits{Depth: 3, Nodes: 16})
	q.Make(m)
	if q.Status().Result != game.Loss {
		t.Errorf("abzero missed the mate in one: %s", q)
	}
	// movetime ends the search by itself (before a watchdog context).
	wctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	search(t, wctx, s, p, uci.Limits{MoveTime: 150 * time.Millisecond})
	if wctx.Err() != nil {
		t.Error("movetime 150: the search did not end by itself")
	}
	// ABZeroPolicy prior: on the clock too the blend reads the prior, no
	// simulations.
	if err := s.SetSearchOption(optABZeroPolicy, policyPrior); err != nil {
		t.Fatal(err)
	}
	if _, info := search(t, wctx, s, p, uci.Limits{MoveTime: 100 * time.Millisecond}); !strings.Contains(info, " sims 0:") {
		t.Errorf("ABZeroPolicy prior ran simulations:\n%s", info)
	}
}

func TestMoverOptionErrors(t *testing.T) {
	s := New()
	if err := s.SetSearchOption(optMover, moverMCTS); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSearchOption(optNetwork, "/no/such/file"); err == nil {
		t.Error("missing network file: no error")
	}
	for _, w := range []string{"x", "-1", "NaN", "Inf"} {
		if err := s.SetSearchOption(optABZeroWeight, w); err == nil {
			t.Errorf("ABZeroWeight %q: no error", w)
		}
	}
	// A file or directory that holds no network is refused when set.
	junk := filepath.Join(t.TempDir(), "junk.ckpt")
	if err := os.WriteFile(junk, []byte("not a network"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{junk, t.TempDir(), "/dev/null"} {
		if err := s.SetSearchOption(optNetwork, bad); err == nil || !strings.Contains(err.Error(), "option Network: ") {
			t.Errorf("Network %s: %v", bad, err)
		}
	}
	if s.network != "" {
		t.Errorf("a refused network was kept: %q", s.network)
	}
	// A network for another game is refused at the search.
	if err := s.SetSearchOption(optNetwork, tinyNetwork(t)); err != nil {
		t.Fatal(err)
	}
	g, _ := game.Lookup("connect4")
	c4, _ := g.New(nil)
	if _, err := s.Search(context.Background(), c4, uci.Limits{Nodes: 5}, func(string) {}); err == nil {
		t.Error("xiangqi network on connect4: no error")
	}
}

// Without the Network option the network movers play the shipped model
// of the position's game (package models); a shipped model's name is a
// Network value too.
func TestShippedNetworkByDefault(t *testing.T) {
	s := New()
	if err := s.SetSearchOption(optMover, moverMCTS); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	search(t, ctx, s, xiangqiStart(t), uci.Limits{Nodes: 20})
	if s.evalGame != "xiangqi" || s.network != "" {
		t.Errorf("after a Xiangqi search without Network: network %q of %q", s.network, s.evalGame)
	}
	for _, g := range []string{"connect4", "lion"} {
		gm, err := game.Lookup(g)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := gm.New(nil)
		search(t, ctx, s, p, uci.Limits{Nodes: 20})
		if s.evalGame != g {
			t.Errorf("%s search played a %s network", g, s.evalGame)
		}
	}
	// The 8-bit tower of the shipped model, then the model by name.
	if err := s.SetSearchOption(optPrecision, "int8"); err != nil {
		t.Fatal(err)
	}
	search(t, ctx, s, xiangqiStart(t), uci.Limits{Nodes: 20})
	if err := s.SetSearchOption(optNetwork, "xiangqi"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSearchOption(optMover, moverABZero); err != nil {
		t.Fatal(err)
	}
	search(t, ctx, s, xiangqiStart(t), uci.Limits{Depth: 2})
}

// The engine speaks for the mcts mover: string options and a bestmove.
func TestMoverTranscript(t *testing.T) {
	network := tinyNetwork(t)
	out := untilBestmove(t, "uci\nsetoption name Mover value mcts\nsetoption name Network value "+network+"\n"+
		"position startpos moves h3e3\ngo nodes 20\n").String()
	for _, want := range []string{"option name Network type string default <empty>\n", "option name Mover type combo default ab var ab var mcts var abzero var tablebase\n",
		"option name ABZeroWeight type string default 1\n", " nodes 20 ", "bestmove "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "error") {
		t.Errorf("errors in the output:\n%s", out)
	}
}

// The blend searches with the game's alpha-beta options (Xiangqi's
// pruning set), as the alpha-beta mover does; the user's hash survives.
func TestABZeroUsesTheGamesOptions(t *testing.T) {
	s := moverSearcher(t, moverAB, tinyNetwork(t))
	p := xiangqiStart(t)
	search(t, context.Background(), s, p, uci.Limits{Depth: 2})
	if err := s.SetSearchOption(optMover, moverABZero); err != nil {
		t.Fatal(err)
	}
	search(t, context.Background(), s, p, uci.Limits{Depth: 2, Nodes: 20})
	want := alphabeta.DefaultOptionsFor("xiangqi")
	want.HashMiB = 1
	if got := s.abz.Config().AlphaBeta; got != want {
		t.Errorf("abzero alpha-beta options %+v, want %+v", got, want)
	}
}

// Network is loaded when set: over UCI a bad file is reported at once,
// and a network of another game than the variant too (it is kept: a GUI
// may send the variant after it), and again at a switch to another game.
func TestNetworkCheckedWhenSet(t *testing.T) {
	xq, c4 := tinyNetwork(t), testnet.Checkpoint(t, t.TempDir(), "connect4", 1)
	junk := filepath.Join(t.TempDir(), "junk.ckpt")
	if err := os.WriteFile(junk, []byte("not a network"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSession(t)
	set := func(name, value string) string { return "setoption name " + name + " value " + value }
	reply := func(cmds ...string) []string {
		t.Helper()
		s.send(t, append(cmds, "isready")...)
		out := s.until(t, "readyok")
		return out[:len(out)-1]
	}
	for _, c := range []struct {
		cmds []string
		want string // the start of the one reply line; "" for none
	}{
		{[]string{set("Network", junk)}, "info string error: option Network: checkpoints: "},
		{[]string{set("Network", "/no/such/run")}, "info string error: option Network: rundir: stat /no/such/run: no such file"},
		{[]string{set("Network", xq)}, ""},
		{[]string{set("Network", c4)}, "info string error: option Network: " + c4 + " is a connect4 network and the variant is xiangqi"},
		{[]string{set("UCI_Variant", "connect4")}, ""},
		{[]string{set("UCI_Variant", "lion")}, "info string error: setoption UCI_Variant: lion is set, but option Network: " + c4 + " is a connect4 network"},
		{[]string{set("UCI_Variant", "connect4"), set("Network", "<empty>"), set("UCI_Variant", "lion")}, ""},
	} {
		out := reply(c.cmds...)
		if c.want == "" && len(out) > 0 || c.want != "" && (len(out) != 1 || !strings.HasPrefix(out[0], c.want)) {
			t.Errorf("%q answered %q, want %q", c.cmds, out, c.want)
		}
	}
	// The connect4 network kept in a mismatch plays once the variant fits.
	out := reply(set("Network", c4), set("Mover", "mcts"), set("UCI_Variant", "connect4"), "position startpos moves 4 4")
	if len(out) != 1 || !strings.HasPrefix(out[0], "info string error: option Network: ") {
		t.Fatalf("setting a connect4 network in lion: %q", out)
	}
	s.send(t, "go nodes 20")
	out = s.until(t, "bestmove")
	g, _ := game.Lookup("connect4")
	p, _ := g.New(nil)
	if err := game.Play(p, "4", "4", strings.Fields(out[len(out)-1])[1]); err != nil || strings.Contains(strings.Join(out, "\n"), "error") {
		t.Errorf("go nodes 20 with the connect4 network: %v\n%s", err, strings.Join(out, "\n"))
	}
	s.send(t, "quit")
}

// Precision lays the network out in 8 bits (set before or after Network):
// the evaluator then gives values near fp32's but not the same bits, the
// movers play legal moves with it, and back at fp32 the bits are fp32's.
// The default, auto, is one of the two, as the CPU decides.
func TestPrecisionOption(t *testing.T) {
	network := tinyNetwork(t)
	p := xiangqiStart(t)
	moves := p.GenerateMoves(nil)
	value := func(s *Searcher) (float32, []float32) {
		t.Helper()
		ev, err := s.evaluator(p, 1)
		if err != nil {
			t.Fatal(err)
		}
		priors := make([]float32, len(moves))
		v, err := ev.Evaluate(p, moves, priors)
		if err != nil {
			t.Fatal(err)
		}
		return v, priors
	}
	s := moverSearcher(t, moverMCTS, network)
	vAuto, pAuto := value(s)
	if err := s.SetSearchOption(optPrecision, "fp32"); err != nil {
		t.Fatal(err)
	}
	v32, p32 := value(s)
	if err := s.SetSearchOption(optPrecision, "int8"); err != nil {
		t.Fatal(err)
	}
	v8, p8 := value(s)
	want := map[string][]float32{"fp32": append(p32, v32), "int8": append(p8, v8)}[infer.Resolve(infer.Auto)]
	if !slices.Equal(append(pAuto, vAuto), want) {
		t.Errorf("the default precision (auto: %s on this CPU) gives other outputs than Precision %s", infer.Resolve(infer.Auto), infer.Resolve(infer.Auto))
	}
	if v8 == v32 && slices.Equal(p8, p32) {
		t.Error("Precision int8: the evaluator's outputs are fp32's bit for bit")
	}
	if math.Abs(float64(v8-v32)) > 0.05 {
		t.Errorf("Precision int8: value %v, fp32 %v", v8, v32)
	}
	search(t, context.Background(), s, p, uci.Limits{Nodes: 30})

	// Set before the network, and for the blend.
	s2 := New()
	for _, o := range [][2]string{{optPrecision, "int8"}, {optMover, moverABZero}, {optNetwork, network}, {optSimulations, "20"}, {optHash, "1"}} {
		if err := s2.SetSearchOption(o[0], o[1]); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := value(s2); v != v8 {
		t.Errorf("Precision before Network: value %v, after %v", v, v8)
	}
	search(t, context.Background(), s2, p, uci.Limits{Depth: 2})

	if err := s.SetSearchOption(optPrecision, "fp32"); err != nil {
		t.Fatal(err)
	}
	if v, pr := value(s); v != v32 || !slices.Equal(pr, p32) {
		t.Error("back at fp32: outputs differ from fp32's")
	}
	if err := s.SetSearchOption(optPrecision, "fp16"); err == nil || !strings.Contains(err.Error(), "fp16") {
		t.Errorf("Precision fp16: err %v, want one naming it", err)
	}
}

// wdlField returns the permille of the `wdl W D L` field of an info line,
// and whether it has one.
func wdlField(t *testing.T, line string) (w, d, l int, ok bool) {
	t.Helper()
	f := strings.Fields(line)
	i := slices.Index(f, "wdl")
	if i < 0 {
		return 0, 0, 0, false
	}
	if i+3 >= len(f) {
		t.Fatalf("a cut-off wdl field: %q", line)
	}
	var n [3]int
	for k := range n {
		v, err := strconv.Atoi(f[i+1+k])
		if err != nil {
			t.Fatalf("wdl field %q: %v", line, err)
		}
		n[k] = v
	}
	return n[0], n[1], n[2], true
}

// With UCI_ShowWDL a network with the WDL head says its root's win, draw
// and loss in permille after the score, three numbers that sum to 1000
// whose W - L is the score; with the option off, or with a scalar value
// head, the info lines have no wdl. The same holds for one thread and
// for batches of leaves on two.
func TestShowWDL(t *testing.T) {
	dir := t.TempDir()
	p := xiangqiStart(t)
	ctx := context.Background()
	for _, c := range []struct {
		network string
		threads string
		show    bool
		want    bool
	}{
		{testnet.CheckpointWDL(t, dir, "xiangqi", 2), "1", true, true},
		{testnet.CheckpointWDL(t, dir, "xiangqi", 2), "2", true, true},
		{testnet.CheckpointWDL(t, dir, "xiangqi", 2), "1", false, false},
		{testnet.Checkpoint(t, dir, "xiangqi", 2), "1", true, false},
	} {
		s := moverSearcher(t, moverMCTS, c.network)
		for name, value := range map[string]string{optShowWDL: strconv.FormatBool(c.show), optThreads: c.threads} {
			if err := s.SetSearchOption(name, value); err != nil {
				t.Fatal(err)
			}
		}
		_, info := search(t, ctx, s, p, uci.Limits{Nodes: 40})
		found := false
		for _, line := range strings.Split(info, "\n") {
			w, d, l, ok := wdlField(t, line)
			if !ok {
				continue
			}
			found = true
			f := strings.Fields(line)
			cp, _ := strconv.Atoi(f[slices.Index(f, "cp")+1])
			if w < 0 || d < 0 || l < 0 || w+d+l != 1000 || abs(w-l-cp) > 1 {
				t.Errorf("%s, threads %s: wdl %d %d %d with score cp %d: %q", filepath.Base(c.network), c.threads, w, d, l, cp, line)
			}
			if i, j := slices.Index(f, "cp"), slices.Index(f, "wdl"); j != i+2 {
				t.Errorf("wdl is not right after the score: %q", line)
			}
		}
		if found != c.want {
			t.Errorf("%s, threads %s, UCI_ShowWDL %v: wdl in the info lines %v, want %v:\n%s", filepath.Base(c.network), c.threads, c.show, found, c.want, info)
		}
	}
}

func abs(x int) int { return max(x, -x) }
