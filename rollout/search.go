package rollout

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// Searcher runs one algorithm for one game at a time. It is not safe for
// concurrent use; give each goroutine its own.
type Searcher struct {
	cfg  Config
	seed uint64
	rng  rng
	intn func(int) int // rng.intn bound once, for RandomMover (no closure per call)

	root    *node
	rootPos game.Position // the root's position (a clone), to find the next root
	nodes   int           // nodes in the tree
	limit   int           // cfg.MaxNodes
	// listPlayouts ignores a RandomMover (benchmarks: the speed without it).
	listPlayouts bool

	// per search
	p        game.Position
	rs       ruleStatuser
	feat     MoveFeaturer
	rm       RandomMover // uniform playouts: draw one legal move at a time
	pm       PseudoMover // MAST playouts: draw from the pseudo-legal moves
	ctx      context.Context
	deadline time.Time
	stopped  bool
	rootSide uint8
	plies    int // playout plies this search

	buf     []game.Move // the playout's move list
	kidBuf  []game.Move // expansion's terminal checks
	weights []float64   // the Gibbs weights of a playout step
	codes   []int32     // the codes of a playout step
	rec     record
	pol     *policy
	wl      *winLoss
}

// New returns a searcher for cfg; seed seeds its random choices until the
// first NewGame.
func New(cfg Config, seed uint64) (*Searcher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Searcher{cfg: cfg, limit: cfg.MaxNodes, buf: make([]game.Move, 0, 256), kidBuf: make([]game.Move, 0, 256)}
	s.intn = s.rng.intn
	if s.limit == 0 {
		s.limit = DefaultMaxNodes
	}
	if cfg.policy() != polNone {
		s.pol = newPolicy(cfg)
	}
	if cfg.Algorithm == MR || cfg.Algorithm == MS || cfg.Algorithm == MB {
		s.wl = newWinLoss()
		s.wl.poll = s.poll
	}
	s.NewGame(seed)
	return s, nil
}

// Config returns the searcher's configuration.
func (s *Searcher) Config() Config { return s.cfg }

// NewGame forgets the tree and reseeds the random stream: after it, the
// same searches give the same results.
func (s *Searcher) NewGame(seed uint64) {
	s.seed = seed
	s.rng.seed(seed)
	s.root, s.rootPos, s.nodes = nil, nil, 0
}

// Child is one root move's statistics after a search.
type Child struct {
	Move   game.Move
	Visits int
	// Value is the mean result for the root player on [-1, 1] (0 when
	// unvisited).
	Value float64
	// Proven is +1 when the move is proven to win, -1 to lose (MCTS-Solver
	// family), else 0.
	Proven int
}

// Result is the outcome of a search.
type Result struct {
	Move game.Move
	// Playouts is the number of iterations this search ran (each ends in
	// one playout, or at a terminal or proven node).
	Playouts int
	// Visits counts the root's visits, those of reused earlier searches
	// included.
	Visits int
	// Value is the chosen move's mean result on [-1, 1] (+1 or -1 when
	// proven).
	Value float64
	// Proven is +1 when the root is a proven win, -1 a proven loss.
	Proven int
	// PlayoutPlies counts the moves played in playouts (tree moves not
	// included); PlayoutPlies/Playouts is the mean playout length.
	PlayoutPlies int
	// Nodes is the size of the tree.
	Nodes    int
	Time     time.Duration
	Children []Child
}

// ErrGameOver is returned for a position without legal moves.
var ErrGameOver = errors.New("rollout: the game is over")

