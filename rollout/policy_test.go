package rollout

import (
	"context"
	"math"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

// handRecord is the sequence of the hand-worked examples: the first player
// chooses code 2 of {1, 2, 3}, the second code 5 of {4, 5}, the first code
// 1 of {1, 3}.
func handRecord() *record {
	r := &record{codes: []int32{1, 2, 3, 4, 5, 1, 3}}
	r.plies = []plyRec{
		{player: 0, chosen: 2, off: 0, n: 3},
		{player: 1, chosen: 5, off: 3, n: 2},
		{player: 0, chosen: 1, off: 5, n: 2},
	}
	return r
}

func checkWeights(t *testing.T, what string, pol *policy, pl uint8, want map[int32]float64) {
	t.Helper()
	for c, w := range want {
		if got := pol.weight(pl, c); math.Abs(got-w) > 1e-12 {
			t.Errorf("%s: player %d code %d: weight %.15f, want %.15f", what, pl, c, got, w)
		}
		if got, e := pol.gibbs(pl, c), math.Exp(pol.k*w); math.Abs(got-e) > 1e-9*e {
			t.Errorf("%s: player %d code %d: Gibbs weight %v, want exp(k*w) = %v", what, pl, c, got, e)
		}
	}
}

func newTestPolicy(t *testing.T, alg string, mod func(*Config)) *policy {
	t.Helper()
	cfg, err := DefaultConfig(alg)
	if err != nil {
		t.Fatal(err)
	}
	mod(&cfg)
	pol := newPolicy(cfg)
	pol.reset()
	return pol
}

// PPA's adapt (Xiangqi thesis Alg. 5), worked by hand with alpha = 1 from
// the uniform policy: only the winner's plies change, each by +alpha on
// the chosen code and -alpha*exp(w)/z on every legal code, z and w taken
// from the policy before the adapt.
func TestPPAAdaptByHand(t *testing.T) {
	pol := newTestPolicy(t, PPA, func(c *Config) { c.Alpha = 1 })
	rec := handRecord()

	// The first player wins. Ply 0: z = e^0+e^0+e^0 = 3, code 2 gets +1,
	// codes 1, 2, 3 get -1/3. Ply 2: z = e^0+e^0 = 2 (the old policy),
	// code 1 gets +1, codes 1 and 3 get -1/2. The second player's ply
	// changes nothing.
	pol.adapt(rec, 0)
	checkWeights(t, "first adapt", pol, 0, map[int32]float64{1: -1.0/3 + 1 - 1.0/2, 2: 1 - 1.0/3, 3: -1.0/3 - 1.0/2})
	checkWeights(t, "first adapt", pol, 1, map[int32]float64{4: 0, 5: 0})

	// The second player wins: ply 1 only, z = 2: code 5 +1 - 1/2, code
	// 4 -1/2.
	pol.adapt(rec, 1)
	checkWeights(t, "second adapt", pol, 0, map[int32]float64{1: 1.0 / 6, 2: 2.0 / 3, 3: -5.0 / 6})
	checkWeights(t, "second adapt", pol, 1, map[int32]float64{4: -0.5, 5: 0.5})

	// The first player wins again, now from non-uniform weights w1 = 1/6,
	// w2 = 2/3, w3 = -5/6: ply 0 has z = e^(1/6)+e^(2/3)+e^(-5/6), ply 2
	// z' = e^(1/6)+e^(-5/6), both from the weights before this adapt.
	w1, w2, w3 := 1.0/6, 2.0/3, -5.0/6
	z := math.Exp(w1) + math.Exp(w2) + math.Exp(w3)
	z2 := math.Exp(w1) + math.Exp(w3)
	pol.adapt(rec, 0)
	checkWeights(t, "third adapt", pol, 0, map[int32]float64{
		1: w1 - math.Exp(w1)/z + 1 - math.Exp(w1)/z2,
		2: w2 + 1 - math.Exp(w2)/z,
		3: w3 - math.Exp(w3)/z - math.Exp(w3)/z2,
	})
	checkWeights(t, "third adapt", pol, 1, map[int32]float64{4: -0.5, 5: 0.5})

	// A draw has no winner: PPA learns nothing.
	pol.adapt(rec, -1)
	checkWeights(t, "draw", pol, 1, map[int32]float64{4: -0.5, 5: 0.5})
}

// PPAP's adapt (Alg. 7) with alpha = 1, p = 2: every ply changes, the
// loser's chosen code by -alpha/p, and the softmax term is subtracted at
// every ply.
func TestPPAPAdaptByHand(t *testing.T) {
	pol := newTestPolicy(t, PPAP, func(c *Config) { c.Alpha, c.Penalty = 1, 2 })
	rec := handRecord()
	// Ply 0 (winner): code 2 +1, codes 1-3 -1/3. Ply 1 (loser): code 5
	// -1/2, codes 4, 5 -1/2 (z = 2). Ply 2 (winner): code 1 +1, codes 1, 3
	// -1/2.
	pol.adapt(rec, 0)
	checkWeights(t, "win", pol, 0, map[int32]float64{1: -1.0/3 + 1 - 1.0/2, 2: 1 - 1.0/3, 3: -1.0/3 - 1.0/2})
	checkWeights(t, "win", pol, 1, map[int32]float64{4: -1.0 / 2, 5: -1.0/2 - 1.0/2})

	// A draw: every ply is a loser's (winner = player never holds).
	pol = newTestPolicy(t, PPAP, func(c *Config) { c.Alpha, c.Penalty = 1, 2 })
	pol.adapt(rec, -1)
	checkWeights(t, "draw", pol, 0, map[int32]float64{1: -1.0/3 - 1.0/2 - 1.0/2, 2: -1.0/2 - 1.0/3, 3: -1.0/3 - 1.0/2})
	checkWeights(t, "draw", pol, 1, map[int32]float64{4: -1.0 / 2, 5: -1.0})
}

// MAST's adapt (Alg. 8): policy[code] = wins/games per player, sampled
// with exp(k*policy), k = 16.
func TestMASTAdaptByHand(t *testing.T) {
	pol := newTestPolicy(t, MAST, func(*Config) {})
	if pol.k != 16 {
		t.Fatalf("MAST k = %v, want the thesis's 16", pol.k)
	}
	rec := &record{plies: []plyRec{{player: 0, chosen: 2}, {player: 1, chosen: 5}, {player: 0, chosen: 2}, {player: 1, chosen: 4}}}
	pol.adapt(rec, 0)
	checkWeights(t, "first", pol, 0, map[int32]float64{2: 2.0 / 2, 1: 0})
	checkWeights(t, "first", pol, 1, map[int32]float64{5: 0.0 / 1, 4: 0.0 / 1})
	rec.plies = rec.plies[:2]
	pol.adapt(rec, 1)
	checkWeights(t, "second", pol, 0, map[int32]float64{2: 2.0 / 3})
	checkWeights(t, "second", pol, 1, map[int32]float64{5: 1.0 / 2, 4: 0})
	pol.adapt(rec, -1)
	checkWeights(t, "draw", pol, 0, map[int32]float64{2: 2.0 / 4})
	checkWeights(t, "draw", pol, 1, map[int32]float64{5: 1.0 / 3})
	pol.reset()
	checkWeights(t, "reset", pol, 0, map[int32]float64{2: 0})
}

// The record adapt reads is the thesis's b.playout replayed from the root:
// every ply of the iteration (tree moves, then playout moves) with the
// side to move, the legal moves' codes in generation order and the chosen
// move among them.
func TestRecordIsTheIteration(t *testing.T) {
	for _, gn := range game.Names() {
		for _, alg := range []string{PPA, PPAF, MAST} {
			g, _ := game.Lookup(gn)
			p, _ := g.New(nil)
			if _, ok := p.(MoveFeaturer); alg == PPAF && !ok {
				continue
			}
			cfg, _ := DefaultConfig(alg)
			cfg.PlayoutCap = 60
			s, err := New(cfg, 5)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.prepare(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			s.reroot(p)
			moves, _, _ := s.gen(p, &s.buf)
			s.expandWith(s.root, moves)
			for it := 0; it < 50; it++ {
				s.iterate(s.root, p)
				q := p.Clone()
				for i, pr := range s.rec.plies {
					if pr.player != uint8(q.SideToMove()) {
						t.Fatalf("%s %s: ply %d recorded for player %d, %s to move", gn, alg, i, pr.player, q.SideToMove())
					}
					var played game.Move
					legal := q.GenerateMoves(nil)
					for j, m := range legal {
						c := moveCode(m)
						if f, ok := q.(MoveFeaturer); ok && alg == PPAF {
							c = c<<2 | int32(f.MoveFeatures(m))
						}
						if alg != MAST && s.rec.codes[int(pr.off)+j] != c {
							t.Fatalf("%s %s: ply %d: recorded code %d at %d, legal move %s has %d", gn, alg, i, s.rec.codes[int(pr.off)+j], j, q.FormatMove(m), c)
						}
						if c == pr.chosen {
							played = m
						}
					}
					if alg != MAST && int(pr.n) != len(legal) {
						t.Fatalf("%s %s: ply %d: %d codes recorded, %d legal moves", gn, alg, i, pr.n, len(legal))
					}
					if played == game.NoMove {
						t.Fatalf("%s %s: ply %d: chosen code %d is no legal move", gn, alg, i, pr.chosen)
					}
					q.Make(played)
				}
				if st := q.Status(); !st.Over() && len(s.rec.plies) < cfg.PlayoutCap {
					t.Fatalf("%s %s: the recorded sequence (%d plies) ends in an ongoing game", gn, alg, len(s.rec.plies))
				}
			}
		}
	}
}
