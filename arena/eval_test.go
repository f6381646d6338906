package arena

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/nnue"
)

// randomEvalFile saves a small random learned Xiangqi network.
func randomEvalFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "random.nnue")
	if err := nnue.NewRandom(5).Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// ab: and abzero: with eval=learned play matches.
func TestLearnedEvalMatches(t *testing.T) {
	file := randomEvalFile(t)
	xq := testnet.Checkpoint(t, t.TempDir(), "xiangqi", 1)
	for _, c := range []struct{ a, b string }{
		{"ab:depth=2,eval=learned,evalfile=" + file, "ab:depth=2"},
		{"abzero:net=" + xq + ",m=1,depth=2,sims=8,eval=learned,evalfile=" + file, "random"},
	} {
		m := Match{Game: "xiangqi", A: spec(t, c.a, "xiangqi"), B: spec(t, c.b, "xiangqi"), Games: 2, Concurrency: 2, OpeningPlies: 2, Seed: 4, PlyCap: 40}
		res, err := RunMatch(context.Background(), m)
		if err != nil {
			t.Fatalf("%s: %v", c.a, err)
		}
		if res.Games() != 2 {
			t.Fatalf("%s: %d games", c.a, res.Games())
		}
		checkPairs(t, res.Records)
		for _, r := range res.Records {
			replay(t, r, 40)
		}
		t.Logf("%s vs %s: %s", c.a, c.b, res.Score)
	}
	// The blend's alpha-beta half is given the learned evaluation
	// (abzero's own test checks that it searches with it).
	for s, want := range map[string]bool{
		"abzero:net=" + xq + ",m=1,depth=2,eval=learned,evalfile=" + file: true,
		"abzero:net=" + xq + ",m=1,depth=2,eval=learned":                  true, // the shipped network
		"abzero:net=" + xq + ",m=1,depth=2":                               false,
	} {
		pl, err := spec(t, s, "xiangqi").New()
		if err != nil {
			t.Fatal(err)
		}
		if got := pl.(*specPlayer).mv.ABZero().Config().Eval != nil; got != want {
			t.Errorf("%s: the alpha-beta half has an evaluation of its own: %v, want %v", s, got, want)
		}
	}
}

// An eval=learned ab: player searches the learned evaluation, evalfile=
// FILE's or without it the shipped network: its moves and nodes are
// those of alpha-beta run directly on nnue.Wrap of the position, and not
// the classical player's; its players share the spec's one network.
func TestLearnedABPlayerSearchesTheNetwork(t *testing.T) {
	file := randomEvalFile(t)
	fileNet, err := nnue.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	shippedNet, shipped, err := nnue.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, spec, file string
		net              *nnue.Net
	}{
		{"evalfile", "ab:depth=3,eval=learned,evalfile=" + file, file, fileNet},
		{"shipped", "ab:depth=3,eval=learned", shipped.String(), shippedNet},
	} {
		t.Run(c.name, func(t *testing.T) { learnedABPlayer(t, c.spec, c.file, c.net) })
	}
}

func learnedABPlayer(t *testing.T, specText, file string, net *nnue.Net) {
	learned := spec(t, specText, "xiangqi")
	if learned.evalFile != file {
		t.Errorf("%s: evaluation file %q, want %q", specText, learned.evalFile, file)
	}
	classical := spec(t, "ab:depth=3", "xiangqi")
	var players [2]Player
	var err error
	for i := range players {
		if players[i], err = learned.New(); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := players[0].(*specPlayer).mv.EvalNet(), players[1].(*specPlayer).mv.EvalNet(); a == nil || a != b || a != learned.evalNet {
		t.Fatal("the spec's players do not share its network")
	}
	pc, err := classical.New()
	if err != nil {
		t.Fatal(err)
	}
	differs := false
	p := xiangqi.New(xiangqi.DefaultRules)
	for ply, mv := range []string{"h3e3", "h10g8", "h1g3", "i10h10"} {
		for _, pl := range []Player{players[0], pc} {
			if err := pl.NewGame(p, 1); err != nil {
				t.Fatal(err)
			}
		}
		got, err := players[0].Move(context.Background(), p.Clone(), nil)
		if err != nil {
			t.Fatal(err)
		}
		nodes := players[0].(EffortCounter).LastEffort()

		s, err := alphabeta.New(learned.play.AlphaBeta)
		if err != nil {
			t.Fatal(err)
		}
		w, err := nnue.Wrap(net, p)
		if err != nil {
			t.Fatal(err)
		}
		direct := s.Search(context.Background(), w, learned.play.ABLimits(), nil)
		if got != direct.Move || nodes != int64(direct.Nodes) {
			t.Errorf("ply %d: the player plays %s in %d nodes, alpha-beta on nnue.Wrap %s in %d", ply, p.FormatMove(got), nodes, p.FormatMove(direct.Move), direct.Nodes)
		}
		if _, err := pc.Move(context.Background(), p.Clone(), nil); err != nil {
			t.Fatal(err)
		}
		if pc.(EffortCounter).LastEffort() != nodes {
			differs = true
		}
		if err := game.Play(p, mv); err != nil {
			t.Fatal(err)
		}
	}
	if !differs {
		t.Error("the learned player searches as many nodes as the classical one in every position: the network is not used")
	}
}

func TestEvalSpecErrors(t *testing.T) {
	file := randomEvalFile(t)
	dir := t.TempDir()
	damaged := filepath.Join(dir, "damaged.nnue")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	xq := testnet.Checkpoint(t, dir, "xiangqi", 1)
	for _, c := range []struct{ spec, game, want string }{
		{"ab:depth=2,eval=foo", "xiangqi", `eval="foo" (valid: classical, learned)`},
		{"ab:depth=2,evalfile=" + file, "xiangqi", "evalfile= needs eval=learned"},
		{"ab:depth=2,eval=classical,evalfile=" + file, "xiangqi", "evalfile= needs eval=learned"},
		{"ab:depth=2,eval=learned,evalfile=" + file, "connect4", "eval=learned is Xiangqi's evaluation, not connect4's"},
		{"ab:depth=2,eval=learned,evalfile=" + filepath.Join(dir, "none.nnue"), "xiangqi", "no such file"},
		{"ab:depth=2,eval=learned,evalfile=" + dir, "xiangqi", "is a directory, not a regular file"},
		{"ab:depth=2,eval=learned,evalfile=" + damaged, "xiangqi", "checksum mismatch"},
		{"ab:depth=2,eval=learned,evalfile=" + xq, "xiangqi", "not a network file (bad magic)"},
		{"abzero:net=" + xq + ",m=1,depth=2,evalfile=" + file, "xiangqi", "evalfile= needs eval=learned"},
		{"abzero:net=" + xq + ",m=1,depth=2,eval=learned", "connect4", "eval=learned is Xiangqi's evaluation, not connect4's"},
		{"net:" + xq + ",eval=learned", "xiangqi", `unknown key "eval"`},
	} {
		_, err := ParsePlayer(c.spec, c.game)
		if err == nil || !strings.HasPrefix(err.Error(), "arena: player ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s (%s): %v, want %q", c.spec, c.game, err, c.want)
		}
	}
	// eval=classical is the default, said or not.
	if s := spec(t, "ab:depth=2,eval=classical", "xiangqi"); s.evalNet != nil {
		t.Error("eval=classical loaded a network")
	}
}
