package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tabula-zero/tabula/game"
)

// Config holds the search constants.
type Config struct {
	CInit float64 // PUCT exploration base (AlphaZero: 1.25)
	CBase float64 // PUCT exploration growth (AlphaZero: 19652)
	// FPUReduction: an unvisited child is valued at the parent's value
	// minus FPUReduction * sqrt(prior mass of the visited children).
	FPUReduction float64
	// NoiseAlpha and NoiseEpsilon shape the Dirichlet noise mixed into the
	// root priors in self-play (alpha scaled to the game's typical number
	// of moves).
	NoiseAlpha, NoiseEpsilon float64
	// Solver propagates proven wins, losses and draws (MCTS-Solver).
	Solver bool
	// Gumbel switches the root to Gumbel-top-k with sequential halving
	// over GumbelM considered actions; CVisit and CScale define sigma(q) =
	// (CVisit + max visits) * CScale * q.
	Gumbel         bool
	GumbelM        int
	CVisit, CScale float64
	// ProvenTargets makes the policy target of a root the solver has
	// decided its proven best moves in equal shares (the quickest wins,
	// else the draws, else the slowest losses) instead of the visits
	// spent before the proof.
	ProvenTargets bool
}

// DefaultConfig returns AlphaZero's constants with the solver on.
func DefaultConfig() Config {
	return Config{CInit: 1.25, CBase: 19652, FPUReduction: 0.25, NoiseAlpha: 0.3, NoiseEpsilon: 0.25, Solver: true, GumbelM: 16, CVisit: 50, CScale: 0.1}
}

// Proven results of a node, for the side to move at that node.
const (
	unknown  int8 = 0
	provWin  int8 = 1
	provLoss int8 = -1
	provDraw int8 = 2
)

type node struct {
	move     game.Move
	prior    float32
	visits   int32
	valueSum float32 // values from the view of the player who made move
	proven   int8
	expanded bool
	// plies bounds the proven end: the winner can force it within this
	// many plies (0: the node is terminal), so the search takes the
	// quickest proven win and the slowest proven loss.
	plies int16
	raw   float32 // the evaluator's value at expansion, for the side to move here
	// drawSum sums the draw probabilities backed up through the node (a
	// draw does not change with the side's view): with a DrawEvaluator,
	// drawSum/visits and q give the node's win, draw and loss. It fills
	// padding the struct had, so nodes are no larger.
	drawSum float32
	// inflight counts the descents through the node waiting for a batch's
	// evaluation: each counts as a visit in the exploration term (a
	// virtual visit; its value stays out of q), so that the next descent
	// of the batch leans elsewhere.
	inflight int32
	children []node
}

// q is the mean value from the view of the player who made the move.
func (n *node) q() float32 { return n.valueSum / float32(n.visits) }

// Tree is the search tree of one game. It is not safe for concurrent use.
type Tree struct {
	cfg    Config
	eval   Evaluator
	draws  DrawEvaluator // eval when it knows draw probabilities, else nil
	pos    game.Position
	root   *node
	rng    *rand.Rand
	noised *node // the root that already has noise
	// rawPrior holds the priors of the noised root's children from
	// before the noise.
	rawPrior []float32

	moves  []game.Move
	priors []float32
	path   []*node
	gumbel []float64 // Gumbel samples of the root children
	winner int       // the root child sequential halving chose

	// The leaves of a batch (searchBatch) and their values and draw
	// probabilities.
	leaves     []leaf
	values     []float32
	drawValues []float32
}

// NewTree starts a search tree at a copy of p.
func NewTree(cfg Config, eval Evaluator, p game.Position, rng *rand.Rand) *Tree {
	return &Tree{cfg: cfg, eval: eval, draws: drawsOf(eval), pos: p.Clone(), root: &node{}, rng: rng,
		moves: make([]game.Move, 0, 256), priors: make([]float32, 256)}
}

// SetEvaluator makes the tree evaluate through e from now on (a self-play
// worker's next batcher for the same network); the evaluations already in
// the tree stay.
func (t *Tree) SetEvaluator(e Evaluator) { t.eval, t.draws = e, drawsOf(e) }

// Position returns the root position (owned by the tree; do not modify).
func (t *Tree) Position() game.Position { return t.pos }