// Search searches p within the configured budget and returns the move to
// play. p is played on and restored. When ctx ends the search stops and
// returns the best move so far with ctx's error. With Config.Reuse the tree
// of the previous search is kept when p is its root position or follows
// it by one or two moves.
func (s *Searcher) Search(ctx context.Context, p game.Position) (Result, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := s.prepare(ctx, p); err != nil {
		return Result{}, err
	}
	if s.cfg.MoveTime > 0 {
		s.deadline = start.Add(s.cfg.MoveTime)
	}
	s.reroot(p)

	root := s.root
	moves, over, _ := s.gen(p, &s.buf)
	if over {
		return Result{}, fmt.Errorf("%w in %s", ErrGameOver, p)
	}
	if root.kids == nil {
		s.expandWith(root, moves)
	}
	if root.proof != 0 {
		s.proveRoot(root, p)
	}
	playouts := 0
	if len(root.kids) > 1 {
		for !s.done(playouts) {
			s.iterate(root, p)
			playouts++
		}
	}
	res := s.result(root)
	res.Playouts, res.PlayoutPlies, res.Time = playouts, s.plies, time.Since(start)
	s.p, s.ctx, s.feat, s.rm = nil, nil, nil, nil
	if s.cfg.Reuse {
		s.rootPos = p.Clone()
	} else {
		s.root, s.rootPos, s.nodes = nil, nil, 0
	}
	return res, ctx.Err()
}

// prepare sets up the per-search state for p.
func (s *Searcher) prepare(ctx context.Context, p game.Position) error {
	s.feat = nil
	if s.cfg.features() {
		f, ok := p.(MoveFeaturer)
		if !ok {
			return fmt.Errorf("rollout: %s needs move features, which %s positions do not provide", s.cfg.Algorithm, p.Game())
		}
		s.feat = f
	}
	s.p = p
	s.rs, _ = p.(ruleStatuser)
	s.rm, s.pm = nil, nil
	if s.pol == nil && s.cfg.Algorithm != MR && !s.listPlayouts {
		s.rm, _ = p.(RandomMover)
	}
	if s.pol != nil && s.pol.kind == polMAST && !s.listPlayouts {
		s.pm, _ = p.(PseudoMover)
	}
	if s.wl != nil {
		s.wl.rs = s.rs
	}
	s.ctx = ctx
	s.deadline = time.Time{}
	s.stopped = false
	s.plies = 0
	s.rootSide = uint8(p.SideToMove())
	if s.pol != nil {
		s.pol.reset()
	}
	return nil
}

// winner turns an iteration's result for the root player into the
// winning side for adapt: 0 or 1, -1 for a draw.
func (s *Searcher) winner(r int8) int {
	switch r {
	case vWin:
		return int(s.rootSide)
	case vLoss:
		return int(s.rootSide ^ 1)
	}
	return -1
}

// proveRoot makes a proven root's proof usable for the move choice. A
// node proven by the hybrids' minimax (MCTS-MS at the node, MCTS-MB from
// its parent) holds no child proof; as the root of a reused tree it needs
// one. A win gets the child that the minimax proves lost for the
// opponent; a loss that not every child shows is forgotten, so that the
// search runs and finds the most resisting move.
func (s *Searcher) proveRoot(root *node, p game.Position) {
	lost := 0
	for i := range root.kids {
		switch root.kids[i].proof {
		case -1:
			return
		case 1:
			lost++
		}
	}
	if root.proof == -1 && lost == len(root.kids) {
		return
	}
	if root.proof == 1 && s.wl != nil {
		for i := range root.kids {
			k := &root.kids[i]
			if k.proof != 0 {
				continue
			}
			p.Make(k.move)
			v := s.wl.value(p, s.cfg.Depth-1)
			p.Unmake()
			if v == -1 && !s.wl.aborted {
				k.proof = -1
				return
			}
		}
	}
	root.proof = 0
}

// done reports whether the budget is spent, the root is proven or the
// search was stopped.
func (s *Searcher) done(playouts int) bool {
	if s.root.proof != 0 {
		return true
	}
	if s.cfg.Playouts > 0 && playouts >= s.cfg.Playouts {
		return true
	}
	if playouts&7 == 0 {
		s.poll()
	}
	return s.stopped
}

// poll checks the context and the deadline; it reports whether to stop.
func (s *Searcher) poll() bool {
	if !s.stopped {
		select {
		case <-s.ctx.Done():
			s.stopped = true
		default:
			if !s.deadline.IsZero() && !time.Now().Before(s.deadline) {
				s.stopped = true
			}
		}
	}
	return s.stopped
}

