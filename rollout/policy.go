package rollout

import "math"

// record is one iteration's move sequence from the root (tree moves, then
// playout moves), kept for the policy's adapt step. The Xiangqi thesis's
// adapt replays the sequence from the root board and generates the legal
// moves again; the codes of the legal moves are kept from the iteration
// instead, which gives the same update without a second move generation.
type record struct {
	plies []plyRec
	codes []int32 // PPA kinds: the legal moves' codes of every ply
}

type plyRec struct {
	player uint8 // the side to move: 0 first, 1 second
	chosen int32 // code of the move played
	off, n int32 // PPA kinds: codes[off:off+n] are the legal moves' codes
}

func (r *record) reset() {
	r.plies = r.plies[:0]
	r.codes = r.codes[:0]
}

// maxExponent clamps k*weight before exp, so that a sum over a few
// hundred moves stays finite (e^600 * 1000 < MaxFloat64).
const maxExponent = 600

// policy is the adaptive playout policy: a weight per player and move code
// (PPA, PPAP: learnt by adapt; MAST: wins/games of the code), with
// exp(k*weight) cached for sampling. Tables grow on the first write to a
// code; an unseen code has weight 0.
type policy struct {
	kind              int
	alpha, penalty, k float64
	w, ekw, delta     [2][]float64
	games, wins       [2][]float64 // MAST
	dirty             [2][]bool    // a delta is pending (PPA kinds)
	touched           []touch
	zbuf              []float64
}

type touch struct {
	pl   uint8
	code int32
}

func newPolicy(cfg Config) *policy {
	return &policy{kind: cfg.policy(), alpha: cfg.Alpha, penalty: cfg.Penalty, k: cfg.K}
}

// reset returns to the uniform policy (every search starts from it: the
// thesis has no warm start, §5.2).
func (t *policy) reset() {
	for pl := range 2 {
		clear(t.w[pl])
		clear(t.delta[pl])
		clear(t.games[pl])
		clear(t.wins[pl])
		clear(t.dirty[pl])
		for i := range t.ekw[pl] {
			t.ekw[pl][i] = 1
		}
	}
	t.touched = t.touched[:0]
}

// ensure grows player pl's tables to hold code.
func (t *policy) ensure(pl uint8, code int32) {
	if int(code) < len(t.w[pl]) {
		return
	}
	n := max(1024, 2*len(t.w[pl]))
	for n <= int(code) {
		n *= 2
	}
	grow := func(s []float64, fill float64) []float64 {
		out := make([]float64, n)
		copy(out, s)
		for i := len(s); i < n; i++ {
			out[i] = fill
		}
		return out
	}
	t.w[pl] = grow(t.w[pl], 0)
	t.ekw[pl] = grow(t.ekw[pl], 1)
	t.delta[pl] = grow(t.delta[pl], 0)
	if t.kind == polMAST {
		t.games[pl] = grow(t.games[pl], 0)
		t.wins[pl] = grow(t.wins[pl], 0)
	}
	d := make([]bool, n)
	copy(d, t.dirty[pl])
	t.dirty[pl] = d
}

// gibbs returns exp(k*policy[code]), the sampling weight of a move.
func (t *policy) gibbs(pl uint8, code int32) float64 {
	if int(code) < len(t.ekw[pl]) {
		return t.ekw[pl][code]
	}
	return 1
}

// weight returns policy[code].
func (t *policy) weight(pl uint8, code int32) float64 {
	if int(code) < len(t.w[pl]) {
		return t.w[pl][code]
	}
	return 0
}

// expw returns exp(policy[code]), the softmax term of adapt.
func (t *policy) expw(pl uint8, code int32) float64 {
	if t.k == 1 {
		return t.gibbs(pl, code)
	}
	return math.Exp(min(t.weight(pl, code), maxExponent))
}

func (t *policy) setWeight(pl uint8, code int32, w float64) {
	t.w[pl][code] = w
	t.ekw[pl][code] = math.Exp(max(min(t.k*w, maxExponent), -maxExponent))
}

// add queues a change of policy[code]: adapt reads the old policy
// throughout (polp in Alg. 5 and 7) and applies the changes at the end.
func (t *policy) add(pl uint8, code int32, d float64) {
	t.ensure(pl, code)
	if !t.dirty[pl][code] {
		t.dirty[pl][code] = true
		t.touched = append(t.touched, touch{pl, code})
	}
	t.delta[pl][code] += d
}

// adapt learns from one iteration; winner is 0 or 1 for the side that
// won, -1 for a draw (nobody's moves count as the winner's).
func (t *policy) adapt(rec *record, winner int) {
	if t.kind == polMAST {
		// Alg. 8: games and wins per code, policy = wins/games.
		for _, pr := range rec.plies {
			pl, c := pr.player, pr.chosen
			t.ensure(pl, c)
			t.games[pl][c]++
			if int(pl) == winner {
				t.wins[pl][c]++
			}
			t.setWeight(pl, c, t.wins[pl][c]/t.games[pl][c])
		}
		return
	}
	for _, pr := range rec.plies {
		pl := pr.player
		win := int(pl) == winner
		switch {
		case win:
			t.add(pl, pr.chosen, t.alpha) // Alg. 5 line 5, Alg. 7 line 5
		case t.kind == polPPAP:
			t.add(pl, pr.chosen, -t.alpha/t.penalty) // Alg. 7 line 7
		default:
			continue // PPA adapts the winner's moves only (Alg. 5 line 4)
		}
		codes := rec.codes[pr.off : pr.off+pr.n]
		t.zbuf = t.zbuf[:0]
		z := 0.0
		for _, c := range codes {
			e := t.expw(pl, c)
			t.zbuf = append(t.zbuf, e)
			z += e
		}
		for i, c := range codes {
			t.add(pl, c, -t.alpha*t.zbuf[i]/z)
		}
	}
	for _, tc := range t.touched {
		pl, c := tc.pl, tc.code
		t.setWeight(pl, c, t.w[pl][c]+t.delta[pl][c])
		t.delta[pl][c] = 0
		t.dirty[pl][c] = false
	}
	t.touched = t.touched[:0]
}
