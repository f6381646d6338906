package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta/c4solver"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/lion"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 99)) }

func TestVisitsSumToSimulations(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Solver = false
	for _, gumbel := range []bool{false, true} {
		cfg.Gumbel = gumbel
		tr := NewTree(cfg, Uniform{}, connect4.New(), rng(1))
		res, err := tr.Search(context.Background(), 200, true)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		for _, v := range res.Visits {
			sum += v
		}
		if sum != 200 || res.Simulations != 200 {
			t.Fatalf("gumbel %v: visits sum to %d over %d simulations, want 200", gumbel, sum, res.Simulations)
		}
		var ps float32
		for _, p := range res.Policy {
			ps += p
		}
		if math.Abs(float64(ps-1)) > 1e-5 {
			t.Fatalf("gumbel %v: policy sums to %v", gumbel, ps)
		}
	}
}

// TestFindsForcedWins: with uniform priors, value 0 and the solver, the
// search plays a winning move in positions with a short forced win.
func TestFindsForcedWins(t *testing.T) {
	lp, _ := lion.New(nil)
	for _, start := range []game.Position{connect4.New(), lp} {
		found := 0
		for _, p := range gametest.RandomPositions(start, 80, 30, 3) {
			if p.Status().Over() || found >= 12 {
				continue
			}
			n := 0
			for k := 1; k <= 2; k++ {
				if gametest.WinsWithin(p, k) {
					n = k
					break
				}
			}
			if n == 0 {
				continue
			}
			found++
			// PUCT one leaf at a time, Gumbel, and PUCT in batches of 16
			// leaves (whose virtual visits must not hide a forced win).
			for _, v := range []struct {
				name   string
				gumbel bool
				eval   Evaluator
			}{{"puct", false, Uniform{}}, {"gumbel", true, Uniform{}}, {"batches", false, &batchOf{ev: Uniform{}, capacity: 16}}} {
				cfg := DefaultConfig()
				cfg.Gumbel = v.gumbel
				tr := NewTree(cfg, v.eval, p, rng(2))
				res, err := tr.Search(context.Background(), 3000, false)
				if err != nil {
					t.Fatal(err)
				}
				checkTree(t, tr.root)
				// The move must keep a forced win, not necessarily the
				// shortest one: look a few moves further than n.
				q := p.Clone()
				q.Make(res.Best)
				if !gametest.LostWithin(q, n+2) {
					t.Errorf("%s %s (%s): %s does not keep the forced win in %d (value %v, proven %v)", p.Game(), p, v.name, p.FormatMove(res.Best), n, res.Value, res.Proven)
				}
			}
		}
		if found < 5 {
			t.Errorf("%s: only %d positions with a short forced win in the sample", start.Game(), found)
		}
	}
}

// solverEval is a perfect Connect Four evaluator: the exact game value
// (sign of Pons' score) and uniform priors.
type solverEval struct{ s *c4solver.Solver }

func (e solverEval) Evaluate(gp game.Position, moves []game.Move, priors []float32) (float32, error) {
	for i := range moves {
		priors[i] = 1 / float32(len(moves))
	}
	sc := e.s.Solve(gp.(*connect4.Position))
	return float32(max(-1, min(1, sc))), nil
}