// reroot makes s.root the node of p: the old root when p is its position,
// a child or grandchild when p follows it by one or two moves
// (game.PathBelow), else a fresh node.
func (s *Searcher) reroot(p game.Position) {
	old, pos := s.root, s.rootPos
	s.root, s.rootPos = nil, nil
	if s.cfg.Reuse && old != nil && pos != nil {
		if path, ok := game.PathBelow(pos, p, 2); ok {
			n := old
			for _, m := range path {
				n = n.kid(m)
				if n == nil {
					break
				}
			}
			s.root = n
		}
	}
	if s.root == nil {
		s.root, s.nodes = &node{}, 0
		return
	}
	// A proof or terminal mark is relative to the path, which is the same;
	// the node becomes a root, whose first visit is not a playout.
	r := *s.root
	s.root = &r
	s.nodes = count(s.root)
}

// gen generates p's legal moves into *buf and reports whether the game is
// over and its result for the side to move.
func (s *Searcher) gen(p game.Position, buf *[]game.Move) ([]game.Move, bool, int8) {
	moves := p.GenerateMoves((*buf)[:0])
	*buf = moves
	if len(moves) == 0 {
		return moves, true, resultValue(p.Status().Result)
	}
	var st game.Status
	if s.rs != nil {
		st = s.rs.RuleStatus()
	} else {
		st = p.Status()
	}
	return moves, st.Over(), resultValue(st.Result)
}

// expandWith gives n a child per move.
func (s *Searcher) expandWith(n *node, moves []game.Move) {
	n.kids = make([]node, len(moves))
	for i, m := range moves {
		n.kids[i].move = m
	}
	s.nodes += len(moves)
}

// iterate runs one iteration from the root and adapts the policy.
func (s *Searcher) iterate(root *node, p game.Position) {
	var r int8
	if s.cfg.solver() {
		r = s.solve(root, p, true)
		if r == provenWin || r == provenLoss {
			return
		}
	} else {
		if s.pol != nil {
			s.rec.reset()
		}
		r = s.descend(root, p)
		if s.pol != nil {
			s.pol.adapt(&s.rec, s.winner(r))
		}
	}
	root.n++
	root.w += halfPoints(-r)
}

// descend is one UCT iteration below n (Xiangqi thesis, Alg. 2): a node's
// first visit is a playout from it, later visits expand it and go down the
// child of greatest UCT value. It returns the result for n's side to move.
func (s *Searcher) descend(n *node, p game.Position) int8 {
	if n.flags&flagTerminal != 0 {
		return n.term
	}
	if n.n == 0 && n != s.root || n.kids == nil && s.nodes >= s.limit {
		r, atStart := s.playout(p)
		if atStart {
			n.flags |= flagTerminal
			n.term = r
		}
		return r
	}
	if n.kids == nil {
		moves, over, r := s.gen(p, &s.buf)
		if over {
			n.flags |= flagTerminal
			n.term = r
			return r
		}
		s.expandWith(n, moves)
	}
	k := s.selectUCT(n)
	if s.pol != nil {
		s.recordTree(p, n, k)
	}
	p.Make(k.move)
	r := -s.descend(k, p)
	p.Unmake()
	k.n++
	k.w += halfPoints(r)
	return r
}

