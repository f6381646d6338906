package rollout

import (
	"context"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

func startOf(t testing.TB, name string) game.Position {
	t.Helper()
	g, err := game.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The dedicated win/loss minimax returns what package alphabeta returns
// with a zero evaluation and no quiescence: the sign of a mate score
// within the depth, else 0. (Connect Four and Catch the Lion: their
// RuleStatus sees every ending, so both look at the same horizon.)
func TestWinLossAgreesWithAlphaBeta(t *testing.T) {
	for _, gn := range []string{"connect4", "lion"} {
		w := newWinLoss()
		ab, err := alphabeta.New(alphabeta.Options{Algorithm: alphabeta.AlgAlphaBeta, HashMiB: 1, ExactDepthTT: true})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, p := range gametest.RandomPositions(startOf(t, gn), 30, 30, 21) {
			if p.Status().Over() || i%2 == 1 {
				continue
			}
			w.rs = p.(ruleStatuser)
			for depth := 1; depth <= 4; depth++ {
				got := w.value(p, depth)
				ab.Clear()
				sc, _ := ab.FixedDepth(zeroEval{p.(alphabeta.Position)}, depth)
				want := int8(0)
				if alphabeta.IsMate(sc) {
					want = 1
					if sc < 0 {
						want = -1
					}
				}
				if got != want {
					t.Fatalf("%s %s depth %d: win/loss value %d, alpha-beta %s", gn, p, depth, got, alphabeta.FormatScore(sc))
				}
				n++
			}
		}
		t.Logf("%s: %d searches agree", gn, n)
	}
}

// MCTS-MR's move choice: a move of the greatest value within the depth,
// uniformly at random among the moves of that value.
func TestMinimaxRolloutPick(t *testing.T) {
	var r rng
	r.seed(3)
	w := newWinLoss()

	// Start of Catch the Lion: nothing is decided within 2 plies, so all
	// moves tie and each must come up about equally often.
	p := startOf(t, "lion")
	w.rs = p.(ruleStatuser)
	moves := p.GenerateMoves(nil)
	count := map[game.Move]int{}
	const draws = 8000
	buf := make([]game.Move, len(moves))
	for range draws {
		copy(buf, moves)
		i := w.pick(p, buf, 2, &r)
		count[buf[i]]++
	}
	mean := draws / len(moves)
	for _, m := range moves {
		if c := count[m]; c < mean*3/4 || c > mean*5/4 {
			t.Errorf("move %s picked %d times of %d, expected about %d", p.FormatMove(m), c, draws, mean)
		}
	}

	// Positions with a forced result: depth 1 always takes an immediate
	// win, depth 2 never plays into an immediate loss when it can avoid it.
	for _, p := range gametest.RandomPositions(startOf(t, "lion"), 60, 30, 4) {
		if p.Status().Over() {
			continue
		}
		w.rs = p.(ruleStatuser)
		moves := p.GenerateMoves(nil)
		win, safe := false, false
		for _, m := range moves {
			p.Make(m)
			st := p.Status()
			if st.Result == game.Loss {
				win = true
			}
			if !gametest.WinsWithin(p, 1) {
				safe = true
			}
			p.Unmake()
		}
		for depth := 1; depth <= 2; depth++ {
			i := w.pick(p, moves, depth, &r)
			q := p.Clone()
			q.Make(moves[i])
			won := q.Status().Result == game.Loss
			if win && !won {
				t.Errorf("%s depth %d: %s misses the immediate win", p, depth, p.FormatMove(moves[i]))
			}
			if depth == 2 && !win && safe && gametest.WinsWithin(q, 1) {
				t.Errorf("%s depth 2: %s allows an immediate win", p, p.FormatMove(moves[i]))
			}
		}
	}
}

// A playout step allocates nothing, for every playout kind and game.
func TestPlayoutAllocs(t *testing.T) {
	for _, gn := range game.Names() {
		for _, alg := range []string{UCT, MR, PPA, PPAP, PPAF, PPAFP, MAST} {
			p := startOf(t, gn)
			if _, ok := p.(MoveFeaturer); !ok && (alg == PPAF || alg == PPAFP) {
				continue
			}
			if gn == "xiangqi" && alg == MR {
				continue // slow; the same code as for the other games
			}
			cfg, _ := DefaultConfig(alg)
			cfg.PlayoutCap = 100
			s, _ := New(cfg, 1)
			if err := s.prepare(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			run := func() {
				if s.pol != nil {
					s.rec.reset()
				}
				r, _ := s.playout(p)
				if s.pol != nil {
					s.pol.adapt(&s.rec, s.winner(r))
				}
			}
			for range 200 { // grow buffers and tables
				run()
			}
			runs := 50
			if gn == "xiangqi" {
				runs = 10
			}
			if a := testing.AllocsPerRun(runs, run); a > 0.1 {
				t.Errorf("%s %s: %.1f allocations per playout", gn, alg, a)
			}
		}
	}
}
