package rollout

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

// legalPseudo gives any game a PseudoMover whose pseudo-legal moves are
// exactly its legal moves, in GenerateMoves's order.
type legalPseudo struct{ game.Position }

func (w legalPseudo) PseudoMoves(dst []game.Move) []game.Move { return w.GenerateMoves(dst) }
func (w legalPseudo) LegalPseudo(game.Move) bool              { return true }
func (w legalPseudo) RuleStatus() game.Status                 { return w.Position.(ruleStatuser).RuleStatus() }

// MAST uses a position's PseudoMover (Xiangqi has one); nothing else does.
func TestPseudoMoverUsed(t *testing.T) {
	for _, gn := range []string{"connect4", "lion", "xiangqi"} {
		for _, alg := range Algorithms {
			p := startOf(t, gn)
			if _, ok := p.(MoveFeaturer); !ok && (alg == PPAF || alg == PPAFP) {
				continue
			}
			cfg, _ := DefaultConfig(alg)
			s, _ := New(cfg, 1)
			if err := s.prepare(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if want := alg == MAST && gn == "xiangqi"; (s.pm != nil) != want {
				t.Errorf("%s %s: PseudoMover used %v, want %v", gn, alg, s.pm != nil, want)
			}
		}
	}
}

// playoutPseudo ends playouts exactly as playout does and draws the same
// moves when nothing is rejected: with the legal moves as pseudo-legal
// moves, the same seed gives the same results, lengths and MAST tables,
// from positions of random games (every game ending among them) with and
// without a playout cap.
func TestPseudoPlayoutMatchesGeneric(t *testing.T) {
	for _, gn := range []string{"connect4", "lion", "xiangqi"} {
		start := startOf(t, gn)
		positions := gametest.RandomPositions(start, 6, 150, 12)
		for _, cap := range []int{0, 3, 40} {
			cfg, _ := DefaultConfig(MAST)
			cfg.PlayoutCap = cap
			gen, _ := New(cfg, 9)
			pse, _ := New(cfg, 9)
			for i, p := range positions {
				if gn == "xiangqi" && cap == 0 && i%10 != 0 {
					continue // long playouts through the full move generation
				}
				w := legalPseudo{p.Clone()}
				if err := gen.prepare(context.Background(), p); err != nil {
					t.Fatal(err)
				}
				gen.pm = nil
				if err := pse.prepare(context.Background(), w); err != nil {
					t.Fatal(err)
				}
				if pse.pm == nil {
					t.Fatal("legalPseudo not used")
				}
				before := p.String()
				for range 3 {
					gen.rec.reset()
					pse.rec.reset()
					r1, s1 := gen.playout(p)
					r2, s2 := pse.playout(w)
					if r1 != r2 || s1 != s2 || gen.plies != pse.plies || !slices.Equal(gen.rec.plies, pse.rec.plies) {
						t.Fatalf("%s cap %d, %s: generic playout (%d, %v, %d plies in all), pseudo (%d, %v, %d)",
							gn, cap, p, r1, s1, gen.plies, r2, s2, pse.plies)
					}
					gen.pol.adapt(&gen.rec, gen.winner(r1))
					pse.pol.adapt(&pse.rec, pse.winner(r2))
				}
				if w.String() != before || p.String() != before {
					t.Fatalf("%s: playouts did not restore the position", before)
				}
				for pl := range 2 {
					if !slices.Equal(gen.pol.ekw[pl], pse.pol.ekw[pl]) {
						t.Fatalf("%s cap %d: MAST tables differ", gn, cap)
					}
				}
			}
		}
	}
}

// gibbsPseudo's draw from Xiangqi's pseudo-legal moves follows the Gibbs
// distribution over the legal moves exactly: a chi-square goodness-of-fit
// test against exp(k*w)/sum over the legal moves, with random MAST
// weights (the illegal moves' among the largest), in positions of random
// games where some pseudo-legal moves are illegal (checks and pins).
func TestGibbsPseudoDistribution(t *testing.T) {
	start := startOf(t, "xiangqi")
	var picked []game.Position
	for _, p := range gametest.RandomPositions(start, 4, 150, 5) {
		pm := p.(PseudoMover)
		pseudo := pm.PseudoMoves(nil)
		legal := p.GenerateMoves(nil)
		if len(legal) >= 2 && len(pseudo)-len(legal) >= 3 {
			picked = append(picked, p)
		}
	}
	if len(picked) < 3 {
		t.Fatalf("only %d positions with illegal pseudo-legal moves", len(picked))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range picked[:3] {
		cfg, _ := DefaultConfig(MAST)
		s, _ := New(cfg, 11)
		if err := s.prepare(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		pl := uint8(p.SideToMove())
		legal := p.GenerateMoves(nil)
		isLegal := map[game.Move]bool{}
		for _, m := range legal {
			isLegal[m] = true
		}
		for _, m := range s.pm.PseudoMoves(nil) {
			c := moveCode(m)
			s.pol.ensure(pl, c)
			w := rng.Float64() / cfg.K // weights exp(k*w) from 1 to e
			if !isLegal[m] {
				w += 1 / cfg.K // illegal moves drawn often: the rejection path is exercised
			}
			s.pol.setWeight(pl, c, w)
		}
		sum := 0.0
		for _, m := range legal {
			sum += s.pol.gibbs(pl, moveCode(m))
		}
		const draws = 20000
		counts := map[game.Move]int{}
		for range draws {
			s.rec.reset()
			moves := s.pm.PseudoMoves(s.buf[:0])
			s.buf = moves
			i := s.gibbsPseudo(p, moves)
			if i < 0 || !isLegal[moves[i]] {
				t.Fatalf("%s: drew %v (index %d), not a legal move", p, moves, i)
			}
			counts[moves[i]]++
		}
		chi, cells := 0.0, 0
		var poolE, poolN float64 // moves expected fewer than 10 times
		add := func(n, e float64) {
			chi += (n - e) * (n - e) / e
			cells++
		}
		for _, m := range legal {
			e := draws * s.pol.gibbs(pl, moveCode(m)) / sum
			if e < 10 {
				poolE += e
				poolN += float64(counts[m])
				continue
			}
			add(float64(counts[m]), e)
		}
		if poolE > 0 {
			add(poolN, poolE)
		}
		df := float64(cells - 1)
		const z = 3.719 // 99.99%
		a := 2 / (9 * df)
		if bound := df * math.Pow(1-a+z*math.Sqrt(a), 3); chi > bound {
			t.Errorf("%s: chi-square %.1f > %.1f (df %.0f)", p, chi, bound, df)
		}
	}
}