// TestPerfectEvaluatorPlaysOptimally: with the exact solver as evaluator,
// the chosen move keeps the position's game-theoretic value.
func TestPerfectEvaluatorPlaysOptimally(t *testing.T) {
	s, err := c4solver.New("negacstar-opt", 16)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(x int) int { return max(-1, min(1, x)) }
	checked := 0
	for _, gp := range gametest.RandomPositions(connect4.New(), 30, 30, 5) {
		p := gp.(*connect4.Position)
		if p.Moves() < 12 || p.Status().Over() || checked >= 25 {
			continue
		}
		checked++
		want := sign(s.Solve(p))
		// One leaf at a time, and in batches of 8.
		for _, ev := range []Evaluator{solverEval{s}, &batchOf{ev: solverEval{s}, capacity: 8}} {
			tr := NewTree(DefaultConfig(), ev, p, rng(3))
			res, err := tr.Search(context.Background(), 100, false)
			if err != nil {
				t.Fatal(err)
			}
			q := p.Clone().(*connect4.Position)
			q.Make(res.Best)
			got := -sign(s.Solve(q))
			if q.Status().Over() {
				got = -int(q.Status().Result.Value())
			}
			if got != want {
				t.Errorf("%s (%T): value %d, but %s leads to %d", p, ev, want, p.FormatMove(res.Best), got)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d positions checked", checked)
	}
}

// selfPlay plays one game with noise and temperature and returns its moves.
func selfPlay(seed uint64, gumbel bool) []game.Move {
	cfg := DefaultConfig()
	cfg.Gumbel = gumbel
	r := rng(seed)
	tr := NewTree(cfg, Uniform{}, connect4.New(), r)
	var moves []game.Move
	for !tr.Position().Status().Over() {
		res, err := tr.Search(context.Background(), 64, true)
		if err != nil {
			panic(err)
		}
		temp := 1.0
		if len(moves) >= 8 {
			temp = 0
		}
		m := Pick(res, temp, r)
		moves = append(moves, m)
		tr.Advance(m)
	}
	return moves
}

func TestSameSeedSameGame(t *testing.T) {
	for _, gumbel := range []bool{false, true} {
		a, b, c := selfPlay(7, gumbel), selfPlay(7, gumbel), selfPlay(8, gumbel)
		if !slices.Equal(a, b) {
			t.Fatalf("gumbel %v: the same seed gave different games", gumbel)
		}
		if slices.Equal(a, c) {
			t.Errorf("gumbel %v: different seeds gave the same game (noise or temperature unused?)", gumbel)
		}
	}
}

func TestTreeReuse(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Solver = false
	tr := NewTree(cfg, Uniform{}, connect4.New(), rng(4))
	res, _ := tr.Search(context.Background(), 300, false)
	i := slices.Index(res.Moves, res.Best)
	if err := tr.Advance(res.Best); err != nil {
		t.Fatal(err)
	}
	if got := int(tr.root.visits); got != res.Visits[i] {
		t.Fatalf("new root has %d visits, the child had %d", got, res.Visits[i])
	}
	if err := tr.Advance(game.Move(99)); err == nil {
		t.Fatal("illegal move accepted")
	}
}

func TestGameOver(t *testing.T) {
	p, _ := connect4.Parse("1212121")
	if _, err := NewTree(DefaultConfig(), Uniform{}, p, rng(1)).Search(context.Background(), 10, false); err != ErrGameOver {
		t.Fatalf("search of a finished game: %v", err)
	}
}

func TestGammaMoments(t *testing.T) {
	r := rng(6)
	for _, alpha := range []float64{0.03, 0.3, 1, 2.5} {
		n := 200000
		var sum, sq float64
		for i := 0; i < n; i++ {
			x := gamma(r, alpha)
			sum += x
			sq += x * x
		}
		mean := sum / float64(n)
		variance := sq/float64(n) - mean*mean
		// Gamma(alpha, 1): mean alpha, variance alpha.
		if math.Abs(mean-alpha) > 0.03*math.Max(alpha, 0.3) || math.Abs(variance-alpha) > 0.1*math.Max(alpha, 0.3) {
			t.Errorf("alpha %v: mean %v, variance %v", alpha, mean, variance)
		}
	}
}

// skewed puts 0.94 of the prior on the first move and shares the rest.
type skewed struct{}

func (skewed) Evaluate(_ game.Position, moves []game.Move, priors []float32) (float32, error) {
	for i := range moves {
		priors[i] = 0.06 / float32(len(moves)-1)
	}
	priors[0] = 0.94
	return 0, nil
}

// The result's prior is the evaluator's, before the root noise a
// self-play search mixes in (the measure of a search's surprise).
func TestResultPrior(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Solver, cfg.NoiseEpsilon = false, 0.5
	prior := float32(0.06 / 6)
	for _, noise := range []bool{false, true} {
		r, err := NewTree(cfg, skewed{}, connect4.New(), rng(3)).Search(context.Background(), 400, noise)
		if err != nil {
			t.Fatal(err)
		}
		if r.Prior[0] != 0.94 || r.Prior[1] != prior {
			t.Fatalf("noise %v: prior %v, want the evaluator's", noise, r.Prior)
		}
	}
}

// TestProvenDistances: the solver's proven plies bound the end as the
// brute-force solver finds it, a win in one is played whenever there is
// one, and with ProvenTargets the policy target of a proven root is its
// quickest wins in equal shares.
func TestProvenDistances(t *testing.T) {
	lp, _ := lion.New(nil)
	for _, start := range []game.Position{connect4.New(), lp} {
		checked, inOne := 0, 0
		for _, p := range gametest.RandomPositions(start, 120, 30, 5) {
			if p.Status().Over() {
				continue
			}
			for _, gumbel := range []bool{false, true} {
				cfg := DefaultConfig()
				cfg.Gumbel = gumbel
				res, err := NewTree(cfg, Uniform{}, p, rng(3)).Search(context.Background(), 2000, false)
				if err != nil {
					t.Fatal(err)
				}
				if sum := sumOf(res.Policy); math.Abs(float64(sum-1)) > 1e-5 {
					t.Fatalf("%s %s: policy %v sums to %v", p.Game(), p, res.Policy, sum)
				}
				cfg.ProvenTargets = true
				if res, err = NewTree(cfg, Uniform{}, p, rng(3)).Search(context.Background(), 2000, false); err != nil {
					t.Fatal(err)
				}
				var ends []int // root moves that win at once
				for i, m := range res.Moves {
					q := p.Clone()
					q.Make(m)
					if st := q.Status(); st.Over() && st.Result == game.Loss {
						ends = append(ends, i)
					}
				}
				if len(ends) > 0 {
					inOne++
					q := p.Clone()
					q.Make(res.Best)
					if !q.Status().Over() || !res.Proven || res.ProvenPlies != 1 {
						t.Errorf("%s %s (gumbel %v): %s passes over a win in one (proven %v in %d plies)", p.Game(), p, gumbel, p.FormatMove(res.Best), res.Proven, res.ProvenPlies)
					}
					for i, share := range res.Policy {
						want := float32(0)
						if slices.Contains(ends, i) {
							want = 1 / float32(len(ends))
						}
						if math.Abs(float64(share-want)) > 1e-6 {
							t.Errorf("%s %s: proven policy %v, want equal shares on the wins in one %v", p.Game(), p, res.Policy, ends)
							break
						}
					}
				}
				if !res.Proven || res.ProvenPlies > 5 {
					continue
				}
				checked++
				d := res.ProvenPlies
				switch res.Value {
				case 1:
					if !gametest.WinsWithin(p, (d+1)/2) {
						t.Errorf("%s %s: proven win in %d plies, but no forced win within %d moves", p.Game(), p, d, (d+1)/2)
					}
				case -1:
					if !gametest.LostWithin(p, d/2+1) {
						t.Errorf("%s %s: proven loss in %d plies, but the opponent has no forced win within %d moves", p.Game(), p, d, d/2+1)
					}
				}
			}
		}
		if checked < 10 || inOne < 5 {
			t.Errorf("%s: only %d proven roots and %d wins in one in the sample", start.Game(), checked, inOne)
		}
		t.Logf("%s: %d proven roots checked, %d with a win in one", start.Game(), checked, inOne)
	}
}

func sumOf(xs []float32) float32 {
	s := float32(0)
	for _, x := range xs {
		s += x
	}
	return s
}
