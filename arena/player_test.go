package arena

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rollout"
	"github.com/tabula-zero/tabula/rundir"
)

func TestParsePlayerErrors(t *testing.T) {
	dir := t.TempDir()
	c4 := testnet.Checkpoint(t, dir, "connect4", 1)
	xq := testnet.Checkpoint(t, dir, "xiangqi", 1)
	for _, c := range []struct{ spec, want string }{
		{"", "empty player spec"},
		{"person", `unknown kind "person"`},
		{"human:sims=3", "human takes only name="},
		{"ab", "ab needs depth"},
		{"ab:depth=x", `depth="x" is not an integer`},
		{"ab:depth=0", "out of range"},
		{"ab:depth=99", "out of range"},
		{"ab:depth=3,depth=4", "given twice"},
		{"ab:depht=3", `unknown key "depht"`},
		{"ab:depth=3,algo=minimax", `unknown algo "minimax"`},
		{"ab:depth=3,lmr=yes", `lmr="yes" is neither on nor off`},
		{"ab:depth=3,lmrr=on", `unknown key "lmrr"`},
		{"ab:depth=3,iir=on", `iir= was retired (docs/retired.md)`},
		{"abzero:net=" + c4 + ",m=1,depth=3,conthist=off", `conthist= was retired`},
		{"ab:movetime=fast", "neither milliseconds nor a duration"},
		{"ab:movetime=-5", "out of range"},
		{"ab:nodes=0", "not a positive integer"},
		{"ab:depth=3,threads=0", "threads=0 out of range [1, 64]"},
		{"ab:depth=3,threads=65", "threads=65 out of range [1, 64]"},
		{"ab:depth=3,threads=two", `threads="two" is not an integer`},
		{"abzero:net=" + c4 + ",m=1,depth=3,threads=2", `unknown key "threads"`},
		{"ab:depth=3,,", "empty part"},
		{"ab:4", `unexpected argument "4"`},
		{"random:depth=2", `unknown key "depth"`},
		{"net:", "needs a checkpoint file"},
		{"net:" + filepath.Join(dir, "missing.ckpt"), "no such file"},
		{"net:" + c4 + ",sims=-1", "out of range"},
		{"net:" + c4 + ",sims=many", "not an integer"},
		{"net:" + c4 + ",search=ucb", `search="ucb"`},
		{"net:" + c4 + ",movetime=soon", "neither milliseconds nor a duration"},
		{"net:" + c4 + ",movetime=100,search=gumbel", "movetime needs search=puct"},
		{"net:" + c4 + ",discount=0.97", `discount= was retired (docs/retired.md)`},
		{"abzero:net=" + c4 + ",m=1,depth=3,discount=0.97", `discount= was retired`},
		{"mcts:sims=10,discount=0.9", `unknown key "discount"`},
		{"net:" + c4 + ",c_init=-1", `c_init=-1 out of range`},
		{"net:" + c4 + ",fpu=big", `fpu="big" is not a number`},
		{"mcts:sims=10,fpu=0.5", `unknown key "fpu"`},
		{"net:" + xq, "is a xiangqi network, not connect4"},
		{"net:" + dir, "no best pointer"},
		{"abzero:net=" + c4 + ",depth=3", "m missing"},
		{"abzero:net=" + c4 + ",m=1", "depth missing"},
		{"abzero:m=1,depth=3", "net missing"},
		{"abzero:net=" + c4 + ",m=-1,depth=3", "not a number >= 0"},
		{"abzero:net=" + c4 + ",m=NaN,depth=3", "not a number >= 0"},
		{"mcts", "mcts needs sims"},
		{"mcts:sims=0", "sims >= 1"},
		{"ab:depth=2,name=", "bad name"},
	} {
		_, err := ParsePlayer(c.spec, "connect4")
		if err == nil {
			t.Errorf("%q: accepted", c.spec)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "arena: ") {
			t.Errorf("%q: error %q, want it to start with \"arena: \" and mention %q", c.spec, err, c.want)
		}
	}
	if _, err := ParsePlayer("random", "go"); err == nil || !strings.Contains(err.Error(), "unknown game") {
		t.Errorf("unknown game: %v", err)
	}
}

