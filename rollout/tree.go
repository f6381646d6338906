package rollout

import (
	"math"

	"github.com/tabula-zero/tabula/game"
)

// node is a position in the tree, reached by move from its parent.
// Statistics are kept where UCT reads them: n and w count the playouts
// through the node and their score for the player who made move (the
// parent's side to move), in half points (a win 2, a draw 1, a loss 0), so
// w/(2n) is the win rate of the Xiangqi thesis's Alg. 2 with draws as half
// wins.
type node struct {
	kids  []node
	move  game.Move
	n     int32
	w     int32
	proof int8 // MCTS-Solver: +1 proven win, -1 proven loss for the side to move here
	term  int8 // the result for the side to move here when flagTerminal is set
	flags uint8
}

const (
	flagTerminal = 1 << iota // the game is over here (term holds the result)
	flagChecked              // MCTS-Solver has looked for immediate wins and losses below
	flagMS                   // MCTS-MS has searched this node
	flagMB                   // MCTS-MB has searched this node
)

// Iteration values, from the view of a node's side to move.
const (
	vLoss      int8 = -1
	vDraw      int8 = 0
	vWin       int8 = 1
	provenWin  int8 = 2  // MCTS-Solver's +infinity
	provenLoss int8 = -2 // -infinity
)

// halfPoints turns a value for the mover into half points.
func halfPoints(v int8) int32 { return int32(v + 1) }

// rate returns the node's win rate in [0, 1] for the player who made its
// move.
func (n *node) rate() float64 { return float64(n.w) / (2 * float64(n.n)) }

// selectUCT picks the child of greatest (w + d/2)/p + c sqrt(ln T / p),
// an untried child first (in move generation order, strict > as in Alg. 2).
func (s *Searcher) selectUCT(n *node) *node { return s.selectBest(n, false) }

// selectSolver is selectUCT over the children not proven lost for us (a
// child proven won for its side to move); nil when there is none.
func (s *Searcher) selectSolver(n *node) *node { return s.selectBest(n, true) }

// selectBest is the UCT choice, skipping children proven won for their
// side to move when skipProven is set.
func (s *Searcher) selectBest(n *node, skipProven bool) *node {
	logT := math.Log(float64(max(n.n, 1)))
	var best *node
	bestV := math.Inf(-1)
	for i := range n.kids {
		k := &n.kids[i]
		if skipProven && k.proof == 1 {
			continue
		}
		if k.n == 0 {
			return k
		}
		v := k.rate() + s.cfg.C*math.Sqrt(logT/float64(k.n))
		if v > bestV {
			best, bestV = k, v
		}
	}
	return best
}

// mostVisited returns the child with the most visits (the first of
// equals), the final move of UCT and the policy-adaptation family.
func mostVisited(n *node) *node {
	var best *node
	for i := range n.kids {
		if k := &n.kids[i]; best == nil || k.n > best.n {
			best = k
		}
	}
	return best
}

// secureChild returns MCTS-Solver's final move: a proven win if the root
// has one, otherwise the child maximising v + A/sqrt(n) (Catch the Lion
// thesis eq. 2.27, v the win rate on [-1, 1] for the root player), never
// a child proven lost while another is not.
func (s *Searcher) secureChild(n *node) *node {
	var best *node
	bestV := math.Inf(-1)
	for i := range n.kids {
		k := &n.kids[i]
		var v float64
		switch {
		case k.proof == -1:
			return k
		case k.proof == 1:
			v = -4 + float64(k.n)/float64(k.n+1) // lost: the most visited if all are
		case k.n == 0:
			v = -2 // below every visited child (v >= -1)
		default:
			v = 2*k.rate() - 1 + s.cfg.A/math.Sqrt(float64(k.n))
		}
		if best == nil || v > bestV {
			best, bestV = k, v
		}
	}
	return best
}

// count returns the number of nodes below n (its children and theirs).
func count(n *node) int {
	c := len(n.kids)
	for i := range n.kids {
		if n.kids[i].kids != nil {
			c += count(&n.kids[i])
		}
	}
	return c
}

// kid returns n's child reached by m, or nil when it has none.
func (n *node) kid(m game.Move) *node {
	for i := range n.kids {
		if n.kids[i].move == m {
			return &n.kids[i]
		}
	}
	return nil
}