// solve is one MCTS-Solver iteration below n (Catch the Lion thesis,
// Listing 2.3, with MCTS-MS's and MCTS-MB's searches, Listings 2.5 and
// 2.6). It returns the result for n's side to move, provenWin or
// provenLoss when n is proven.
func (s *Searcher) solve(n *node, p game.Position, isRoot bool) int8 {
	switch n.proof {
	case 1:
		return provenWin
	case -1:
		return provenLoss
	}
	if n.flags&flagTerminal != 0 {
		return n.term
	}
	if n.n == 0 && !isRoot || n.kids == nil && s.nodes >= s.limit && !isRoot {
		r, atStart := s.playout(p)
		if atStart {
			return s.markTerminal(n, r)
		}
		return r
	}
	if n.kids == nil {
		moves, over, r := s.gen(p, &s.buf)
		if over {
			return s.markTerminal(n, r)
		}
		s.expandWith(n, moves)
	}
	if n.flags&flagChecked == 0 {
		// First expansion: does the side to move win at once, or lose
		// whatever it plays?
		n.flags |= flagChecked
		if r := s.checkKids(n, p); r != 0 {
			return r
		}
	}
	if s.cfg.Algorithm == MS && !isRoot && n.flags&flagMS == 0 && int(n.n) >= s.cfg.Threshold {
		n.flags |= flagMS
		if v := s.wl.value(p, s.cfg.Depth); !s.wl.aborted && v != 0 {
			n.proof = v
			if v > 0 {
				return provenWin
			}
			return provenLoss
		}
	}
	k := s.selectSolver(n)
	if k == nil {
		n.proof = -1
		return provenLoss
	}
	p.Make(k.move)
	r := -s.solve(k, p, false)
	p.Unmake()
	switch r {
	case provenWin:
		n.proof = 1
		return provenWin
	case provenLoss:
		// k is won for the opponent: n is lost only if every child is.
		if s.cfg.Algorithm == MB {
			if v := s.minimaxSiblings(n, p); v != 0 {
				return v
			}
		}
		for i := range n.kids {
			if n.kids[i].proof != 1 {
				return vLoss
			}
		}
		n.proof = -1
		return provenLoss
	}
	k.n++
	k.w += halfPoints(r)
	return r
}

// markTerminal records that the game is over at n with result r for its
// side to move: a proof for a win or loss, a plain terminal for a draw.
func (s *Searcher) markTerminal(n *node, r int8) int8 {
	n.flags |= flagTerminal
	n.term = r
	switch r {
	case vWin:
		n.proof = 1
		return provenWin
	case vLoss:
		n.proof = -1
		return provenLoss
	}
	return r
}

// checkKids makes every child move once and marks the children where the
// game is over. It returns provenWin when a move wins at once
// (playerToMoveWins), provenLoss when every move loses at once
// (playerToMoveLoses), else 0.
func (s *Searcher) checkKids(n *node, p game.Position) int8 {
	lost := 0
	for i := range n.kids {
		k := &n.kids[i]
		if k.flags&flagTerminal == 0 && k.proof == 0 {
			p.Make(k.move)
			_, over, r := s.gen(p, &s.kidBuf)
			p.Unmake()
			if over {
				s.markTerminal(k, r)
			}
		}
		switch k.proof {
		case -1:
			n.proof = 1
			return provenWin
		case 1:
			lost++
		}
	}
	if lost == len(n.kids) {
		n.proof = -1
		return provenLoss
	}
	return 0
}

// minimaxSiblings is MCTS-MB's step (Listing 2.6) after a child of n was
// proven won for the opponent: each unproven sibling is searched to the
// configured depth once. A sibling lost for its side to move proves n won
// (provenWin); one won for its side to move is marked and the next is
// tried; the first undecided one ends the step (0: back up a loss).
func (s *Searcher) minimaxSiblings(n *node, p game.Position) int8 {
	for i := range n.kids {
		k := &n.kids[i]
		if k.proof != 0 {
			continue
		}
		if k.flags&flagMB != 0 {
			return 0
		}
		k.flags |= flagMB
		p.Make(k.move)
		v := s.wl.value(p, s.cfg.Depth)
		p.Unmake()
		if s.wl.aborted {
			k.flags &^= flagMB
			return 0
		}
		switch v {
		case 1:
			k.proof = 1
		case -1:
			k.proof = -1
			n.proof = 1
			return provenWin
		default:
			return 0
		}
	}
	return 0
}

// recordTree notes a tree move for the policy's adapt: the side to move,
// the chosen move's code and (PPA kinds) the codes of all legal moves.
func (s *Searcher) recordTree(p game.Position, n, k *node) {
	pl := uint8(p.SideToMove())
	if s.pol.kind == polMAST {
		s.rec.plies = append(s.rec.plies, plyRec{player: pl, chosen: s.code(k.move)})
		return
	}
	off := len(s.rec.codes)
	var chosen int32
	for i := range n.kids {
		c := s.code(n.kids[i].move)
		if &n.kids[i] == k {
			chosen = c
		}
		s.rec.codes = append(s.rec.codes, c)
	}
	s.rec.plies = append(s.rec.plies, plyRec{player: pl, chosen: chosen, off: int32(off), n: int32(len(n.kids))})
}