func TestParsePlayerGood(t *testing.T) {
	dir := t.TempDir()
	c4 := testnet.Checkpoint(t, dir, "connect4", 1)
	// A run directory: net:RUN uses its best checkpoint.
	run := filepath.Join(dir, "run")
	p, err := checkpoints.Load(c4)
	if err != nil {
		t.Fatal(err)
	}
	name, err := rundir.Dir(run).Save(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := rundir.Dir(run).SetPointer(rundir.Best, name); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ spec, kind, name string }{
		{"random", KindRandom, "random"},
		{" ab:depth=4 ", KindAB, "ab:depth=4"},
		{"ab:movetime=500ms,algo=pvs", KindAB, "ab:movetime=500ms,algo=pvs"},
		{"ab:movetime=20,nodes=1000,hash=1,name=quick", KindAB, "quick"},
		{"ab:depth=5,threads=2", KindAB, "ab:depth=5,threads=2"},
		{"net:" + c4, KindNet, "net:" + c4},
		{"net:" + c4 + ",sims=0,search=gumbel", KindNet, "net:" + c4 + ",sims=0,search=gumbel"},
		{"net:file=" + c4 + ",sims=8", KindNet, "net:file=" + c4 + ",sims=8"},
		{"net:" + c4 + ",sims=8,c_init=2.5,fpu=0", KindNet, ""},
		{"net:" + c4 + ",movetime=30ms", KindNet, ""},
		{"net:" + run + ",name=best", KindNet, "best"},
		{"abzero:net=" + c4 + ",m=10,depth=4", KindABZero, "abzero:net=" + c4 + ",m=10,depth=4"},
		{"abzero:net=" + c4 + ",m=0.5,depth=2,sims=16,algo=alphabeta,hash=2", KindABZero, ""},
		{"mcts:sims=100", KindMCTS, "mcts:sims=100"},
	} {
		s, err := ParsePlayer(c.spec, "connect4")
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if s.Kind != c.kind || (c.name != "" && s.Name() != c.name) {
			t.Errorf("%q: kind %s name %q, want %s %q", c.spec, s.Kind, s.Name(), c.kind, c.name)
		}
		pl, err := s.New()
		if err != nil {
			t.Errorf("%q: New: %v", c.spec, err)
			continue
		}
		// Every player makes a legal move from a fresh game.
		start, _ := game.Lookup("connect4")
		pos, _ := start.New(nil)
		if err := pl.NewGame(pos, 1); err != nil {
			t.Fatal(err)
		}
		mv, err := pl.Move(context.Background(), pos.Clone(), nil)
		if err != nil || !game.IsLegal(pos, mv) {
			t.Errorf("%q: move %v, %v", c.spec, mv, err)
		}
		pl.Close()
	}
}

// A net player on a move time searches until the time is up (at least
// one chunk of simulations, with no simulation count given) and stops at
// sims= when that comes first.
func TestNetMoveTime(t *testing.T) {
	c4 := testnet.Checkpoint(t, t.TempDir(), "connect4", 1)
	start, _ := game.Lookup("connect4")
	for _, c := range []struct {
		spec     string
		min, max int64
	}{
		{"net:" + c4 + ",movetime=50ms", 1, 1 << 40},
		{"net:" + c4 + ",movetime=10s,sims=40", 40, 40},
	} {
		s, err := ParsePlayer(c.spec, "connect4")
		if err != nil {
			t.Fatal(err)
		}
		pl, err := s.New()
		if err != nil {
			t.Fatal(err)
		}
		pos, _ := start.New(nil)
		if err := pl.NewGame(pos, 1); err != nil {
			t.Fatal(err)
		}
		mv, err := pl.Move(context.Background(), pos.Clone(), nil)
		if err != nil || !game.IsLegal(pos, mv) {
			t.Fatalf("%q: move %v, %v", c.spec, mv, err)
		}
		if e := pl.(interface{ LastEffort() int64 }).LastEffort(); e < c.min || e > c.max {
			t.Errorf("%q: %d simulations, want [%d, %d]", c.spec, e, c.min, c.max)
		}
		// A match that ends fails the move instead of answering.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := pl.Move(ctx, pos.Clone(), nil); err == nil {
			t.Errorf("%q: a cancelled move answered", c.spec)
		}
		pl.Close()
	}
}

// c_init= and fpu= change only those constants of the default search.
func TestSearchOverrides(t *testing.T) {
	c4 := testnet.Checkpoint(t, t.TempDir(), "connect4", 1)
	def := mcts.DefaultConfig()
	for _, c := range []struct {
		spec      string
		cInit, fp float64
	}{
		{"net:" + c4, def.CInit, def.FPUReduction},
		{"net:" + c4 + ",c_init=2.5", 2.5, def.FPUReduction},
		{"net:" + c4 + ",fpu=0", def.CInit, 0},
		{"abzero:net=" + c4 + ",m=1,depth=2,c_init=0.5,fpu=1", 0.5, 1},
	} {
		s, err := ParsePlayer(c.spec, "connect4")
		if err != nil {
			t.Fatalf("%q: %v", c.spec, err)
		}
		want := def
		want.CInit, want.FPUReduction = c.cInit, c.fp
		if got := s.SearchConfig(); got != want {
			t.Errorf("%q: search %+v, want %+v", c.spec, got, want)
		}
	}
}

