package rollout

import (
	"context"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

// benchPlayouts runs playouts (with the policy's adapt step, as in a
// search, and the policy reset every 1,000 playouts as a new search would)
// from the start of game gn and reports playouts/s and the mean playout
// length.
func benchPlayouts(b *testing.B, gn, alg string) { benchPlayoutsList(b, gn, alg, false) }

// benchPlayoutsList is benchPlayouts; list makes the uniform playouts
// pick from the legal move list even where the game has a RandomMover.
func benchPlayoutsList(b *testing.B, gn, alg string, list bool) {
	g, err := game.Lookup(gn)
	if err != nil {
		b.Fatal(err)
	}
	p, err := g.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := DefaultConfig(alg)
	cfg.PlayoutCap = g.PlayoutCap
	s, err := New(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	s.listPlayouts = list
	if err := s.prepare(context.Background(), p); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if s.pol != nil {
			s.rec.reset()
			if i%1000 == 999 {
				s.pol.reset()
			}
		}
		r, _ := s.playout(p)
		if s.pol != nil {
			s.pol.adapt(&s.rec, s.winner(r))
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "playouts/s")
	b.ReportMetric(float64(s.plies)/float64(b.N), "plies/playout")
}

func benchGame(b *testing.B, gn string, algs ...string) {
	for _, alg := range algs {
		b.Run(alg, func(b *testing.B) { benchPlayouts(b, gn, alg) })
	}
}

func BenchmarkPlayoutConnect4(b *testing.B) {
	benchGame(b, "connect4", UCT, PPA, PPAP, MAST, MR)
}

func BenchmarkPlayoutLion(b *testing.B) {
	benchGame(b, "lion", UCT, PPA, PPAP, PPAF, PPAFP, MAST, MR)
}

// BenchmarkPlayoutXiangqi: uct draws its moves by RandomMove, mast from
// the pseudo-legal moves; uct-movelist and mast-movelist are the same
// playouts from the legal move list.
func BenchmarkPlayoutXiangqi(b *testing.B) {
	benchGame(b, "xiangqi", UCT)
	b.Run("uct-movelist", func(b *testing.B) { benchPlayoutsList(b, "xiangqi", UCT, true) })
	benchGame(b, "xiangqi", MAST)
	b.Run("mast-movelist", func(b *testing.B) { benchPlayoutsList(b, "xiangqi", MAST, true) })
	benchGame(b, "xiangqi", PPA, PPAP, PPAF, PPAFP, MR)
}

// BenchmarkSearch runs whole searches of 2,000 playouts from the start
// (tree, expansion and solver checks included) and reports playouts/s;
// xiangqi's uct-movelist, solver-movelist and mast-movelist without
// RandomMove and PseudoMoves.
func BenchmarkSearch(b *testing.B) {
	for _, gn := range game.Names() {
		algs := []string{UCT, Solver, MAST, PPAP}
		if gn == "lion" {
			algs = append(algs, MR, MS, MB)
		}
		if gn == "xiangqi" {
			algs = append(algs, UCT+"-movelist", Solver+"-movelist", MAST+"-movelist")
		}
		for _, name := range algs {
			alg, list := strings.CutSuffix(name, "-movelist")
			b.Run(gn+"/"+name, func(b *testing.B) {
				g, _ := game.Lookup(gn)
				p, _ := g.New(nil)
				cfg, _ := DefaultConfig(alg)
				cfg.PlayoutCap = g.PlayoutCap
				cfg.Playouts = 2000
				cfg.Reuse = false
				s, err := New(cfg, 1)
				if err != nil {
					b.Fatal(err)
				}
				s.listPlayouts = list
				n := 0
				b.ResetTimer()
				for range b.N {
					res, err := s.Search(context.Background(), p)
					if err != nil {
						b.Fatal(err)
					}
					n += res.Playouts
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "playouts/s")
			})
		}
	}
}

// zeroEval is a game position seen by package alphabeta with the hybrids'
// win/loss evaluation: every non-terminal horizon node scores 0.
type zeroEval struct{ alphabeta.Position }

func (zeroEval) Evaluate() int { return 0 }

// BenchmarkWinLoss compares the hybrids' win/loss minimax with package
// alphabeta on the same positions and depths (no quiescence, no
// extensions, a 1 MiB table): the decision to keep a dedicated searcher.
func BenchmarkWinLoss(b *testing.B) {
	g, _ := game.Lookup("lion")
	start, _ := g.New(nil)
	positions := gametest.RandomPositions(start, 20, 20, 3)
	for _, depth := range []int{1, 2, 4} {
		b.Run("dedicated/depth"+string(rune('0'+depth)), func(b *testing.B) {
			w := newWinLoss()
			b.ResetTimer()
			for i := range b.N {
				p := positions[i%len(positions)]
				w.rs, _ = p.(ruleStatuser)
				if !p.Status().Over() {
					w.value(p, depth)
				}
			}
		})
		b.Run("alphabeta/depth"+string(rune('0'+depth)), func(b *testing.B) {
			s, _ := alphabeta.New(alphabeta.Options{Algorithm: alphabeta.AlgAlphaBeta, HashMiB: 1, ExactDepthTT: true})
			b.ResetTimer()
			for i := range b.N {
				p := positions[i%len(positions)]
				if !p.Status().Over() {
					s.FixedDepth(zeroEval{p.(alphabeta.Position)}, depth)
				}
			}
		})
	}
}
