package rollout

import "github.com/tabula-zero/tabula/game"

// winLoss is the hybrids' fixed-depth minimax: negamax with alpha-beta
// over the values +1 (the side to move wins within the depth), -1 (it
// loses) and 0 (anything else), no evaluation, no table (Catch the Lion
// thesis §2.4: win +1, loss -1, else 0). A dedicated searcher rather than
// package alphabeta: it needs random tie-breaking at the root (MCTS-MR)
// and runs at every playout step, where alphabeta's per-search set-up
// (table ageing, history decay) costs more than the search; see
// BenchmarkWinLoss for the measured difference.
type winLoss struct {
	bufs    [MaxDepth + 1][]game.Move
	rs      ruleStatuser
	nodes   uint64
	poll    func() bool // reports whether to stop; called every 4096 nodes
	aborted bool
}

func newWinLoss() *winLoss {
	w := &winLoss{}
	for i := range w.bufs {
		w.bufs[i] = make([]game.Move, 0, 256)
	}
	return w
}

// resultValue turns a status into a value for the side to move.
func resultValue(r game.Result) int8 {
	switch r {
	case game.Win:
		return 1
	case game.Loss:
		return -1
	}
	return 0
}

// value returns the minimax value of p within depth plies, from the side
// to move's view; 0 when the search was aborted.
func (w *winLoss) value(p game.Position, depth int) int8 {
	w.aborted = false
	return w.search(p, depth, -1, 1, 0)
}

func (w *winLoss) search(p game.Position, depth int, alpha, beta int8, ply int) int8 {
	w.nodes++
	if w.nodes&4095 == 0 && w.poll != nil && w.poll() {
		w.aborted = true
	}
	if w.aborted {
		return 0
	}
	if depth == 0 {
		// A horizon node is worth its result if the game is over there.
		return resultValue(p.Status().Result)
	}
	moves := p.GenerateMoves(w.bufs[ply][:0])
	w.bufs[ply] = moves
	if len(moves) == 0 {
		return resultValue(p.Status().Result)
	}
	if w.rs != nil {
		if st := w.rs.RuleStatus(); st.Over() {
			return resultValue(st.Result)
		}
	} else if st := p.Status(); st.Over() {
		return resultValue(st.Result)
	}
	best := int8(-1)
	for _, m := range moves {
		p.Make(m)
		v := -w.search(p, depth-1, -beta, -alpha, ply+1)
		p.Unmake()
		if v > best {
			best = v
			if v > alpha {
				alpha = v
				if alpha >= beta {
					break
				}
			}
		}
	}
	return best
}

// pick returns the index in moves (p's legal moves, in a buffer the
// caller owns) of a move of greatest minimax value within depth plies,
// chosen uniformly at random among the moves of that value: the moves are
// shuffled and searched in that order, each with a null window above the
// best so far, so the first move of the greatest value wins (MCTS-MR's
// random tie-breaking, thesis §2.4.1). moves is left shuffled.
func (w *winLoss) pick(p game.Position, moves []game.Move, depth int, r *rng) int {
	for i := len(moves) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		moves[i], moves[j] = moves[j], moves[i]
	}
	w.aborted = false
	best, alpha := 0, int8(-2)
	for i, m := range moves {
		p.Make(m)
		v := -w.search(p, depth-1, -1, min(-alpha, 1), 1)
		p.Unmake()
		if w.aborted {
			return best
		}
		if v > alpha {
			best, alpha = i, v
			if v == 1 {
				break
			}
		}
	}
	return best
}