// Result summarises a search.
type Result struct {
	Moves  []game.Move // legal root moves
	Visits []int       // visits per move
	// Policy is the training target over Moves: visit shares, or with
	// Gumbel the improved policy softmax(logits + sigma(completed Q)).
	Policy []float32
	// Best is the move to play at temperature 0: the most visited (the
	// sequential-halving winner with Gumbel; a proven win when known).
	Best game.Move
	// Value is the root's value for the side to move; Proven is set when
	// the solver has decided the root (Value is then -1, 0 or 1), and
	// ProvenPlies then bounds the plies to the end (the winner can force
	// it within them).
	Value       float32
	Proven      bool
	ProvenPlies int
	Simulations int
	// Prior is the evaluator's policy over Moves at the root, before any
	// noise (the measure of a search's surprise).
	Prior []float32
	// PV is the principal variation, at most MaxPV plies (see Tree.PV).
	PV []game.Move
	// WDL is the root's win, draw and loss for the side to move, the
	// mean over the root's visits of what was backed up through it (the
	// evaluator's probabilities, a finished or proven game's result), when
	// HasWDL: the evaluator knows draw probabilities (DrawEvaluator).
	// W - L is Value.
	WDL    WDL
	HasWDL bool
}

// WDL is a position's probabilities of a win, a draw and a loss for its
// side to move.
type WDL struct{ Win, Draw, Loss float32 }

// wdlOf returns the WDL whose W - L is value and whose D is draw, W and
// L clamped at 0 (rounding) and the three scaled to sum to 1.
func wdlOf(value, draw float32) WDL {
	d := min(max(draw, 0), 1)
	w := max((1+value-d)/2, 0)
	l := max((1-value-d)/2, 0)
	sum := w + d + l
	return WDL{w / sum, d / sum, l / sum}
}

// MaxPV bounds Result.PV: below a few dozen plies the visits of a search
// are too thin to mean anything.
const MaxPV = 40

// ErrGameOver is returned when searching a finished game.
var ErrGameOver = errors.New("mcts: the game is over")

// Search runs sims simulations from the root (fewer if the solver proves
// the root first), adding Dirichlet noise to the root priors when noise
// is set (once per root), and summarises the root.
func (t *Tree) Search(ctx context.Context, sims int, noise bool) (Result, error) {
	if t.pos.Status().Over() {
		return Result{}, ErrGameOver
	}
	if !t.root.expanded {
		if err := t.simulate(nil); err != nil {
			return Result{}, err
		}
	}
	if t.cfg.Solver {
		t.proveRootEnds()
	}
	if noise && !t.cfg.Gumbel && t.cfg.NoiseEpsilon > 0 && t.noised != t.root {
		t.addNoise()
		t.noised = t.root
	}
	done := 0
	var err error
	if t.cfg.Gumbel {
		done, err = t.sequentialHalving(ctx, sims, noise)
	} else if be, ok := t.eval.(BatchEvaluator); ok && be.Capacity() > 1 {
		done, err = t.searchBatch(ctx, sims, be)
	} else {
		for ; done < sims && t.root.proven == unknown; done++ {
			if done&63 == 0 && ctx.Err() != nil {
				return Result{}, ctx.Err()
			}
			if err = t.simulate(nil); err != nil {
				break
			}
		}
	}
	if err != nil {
		return Result{}, err
	}
	return t.summary(done), nil
}

// simulate runs one simulation; forced, if not nil, is the root child to
// go through (Gumbel's sequential halving).
func (t *Tree) simulate(forced *node) error {
	p := t.pos
	n := t.root
	path := append(t.path[:0], n)
	for n.expanded && n.proven == unknown {
		var c *node
		if forced != nil && n == t.root {
			c = forced
		} else {
			c = t.selectChild(n)
		}
		p.Make(c.move)
		n = c
		path = append(path, n)
	}
	t.path = path
	v, d, err := t.leafValue(n)
	for range len(path) - 1 {
		p.Unmake()
	}
	if err != nil {
		return err
	}
	t.backup(path, v, d)
	return nil
}

// backup adds v, the value of the last node of path for its side to move,
// and d, its draw probability, to every node of path, and lets the solver
// prove what it can above it.
func (t *Tree) backup(path []*node, v, d float32) {
	// A node's valueSum is from the view of the player who moved into it,
	// the opposite of its side to move.
	for i := len(path) - 1; i >= 0; i-- {
		path[i].visits++
		path[i].valueSum -= v
		path[i].drawSum += d
		v = -v
	}
	if t.cfg.Solver {
		for i := len(path) - 2; i >= 0 && t.prove(path[i]); i-- {
		}
	}
}