// code returns the policy code of m in the current position: its own code,
// times four plus the features for PPAF and PPAFP.
func (s *Searcher) code(m game.Move) int32 {
	c := moveCode(m)
	if s.feat != nil {
		c = c<<2 | int32(s.feat.MoveFeatures(m)&3)
	}
	return c
}

// playout plays from p to the end of the game or the playout cap and
// returns the result for the side to move at p, and whether the game was
// already over at p. p is restored.
func (s *Searcher) playout(p game.Position) (int8, bool) {
	switch {
	case s.rm != nil:
		return s.playoutUniform(p)
	case s.pm != nil:
		return s.playoutPseudo(p)
	}
	made := 0
	var r int8
	for {
		moves, over, res := s.gen(p, &s.buf)
		if over {
			r = res
			break
		}
		if s.cfg.PlayoutCap > 0 && made >= s.cfg.PlayoutCap {
			r = vDraw
			break
		}
		var i int
		switch {
		case s.pol != nil:
			i = s.gibbs(p, moves)
		case s.cfg.Algorithm == MR:
			i = s.wl.pick(p, moves, s.cfg.Depth, &s.rng)
		default:
			i = s.rng.intn(len(moves))
		}
		p.Make(moves[i])
		made++
	}
	return s.unwind(p, made, r)
}

// unwind takes back the made playout plies and returns r, the result for
// the side to move at the playout's end, from the side to move at its
// start, and whether nothing was played.
func (s *Searcher) unwind(p game.Position, made int, r int8) (int8, bool) {
	if made&1 == 1 {
		r = -r
	}
	for range made {
		p.Unmake()
	}
	s.plies += made
	return r, made == 0
}

// ended reports whether the game is over at p and its result for the
// side to move, for the playouts that do not generate every legal move: a
// position without a legal move is lost (Status) before the rules that do
// not depend on the moves (RuleStatus) decide.
func (s *Searcher) ended(p game.Position) (int8, bool) {
	var st game.Status
	if s.rs != nil {
		if st = s.rs.RuleStatus(); st.Over() {
			st = p.Status()
		}
	} else {
		st = p.Status()
	}
	return resultValue(st.Result), st.Over()
}

// playoutUniform is playout with uniformly random moves drawn by the
// position's RandomMover: the same distribution of playouts without
// generating every legal move at every step. Game endings are gen's
// (ended), then the playout cap. The random stream is read only for the
// moves played (one RandomMove each), as in playout.
func (s *Searcher) playoutUniform(p game.Position) (int8, bool) {
	made := 0
	var r int8
	for {
		var over bool
		if r, over = s.ended(p); over {
			break
		}
		if s.cfg.PlayoutCap > 0 && made >= s.cfg.PlayoutCap {
			// A draw unless there is no legal move (looked up without
			// reading the random stream).
			r = vDraw
			if _, ok := s.rm.RandomMove(firstIndex); !ok {
				r = resultValue(p.Status().Result)
			}
			break
		}
		m, ok := s.rm.RandomMove(s.intn)
		if !ok {
			r = resultValue(p.Status().Result)
			break
		}
		p.Make(m)
		made++
	}
	return s.unwind(p, made, r)
}

// playoutPseudo is playout for MAST through the position's PseudoMover:
// the same distribution of playouts (gibbsPseudo) without testing every
// move for legality at every step. Game endings are playoutUniform's.
func (s *Searcher) playoutPseudo(p game.Position) (int8, bool) {
	made := 0
	var r int8
	for {
		var over bool
		if r, over = s.ended(p); over {
			break
		}
		moves := s.pm.PseudoMoves(s.buf[:0])
		s.buf = moves
		if s.cfg.PlayoutCap > 0 && made >= s.cfg.PlayoutCap {
			r = vDraw
			if !s.anyLegal(moves) {
				r = resultValue(p.Status().Result)
			}
			break
		}
		i := s.gibbsPseudo(p, moves)
		if i < 0 {
			r = resultValue(p.Status().Result)
			break
		}
		p.Make(moves[i])
		made++
	}
	return s.unwind(p, made, r)
}