// A network held in memory (player.NetSpec) plays as the same network
// named by its file: the same moves, and the search constants given.
func TestNewPlayerSpec(t *testing.T) {
	dir := t.TempDir()
	file := testnet.Checkpoint(t, dir, "connect4", 2)
	c, err := checkpoints.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := player.NetSpec("xiangqi", c.Params, 4, mcts.DefaultConfig()); err == nil {
		t.Error("a connect4 network accepted for xiangqi")
	}
	if _, err := player.NetSpec("connect4", c.Params, -1, mcts.DefaultConfig()); err == nil {
		t.Error("-1 simulations accepted")
	}
	search := mcts.DefaultConfig()
	search.CInit = 3
	ps, err := player.NetSpec("connect4", c.Params, 16, search)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewPlayerSpec("cand", ps)
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != KindNet || s.Name() != "cand" || s.Network() != c.Params || s.Sims() != 16 || s.SearchConfig() != search {
		t.Fatalf("spec %+v", s)
	}
	named, err := ParsePlayer("net:"+file+",sims=16,c_init=3", "connect4")
	if err != nil {
		t.Fatal(err)
	}
	g, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for ply := range 6 {
		var moves [2]game.Move
		for i, sp := range []*Spec{s, named} {
			pl, err := sp.New()
			if err != nil {
				t.Fatal(err)
			}
			if err := pl.NewGame(p, 1); err != nil {
				t.Fatal(err)
			}
			if moves[i], err = pl.Move(context.Background(), p.Clone(), nil); err != nil {
				t.Fatal(err)
			}
		}
		if moves[0] != moves[1] {
			t.Fatalf("ply %d: the network in memory plays %s, from its file %s", ply, p.FormatMove(moves[0]), p.FormatMove(moves[1]))
		}
		p.Make(moves[0])
	}
}

// SpecUsage names every built-in kind and every key of the searching
// players' specs (from package player's knobs).
func TestSpecUsage(t *testing.T) {
	for _, k := range Kinds() {
		if !strings.Contains(SpecUsage, k) {
			t.Errorf("SpecUsage does not name the kind %s", k)
		}
	}
	for _, kind := range []string{KindAB, KindNet, KindABZero} {
		for _, key := range player.Keys(kind) {
			if slices.Contains(alphabeta.FeatureNames(), key) {
				key = "FEATURE"
			}
			if !strings.Contains(SpecUsage, key) {
				t.Errorf("SpecUsage does not name %s's key %s", kind, key)
			}
		}
	}
}

// The built-in kinds go through the same registry as other packages'
// kinds: all are listed, and none can be registered again.
func TestKindsRegistry(t *testing.T) {
	ks := Kinds()
	for _, k := range append([]string{KindRandom, KindAB, KindNet, KindABZero, KindMCTS}, rollout.Algorithms...) {
		if !slices.Contains(ks, k) {
			t.Errorf("kind %s is not registered (have %v)", k, ks)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a built-in kind was registered again")
		}
	}()
	RegisterKind(KindAB, nil)
}

// An ab player searches with its game's default features, changed by
// FEATURE=on|off; abzero's blend starts from the classic options.
func TestABFeatures(t *testing.T) {
	for _, c := range []struct {
		spec, game string
		want       alphabeta.Options
	}{
		{"ab:depth=3", "xiangqi", alphabeta.DefaultOptionsFor("xiangqi")},
		{"ab:depth=3", "connect4", alphabeta.DefaultOptions()},
		{"ab:depth=3,lmr=on,quiescence=off", "connect4", func() alphabeta.Options {
			o := alphabeta.DefaultOptions()
			o.LMR, o.Quiescence = true, false
			return o
		}()},
		{"ab:depth=3,nullmove=off", "xiangqi", func() alphabeta.Options {
			o := alphabeta.DefaultOptionsFor("xiangqi")
			o.NullMove = false
			return o
		}()},
		{"ab:depth=3,threads=4", "xiangqi", func() alphabeta.Options {
			o := alphabeta.DefaultOptionsFor("xiangqi")
			o.Threads = 4
			return o
		}()},
	} {
		s, err := ParsePlayer(c.spec, c.game)
		if err != nil {
			t.Fatalf("%q: %v", c.spec, err)
		}
		want := c.want
		want.HashMiB = player.DefaultInt(player.KnobHash)
		if s.play.AlphaBeta != want {
			t.Errorf("%q for %s: options %+v, want %+v", c.spec, c.game, s.play.AlphaBeta, want)
		}
	}
	if alphabeta.DefaultOptionsFor("xiangqi") == alphabeta.DefaultOptions() {
		t.Error("Xiangqi has no pruning defaults")
	}
}

// A searching network is measured raw and searched, its raw policy a
// network player without simulations; anything else alone.
func TestMeasuredPlayers(t *testing.T) {
	c4 := testnet.Checkpoint(t, t.TempDir(), "connect4", 1)
	for _, c := range []struct {
		spec   string
		titles []string
		sims   []int
	}{
		{"net:" + c4 + ",sims=8,name=n", []string{"n raw policy", "n with 8 simulations"}, []int{0, 8}},
		{"net:" + c4 + ",sims=0,name=n", []string{"n"}, []int{0}},
		{"ab:depth=2", []string{"ab:depth=2"}, []int{0}},
	} {
		s, err := ParsePlayer(c.spec, "connect4")
		if err != nil {
			t.Fatal(err)
		}
		ms, err := s.MeasuredPlayers()
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		var sims []int
		for _, m := range ms {
			titles, sims = append(titles, m.Title), append(sims, m.Spec.Sims())
		}
		if !slices.Equal(titles, c.titles) || !slices.Equal(sims, c.sims) {
			t.Errorf("%s: %q with simulations %v, want %q %v", c.spec, titles, sims, c.titles, c.sims)
		}
	}
}