// leafValue evaluates (and expands) a leaf, returning its value for its
// side to move and its draw probability (0 when the evaluator knows
// none). Terminal positions take their exact result.
func (t *Tree) leafValue(n *node) (value, draw float32, err error) {
	if v, ok := t.decided(n); ok {
		return v, drawOf(n), nil
	}
	p := t.pos
	moves := p.GenerateMoves(t.moves[:0])
	t.moves = moves
	if len(t.priors) < len(moves) {
		t.priors = make([]float32, len(moves))
	}
	priors := t.priors[:len(moves)]
	var v, d float32
	if t.draws != nil {
		v, d, err = t.draws.EvaluateDraw(p, moves, priors)
	} else {
		v, err = t.eval.Evaluate(p, moves, priors)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("mcts: evaluate %s: %w", p, err)
	}
	if err := t.expand(n, moves, priors, v); err != nil {
		return 0, 0, err
	}
	return v, d, nil
}

// drawOf is the draw probability of a decided node: 1 for a draw, else 0.
func drawOf(n *node) float32 {
	if n.proven == provDraw {
		return 1
	}
	return 0
}

// decided returns the value of a leaf whose game is over at t.pos (which
// it marks proven) or that the solver has proven, for its side to move.
func (t *Tree) decided(n *node) (float32, bool) {
	if n.proven != unknown {
		return provenValue(n), true
	}
	if st := t.pos.Status(); st.Over() {
		n.proven = resultProven(st.Result)
		n.expanded = true
		return st.Result.Value(), true
	}
	return 0, false
}

// expand gives leaf n its children with the evaluator's priors and value.
func (t *Tree) expand(n *node, moves []game.Move, priors []float32, v float32) error {
	if math.IsNaN(float64(v)) || v < -1 || v > 1 {
		return fmt.Errorf("mcts: evaluator value %v outside [-1, 1]", v)
	}
	n.raw = v
	n.children = make([]node, len(moves))
	for i, m := range moves {
		n.children[i] = node{move: m, prior: priors[i]}
	}
	n.expanded = true
	return nil
}

// provenValue is a proven node's value for its side to move: 1, -1 or 0.
func provenValue(n *node) float32 {
	switch n.proven {
	case provWin:
		return 1
	case provLoss:
		return -1
	}
	return 0
}

func resultProven(r game.Result) int8 {
	switch r {
	case game.Win:
		return provWin
	case game.Loss:
		return provLoss
	}
	return provDraw
}

// prove updates n's proven result from its children and reports whether
// it changed (so the parent may change too). A win takes the quickest of
// the children proven lost, a loss the slowest of the children proven won.
func (t *Tree) prove(n *node) bool {
	if n.proven != unknown || !n.expanded {
		return false
	}
	all, draw := true, false
	win, loss := int16(math.MaxInt16), int16(0)
	for i := range n.children {
		c := &n.children[i]
		switch c.proven {
		case provLoss: // the child's side to move loses: n's side wins
			win = min(win, c.plies)
		case provWin:
			loss = max(loss, c.plies)
		case provDraw:
			draw = true
		case unknown:
			all = false
		}
	}
	switch {
	case win < math.MaxInt16:
		n.proven, n.plies = provWin, win+1
	case !all:
		return false
	case draw:
		n.proven = provDraw
	default:
		n.proven, n.plies = provLoss, loss+1
	}
	return true
}

// proveRootEnds proves the root's children that end the game at once, so
// that a win in one is never passed over for a longer proven win found
// first. It costs one move per child, once per root.
func (t *Tree) proveRootEnds() {
	r := t.root
	if r.proven != unknown || !r.expanded {
		return
	}
	p := t.pos
	for i := range r.children {
		c := &r.children[i]
		if c.expanded {
			continue
		}
		p.Make(c.move)
		if st := p.Status(); st.Over() {
			c.proven, c.expanded = resultProven(st.Result), true
		}
		p.Unmake()
	}
	t.prove(r)
}