// anyLegal reports whether one of the pseudo-legal moves is legal.
func (s *Searcher) anyLegal(moves []game.Move) bool {
	for _, m := range moves {
		if s.pm.LegalPseudo(m) {
			return true
		}
	}
	return false
}

// gibbsPseudo draws a legal move from the pseudo-legal moves with
// probability proportional to its Gibbs weight, records it as gibbs does
// (MAST) and returns its index in moves, or -1 when no move is legal.
// An illegal draw is removed and the draw repeated among the rest. Its
// result is exact: by induction on the number of illegal moves left, a
// legal move m is the first legal one drawn with probability
// w_m/W_S + sum over illegal i of (w_i/W_S)(w_m/W_L) = w_m/W_L, where W_S
// is the weight of the moves left and W_L that of the legal ones. moves
// is reordered.
func (s *Searcher) gibbsPseudo(p game.Position, moves []game.Move) int {
	pl := uint8(p.SideToMove())
	ws := s.weights[:0]
	for _, m := range moves {
		ws = append(ws, s.pol.gibbs(pl, moveCode(m)))
	}
	s.weights = ws
	for n := len(moves); n > 0; n-- {
		sum := 0.0
		for _, w := range ws[:n] {
			sum += w
		}
		x := s.rng.float64() * sum
		i := 0
		for ; i < n-1; i++ {
			x -= ws[i]
			if x < 0 {
				break
			}
		}
		if s.pm.LegalPseudo(moves[i]) {
			s.rec.plies = append(s.rec.plies, plyRec{player: pl, chosen: moveCode(moves[i])})
			return i
		}
		moves[i], moves[n-1] = moves[n-1], moves[i]
		ws[i], ws[n-1] = ws[n-1], ws[i]
	}
	return -1
}

// firstIndex is a RandomMover's intn that always picks the first
// candidate: a test for a legal move that reads no random numbers.
func firstIndex(int) int { return 0 }

// gibbs draws a move with probability proportional to exp(k*policy[code])
// (Alg. 6) and records the step for adapt.
func (s *Searcher) gibbs(p game.Position, moves []game.Move) int {
	pl := uint8(p.SideToMove())
	ws, codes := s.weights[:0], s.codes[:0]
	sum := 0.0
	for _, m := range moves {
		c := s.code(m)
		w := s.pol.gibbs(pl, c)
		codes = append(codes, c)
		ws = append(ws, w)
		sum += w
	}
	s.weights, s.codes = ws, codes
	x := s.rng.float64() * sum
	i := 0
	for ; i < len(ws)-1; i++ {
		x -= ws[i]
		if x < 0 {
			break
		}
	}
	if s.pol.kind == polMAST {
		s.rec.plies = append(s.rec.plies, plyRec{player: pl, chosen: codes[i]})
	} else {
		off := len(s.rec.codes)
		s.rec.codes = append(s.rec.codes, codes...)
		s.rec.plies = append(s.rec.plies, plyRec{player: pl, chosen: codes[i], off: int32(off), n: int32(len(codes))})
	}
	return i
}

// result builds the search result from the root's children.
func (s *Searcher) result(root *node) Result {
	res := Result{Visits: int(root.n), Proven: int(root.proof), Nodes: s.nodes}
	var best *node
	if s.cfg.solver() {
		best = s.secureChild(root)
	} else {
		best = mostVisited(root)
	}
	res.Move = best.move
	res.Value = childValue(best)
	res.Children = make([]Child, len(root.kids))
	for i := range root.kids {
		k := &root.kids[i]
		res.Children[i] = Child{Move: k.move, Visits: int(k.n), Value: childValue(k), Proven: -int(k.proof)}
	}
	return res
}

// childValue is a child's mean result for its mover on [-1, 1], the proof
// when it has one.
func childValue(k *node) float64 {
	switch {
	case k.proof != 0:
		return -float64(k.proof)
	case k.n == 0:
		return 0
	}
	return 2*k.rate() - 1
}
