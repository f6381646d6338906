package rollout

import (
	"context"
	"math"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

// listMover gives any game a RandomMover that picks from the legal move
// list with one intn draw, exactly as the generic playout does.
type listMover struct {
	game.Position
	buf []game.Move
}

func (w *listMover) RandomMove(intn func(int) int) (game.Move, bool) {
	w.buf = w.GenerateMoves(w.buf[:0])
	if len(w.buf) == 0 {
		return game.NoMove, false
	}
	return w.buf[intn(len(w.buf))], true
}

func (w *listMover) RuleStatus() game.Status { return w.Position.(ruleStatuser).RuleStatus() }

// The uniform playouts use a position's RandomMover (Xiangqi has one);
// the policy playouts and MCTS-MR, which need every legal move, do not.
func TestRandomMoverUsed(t *testing.T) {
	for _, gn := range game.Names() {
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
			uniform := alg == UCT || alg == Solver || alg == MS || alg == MB
			if want := uniform && gn == "xiangqi"; (s.rm != nil) != want {
				t.Errorf("%s %s: RandomMover used %v, want %v", gn, alg, s.rm != nil, want)
			}
		}
	}
}

// playoutUniform ends playouts exactly as playout does: with a RandomMover
// that draws from the legal move list as playout does, the same seed gives
// the same results and lengths, from positions of random games (game ends
// by every rule among them) with and without a playout cap.
func TestUniformPlayoutMatchesGeneric(t *testing.T) {
	for _, gn := range game.Names() {
		start := startOf(t, gn)
		positions := gametest.RandomPositions(start, 6, 150, 11)
		for _, cap := range []int{0, 3, 40} {
			cfg, _ := DefaultConfig(UCT)
			cfg.PlayoutCap = cap
			gen, _ := New(cfg, 7)
			uni, _ := New(cfg, 7)
			for i, p := range positions {
				if gn == "xiangqi" && cap == 0 && i%10 != 0 {
					continue // long playouts through the full move generation
				}
				w := &listMover{Position: p.Clone()}
				if err := gen.prepare(context.Background(), p); err != nil {
					t.Fatal(err)
				}
				gen.rm = nil
				if err := uni.prepare(context.Background(), w); err != nil {
					t.Fatal(err)
				}
				if uni.rm == nil {
					t.Fatal("listMover not used")
				}
				before := p.String()
				for range 3 {
					r1, s1 := gen.playout(p)
					r2, s2 := uni.playout(w)
					if r1 != r2 || s1 != s2 || gen.plies != uni.plies {
						t.Fatalf("%s cap %d, %s: generic playout (%d, %v, %d plies in all), uniform (%d, %v, %d)",
							gn, cap, p, r1, s1, gen.plies, r2, s2, uni.plies)
					}
				}
				if w.String() != before || p.String() != before {
					t.Fatalf("%s: playouts did not restore the position", before)
				}
			}
		}
	}
}

// Xiangqi playouts through RandomMove and through the legal move list
// have the same distribution of results and lengths: a two-sample
// chi-square test on (result, length / 8) from two positions of random
// games, 1,500 playouts of at most 40 plies each way.
func TestUniformPlayoutDistribution(t *testing.T) {
	start := startOf(t, "xiangqi")
	positions := gametest.RandomPositions(start, 2, 120, 4)
	for _, p := range []game.Position{positions[60], positions[len(positions)-30]} {
		cfg, _ := DefaultConfig(UCT)
		cfg.PlayoutCap = 40
		var counts [2]map[[2]int]int
		for k := range 2 {
			s, _ := New(cfg, uint64(k+1))
			if err := s.prepare(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				s.rm = nil
			} else if s.rm == nil {
				t.Fatal("xiangqi RandomMove not used")
			}
			counts[k] = map[[2]int]int{}
			for range 1500 {
				before := s.plies
				r, _ := s.playout(p)
				counts[k][[2]int{int(r), (s.plies - before) / 8}]++
			}
		}
		// Cells with fewer than 10 playouts in all are pooled.
		var cells [][2]float64
		var pool [2]float64
		for key := range mergeKeys(counts[0], counts[1]) {
			a, b := float64(counts[0][key]), float64(counts[1][key])
			if a+b < 10 {
				pool[0] += a
				pool[1] += b
				continue
			}
			cells = append(cells, [2]float64{a, b})
		}
		if pool[0]+pool[1] > 0 {
			cells = append(cells, pool)
		}
		chi := 0.0
		for _, c := range cells {
			e := (c[0] + c[1]) / 2 // equal sample sizes
			chi += (c[0]-e)*(c[0]-e)/e + (c[1]-e)*(c[1]-e)/e
		}
		df := float64(len(cells) - 1)
		if df < 2 {
			t.Fatalf("%s: %d cells, the test says nothing", p, len(cells))
		}
		const z = 3.719 // 99.99%
		a := 2 / (9 * df)
		if bound := df * math.Pow(1-a+z*math.Sqrt(a), 3); chi > bound {
			t.Errorf("%s: chi-square %.1f > %.1f (df %.0f): %v vs %v", p, chi, bound, df, counts[0], counts[1])
		}
	}
}

func mergeKeys(a, b map[[2]int]int) map[[2]int]bool {
	out := map[[2]int]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