// selectChild picks the child maximising Q + U (PUCT), taking a proven
// winning move at once and avoiding proven losing ones.
func (t *Tree) selectChild(n *node) *node {
	parentQ := -n.q() // n's value for its own side to move
	visitedMass := float32(0)
	for i := range n.children {
		if n.children[i].visits > 0 {
			visitedMass += n.children[i].prior
		}
	}
	fpu := parentQ - float32(t.cfg.FPUReduction)*float32(math.Sqrt(float64(visitedMass)))
	N := float64(n.visits + n.inflight)
	c := float32((math.Log((1+N+t.cfg.CBase)/t.cfg.CBase) + t.cfg.CInit) * math.Sqrt(N))
	best, bestScore := -1, float32(math.Inf(-1))
	for i := range n.children {
		ch := &n.children[i]
		var q float32
		switch ch.proven {
		case provLoss:
			return ch
		case provWin:
			q = -2 // never chosen while another move exists
		case provDraw:
			q = 0
		default:
			q = fpu
			if ch.visits > 0 {
				q = ch.q()
			}
		}
		score := q + c*ch.prior/float32(1+ch.visits+ch.inflight)
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return &n.children[best]
}

// addNoise mixes Dirichlet(alpha) noise into the root priors.
func (t *Tree) addNoise() {
	t.rawPrior = t.rawPrior[:0]
	ch := t.root.children
	if len(ch) == 0 || t.cfg.NoiseAlpha <= 0 {
		return
	}
	noise := make([]float64, len(ch))
	sum := 0.0
	for i := range noise {
		noise[i] = gamma(t.rng, t.cfg.NoiseAlpha)
		sum += noise[i]
	}
	eps := float32(t.cfg.NoiseEpsilon)
	for i := range ch {
		t.rawPrior = append(t.rawPrior, ch[i].prior)
	}
	for i := range ch {
		d := float32(1 / float64(len(ch)))
		if sum > 0 {
			d = float32(noise[i] / sum)
		}
		ch[i].prior = (1-eps)*ch[i].prior + eps*d
	}
}

// Advance plays m at the root, keeping the subtree below it.
func (t *Tree) Advance(m game.Move) error {
	if !game.IsLegal(t.pos, m) {
		return fmt.Errorf("mcts: illegal move %s in %s", t.pos.FormatMove(m), t.pos)
	}
	next := &node{}
	for i := range t.root.children {
		if t.root.children[i].move == m {
			c := t.root.children[i]
			next = &c
			break
		}
	}
	t.pos.Make(m)
	t.root = next
	t.gumbel = t.gumbel[:0]
	return nil
}

// summary builds the Result of the root.
func (t *Tree) summary(sims int) Result {
	r := t.root
	res := Result{Simulations: sims, Value: -r.q()}
	if t.draws != nil && r.visits > 0 {
		res.WDL, res.HasWDL = wdlOf(res.Value, r.drawSum/float32(r.visits)), true
	}
	if r.proven != unknown {
		res.Proven, res.Value, res.ProvenPlies = true, provenValue(r), int(r.plies)
		if t.draws != nil {
			res.WDL, res.HasWDL = wdlOf(res.Value, drawOf(r)), true
		}
	}
	for i := range r.children {
		c := &r.children[i]
		res.Moves = append(res.Moves, c.move)
		res.Visits = append(res.Visits, int(c.visits))
		res.Prior = append(res.Prior, c.prior)
	}
	if t.noised == r && len(t.rawPrior) == len(r.children) {
		copy(res.Prior, t.rawPrior)
	}
	if t.cfg.ProvenTargets && r.proven != unknown {
		res.Policy = provenPolicy(r)
	} else if t.cfg.Gumbel && len(t.gumbel) == len(r.children) {
		res.Policy = t.improvedPolicy()
	} else {
		res.Policy = make([]float32, len(r.children))
		for i, n := range res.Visits {
			res.Policy[i] = float32(n)
		}
		sum := float32(0)
		for _, v := range res.Policy {
			sum += v
		}
		if sum == 0 && r.proven != unknown {
			// Proven before a simulation reached a child (a win in one).
			res.Policy = provenPolicy(r)
		}
		for i := range res.Policy {
			if sum > 0 {
				res.Policy[i] /= sum
			}
		}
	}
	if i := t.rootChoice(); i >= 0 {
		res.Best = r.children[i].move
		res.PV = t.PV(MaxPV)
	}
	return res
}

// rootChoice returns the index of the root child to play at temperature 0,
// or -1 when the root has no children: a proven win, else the sequential-
// halving winner with Gumbel, else the best child by better.
func (t *Tree) rootChoice() int {
	r := t.root
	if len(r.children) == 0 {
		return -1
	}
	if i := quickestWin(r); i >= 0 {
		return i
	}
	if t.cfg.Gumbel && len(t.gumbel) == len(r.children) {
		return t.gumbelWinner()
	}
	return bestChild(r)
}

// bestChild returns the index of n's child that is proven to win for the
// side to move at n, else the best by better; -1 when n has no children.
func bestChild(n *node) int {
	if i := quickestWin(n); i >= 0 {
		return i
	}
	best := -1
	for i := range n.children {
		c := &n.children[i]
		if best < 0 || better(c, &n.children[best]) {
			best = i
		}
	}
	return best
}

// PV returns the principal variation of the search so far, at most max
// plies: the move the search would play (Result.Best), then at each node
// the child bestChild picks, as long as that child has been visited. Each
// move is legal in the position the moves before it lead to. It allocates
// the returned slice only; nil before the first search.
func (t *Tree) PV(max int) []game.Move {
	// Two walks, the first to size the slice: a walk is a few dozen nodes.
	n := 0
	t.walkPV(max, func(game.Move) { n++ })
	if n == 0 {
		return nil
	}
	pv := make([]game.Move, 0, n)
	t.walkPV(max, func(m game.Move) { pv = append(pv, m) })
	return pv
}

// walkPV calls visit with each move of the principal variation.
func (t *Tree) walkPV(max int, visit func(game.Move)) {
	i := t.rootChoice()
	if i < 0 || max <= 0 {
		return
	}
	n := &t.root.children[i]
	visit(n.move)
	for k := 1; k < max; k++ {
		i = bestChild(n)
		if i < 0 || n.children[i].visits == 0 {
			return
		}
		n = &n.children[i]
		visit(n.move)
	}
}

// provenPolicy shares the policy equally among the proven root's best
// children: the quickest wins, else the draws, else the slowest losses.
func provenPolicy(r *node) []float32 {
	pol := make([]float32, len(r.children))
	best := func(c *node) bool { return c.proven == provDraw }
	switch r.proven {
	case provWin:
		plies := r.children[quickestWin(r)].plies
		best = func(c *node) bool { return c.proven == provLoss && c.plies == plies }
	case provLoss:
		best = func(c *node) bool { return c.plies == r.plies-1 }
	}
	n := 0
	for i := range r.children {
		if best(&r.children[i]) {
			pol[i] = 1
			n++
		}
	}
	for i := range pol {
		pol[i] /= float32(n)
	}
	return pol
}

// quickestWin returns the index of n's child proven lost for its side to
// move (a win for n's) with the fewest plies to the end, or -1.
func quickestWin(n *node) int {
	best := -1
	for i := range n.children {
		c := &n.children[i]
		if c.proven == provLoss && (best < 0 || c.plies < n.children[best].plies) {
			best = i
		}
	}
	return best
}

// better orders children for the final choice: more visits, then higher
// prior; proven losing moves last, the slowest of them first.
func better(a, b *node) bool {
	if (a.proven == provWin) != (b.proven == provWin) {
		return b.proven == provWin
	}
	if a.proven == provWin && a.plies != b.plies {
		return a.plies > b.plies
	}
	if a.visits != b.visits {
		return a.visits > b.visits
	}
	return a.prior > b.prior
}

// Pick chooses the move to play from a result: at temperature 0 res.Best,
// otherwise a move drawn with probability proportional to
// visits^(1/temperature).
func Pick(res Result, temperature float64, rng *rand.Rand) game.Move {
	if temperature <= 0 || res.Proven {
		return res.Best
	}
	w := make([]float64, len(res.Moves))
	sum := 0.0
	for i, n := range res.Visits {
		w[i] = math.Pow(float64(n), 1/temperature)
		sum += w[i]
	}
	if sum == 0 {
		return res.Best
	}
	x := rng.Float64() * sum
	for i := range w {
		if x -= w[i]; x < 0 {
			return res.Moves[i]
		}
	}
	return res.Moves[len(res.Moves)-1]
}

// gamma draws from Gamma(alpha, 1) (Marsaglia and Tsang; boosted for
// alpha < 1), for Dirichlet noise.
func gamma(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		return gamma(rng, alpha+1) * math.Pow(rng.Float64(), 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
