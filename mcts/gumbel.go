package mcts

import (
	"context"
	"math"
	"slices"
)

// Gumbel root search (Danihelka et al., "Policy improvement by planning
// with Gumbel", 2022): sample Gumbel noise g(a), consider the top m
// actions by g(a) + logit(a), share the simulations among them in
// sequential-halving phases, keep the better half by g + logit + sigma(q)
// after each phase, and train on softmax(logit + sigma(completed Q)).
// Logits are the log priors (equal to the network's masked logits up to a
// constant, which softmax ignores).

// sequentialHalving spends about sims simulations and returns how many it
// ran. Without noise g = 0 (deterministic evaluation play).
func (t *Tree) sequentialHalving(ctx context.Context, sims int, noise bool) (int, error) {
	ch := t.root.children
	t.gumbel = t.gumbel[:0]
	for range ch {
		g := 0.0
		if noise {
			g = -math.Log(-math.Log(t.rng.Float64()*(1-2e-12) + 1e-12))
		}
		t.gumbel = append(t.gumbel, g)
	}
	cand := make([]int, len(ch))
	for i := range cand {
		cand[i] = i
	}
	t.sortCandidates(cand, false)
	m := min(max(t.cfg.GumbelM, 1), len(ch))
	cand = cand[:m]
	phases := max(1, int(math.Ceil(math.Log2(float64(m)))))
	done := 0
	for len(cand) > 1 && done < sims && t.root.proven == unknown {
		per := max(1, sims/(phases*len(cand)))
		for _, i := range cand {
			for k := 0; k < per && done < sims && t.root.proven == unknown; k++ {
				if done&63 == 0 && ctx.Err() != nil {
					return done, ctx.Err()
				}
				if err := t.simulate(&ch[i]); err != nil {
					return done, err
				}
				done++
			}
		}
		t.sortCandidates(cand, true)
		cand = cand[:(len(cand)+1)/2]
	}
	// A single candidate (or a proven root) takes the remaining budget so
	// that the search is as deep as the budget allows.
	for ; done < sims && t.root.proven == unknown; done++ {
		if err := t.simulate(&ch[cand[0]]); err != nil {
			return done, err
		}
	}
	t.winner = cand[0]
	return done, nil
}

// logit returns the log prior of a root child.
func logit(p float32) float64 { return math.Log(math.Max(float64(p), 1e-12)) }

// sortCandidates orders root children by g + logit (+ sigma(q) when
// withQ), best first.
func (t *Tree) sortCandidates(cand []int, withQ bool) {
	var sq []float64
	if withQ {
		sq = t.sigmaCompleted()
	}
	score := func(i int) float64 {
		s := t.gumbel[i] + logit(t.root.children[i].prior)
		if withQ {
			s += sq[i]
		}
		return s
	}
	slices.SortStableFunc(cand, func(a, b int) int {
		sa, sb := score(a), score(b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
}

// sigmaCompleted returns sigma(completed Q) per root child: Q of visited
// children, the mixed value elsewhere, rescaled to [0, 1] over the
// children, times (CVisit + max visits) * CScale.
func (t *Tree) sigmaCompleted() []float64 {
	ch := t.root.children
	q := make([]float64, len(ch))
	var sumN, sumP, sumPQ float64
	maxN := 0.0
	for i := range ch {
		if ch[i].visits > 0 {
			n := float64(ch[i].visits)
			sumN += n
			sumP += float64(ch[i].prior)
			sumPQ += float64(ch[i].prior) * float64(ch[i].q())
			maxN = math.Max(maxN, n)
		}
	}
	vmix := float64(t.root.raw)
	if sumP > 0 {
		vmix = (vmix + sumN/sumP*sumPQ) / (1 + sumN)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range ch {
		q[i] = vmix
		if ch[i].visits > 0 {
			q[i] = float64(ch[i].q())
		}
		if ch[i].proven != unknown { // exact values for decided moves
			q[i] = -float64(provenValue(&ch[i]))
		}
		lo, hi = math.Min(lo, q[i]), math.Max(hi, q[i])
	}
	scale := (t.cfg.CVisit + maxN) * t.cfg.CScale
	for i := range q {
		if hi > lo {
			q[i] = (q[i] - lo) / (hi - lo)
		} else {
			q[i] = 0.5
		}
		q[i] *= scale
	}
	return q
}

// improvedPolicy is softmax(logit + sigma(completed Q)) over the root
// children.
func (t *Tree) improvedPolicy() []float32 {
	sq := t.sigmaCompleted()
	ch := t.root.children
	z := make([]float64, len(ch))
	mx := math.Inf(-1)
	for i := range ch {
		z[i] = logit(ch[i].prior) + sq[i]
		mx = math.Max(mx, z[i])
	}
	sum := 0.0
	for i := range z {
		z[i] = math.Exp(z[i] - mx)
		sum += z[i]
	}
	out := make([]float32, len(ch))
	for i := range z {
		out[i] = float32(z[i] / sum)
	}
	return out
}

// gumbelWinner is the action sequential halving settled on.
func (t *Tree) gumbelWinner() int { return t.winner }
