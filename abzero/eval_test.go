package abzero

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/nnue"
)

// kindEval is hashEval recording the kinds of position the MCTS half
// evaluates.
type kindEval struct{ kinds map[string]bool }

func (k *kindEval) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	k.kinds[fmt.Sprintf("%T", p)] = true
	return hashEval{}.Evaluate(p, moves, priors)
}

// learnedEval is Config.Eval with a random learned Xiangqi evaluation.
func learnedEval(net *nnue.Net) func(game.Position) (alphabeta.Position, error) {
	return func(p game.Position) (alphabeta.Position, error) { return nnue.Wrap(net, p) }
}

// With Config.Eval the alpha-beta half searches the learned evaluation's
// position, giving the scores of a search run directly on it (and not the
// classical evaluation's), while the MCTS half still gets the plain
// Xiangqi position.
func TestLearnedAlphaBetaHalf(t *testing.T) {
	net := nnue.NewRandom(3)
	ps := positions(t)
	differs := false
	for _, p := range ps[len(ps)-2:] { // the Xiangqi ones
		ke := &kindEval{kinds: map[string]bool{}}
		cfg := config(0)
		cfg.Eval = learnedEval(net)
		mv, err := New(cfg, ke, 7)
		if err != nil {
			t.Fatal(err)
		}
		before := p.String()
		d, err := mv.Move(context.Background(), p, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if p.String() != before {
			t.Fatalf("Move changed the position: %s -> %s", before, p)
		}
		if !game.IsLegal(p, d.Move) {
			t.Fatalf("%s: illegal move %v", p, d.Move)
		}
		if want := map[string]bool{"*xiangqi.Position": true}; fmt.Sprint(ke.kinds) != fmt.Sprint(want) {
			t.Errorf("%s: the MCTS half evaluated %v, want only plain Xiangqi positions", p, ke.kinds)
		}

		// The same search on nnue.Wrap of p, with the limits Move uses at
		// m = 0 (every visit share adds nothing).
		s, err := alphabeta.New(cfg.AlphaBeta)
		if err != nil {
			t.Fatal(err)
		}
		w, err := nnue.Wrap(net, p)
		if err != nil {
			t.Fatal(err)
		}
		direct := s.Search(context.Background(), w, alphabeta.Limits{Depth: testDepth, MultiPV: true, MultiPVMargin: marginFor(0),
			RootBonus: func(game.Move) float64 { return 0 }}, nil)
		if !slices.Equal(d.AlphaBeta.RootScores, direct.RootScores) || d.AlphaBeta.Nodes != direct.Nodes {
			t.Errorf("%s: the blend's alpha-beta gave %v (%d nodes), the learned evaluation's own search %v (%d nodes)",
				p, d.AlphaBeta.RootScores, d.AlphaBeta.Nodes, direct.RootScores, direct.Nodes)
		}

		classical, err := New(config(0), hashEval{}, 7)
		if err != nil {
			t.Fatal(err)
		}
		dc, err := classical.Move(context.Background(), p, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(dc.AlphaBeta.RootScores, d.AlphaBeta.RootScores) {
			differs = true
		}

		// Teach (the Blender alone) searches the same position.
		b, err := NewBlender(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, tab, err := b.Teach(context.Background(), p, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.Clear()
		w, _ = nnue.Wrap(net, p)
		tdirect := s.Search(context.Background(), w, alphabeta.Limits{Depth: testDepth, MultiPV: true, MultiPVMargin: marginFor(teachCutoff)}, nil)
		if !slices.Equal(tab.RootScores, tdirect.RootScores) {
			t.Errorf("%s: Teach gave %v, the learned evaluation's own search %v", p, tab.RootScores, tdirect.RootScores)
		}
	}
	if !differs {
		t.Error("the learned evaluation's root scores equal the classical ones in every position: it is not used")
	}
}

// An Eval that cannot make the position fails the move, naming why.
func TestEvalError(t *testing.T) {
	p := positions(t)[0] // Connect Four
	cfg := config(0)
	cfg.Eval = learnedEval(nnue.NewRandom(1))
	mv, err := New(cfg, hashEval{}, 7)
	if err != nil {
		t.Fatal(err)
	}
	_, err = mv.Move(context.Background(), p, Limits{})
	if err == nil || !strings.Contains(err.Error(), "not a Xiangqi") {
		t.Errorf("Move on Connect Four with the learned Xiangqi evaluation: %v", err)
	}
	if _, err := mv.Blend(context.Background(), p, mcts.Result{}); err == nil {
		t.Error("Blend on Connect Four with the learned Xiangqi evaluation: no error")
	}
	cfg.Eval = func(game.Position) (alphabeta.Position, error) { return nil, nil }
	if mv, err = New(cfg, hashEval{}, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := mv.Move(context.Background(), p, Limits{}); err == nil {
		t.Error("an Eval giving no position: no error")
	}
}
