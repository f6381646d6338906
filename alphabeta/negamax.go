package alphabeta

import (
	"math"

	"github.com/tabula-zero/tabula/game"
)

// Ordering score bands: TT move, then captures by v = c*m - f (MVV-LVA
// with m = 16 >= the largest value ratio, so every capture comes before
// every quiet move), then killers, then history, then the captures that
// lose material by static exchange evaluation (negative scores).
const (
	orderTT         = 1 << 30
	orderCapture    = 1 << 24
	orderKiller     = 1 << 22
	orderBadCapture = -orderCapture
	captureM        = 16
)

// enter does what every node does first: count it, poll the limits, and
// score it at once when the search is stopped, a rule ends the game or
// the ply limit is reached.
func (s *Searcher) enter(ply int) (int, bool) {
	s.pvLen[ply] = ply
	if ply > s.seldepth {
		s.seldepth = ply
	}
	s.nodes++
	if s.nodes&1023 == 0 {
		s.poll()
	}
	if s.aborted {
		return 0, true
	}
	if ply > 0 {
		if st := s.p.RuleStatus(); st.Over() {
			return resultScore(st.Result, ply), true
		}
	}
	if ply >= MaxPly-1 {
		return s.p.Evaluate(), true
	}
	return 0, false
}

// search is the negamax core, fail-soft (or fail-hard for that
// algorithm), with PVS's null windows when selected.
func (s *Searcher) search(alpha, beta, depth, ply int, nullOK bool) int {
	if v, done := s.enter(ply); done {
		return v
	}
	p := s.p
	inCheck := p.InCheck()
	if inCheck && s.opts.CheckExtension && ply < MaxPly/2 {
		depth++
	}
	if depth <= 0 {
		return s.leaf(alpha, beta, ply)
	}
	alphaOrig := alpha
	key := p.Key()
	// A singular-extension search of this node leaves excluded out; the
	// table speaks for all moves, so it neither cuts nor is written then.
	excluded := s.excluded[ply]
	var ttMove game.Move
	e, ttHit := s.tt.probe(key)
	if ttHit {
		ttMove = game.Move(e.move)
		d := int(e.depth)
		if ply > 0 && excluded == game.NoMove && (d == depth || (d > depth && !s.opts.ExactDepthTT)) {
			sc := fromTT(int(e.score), ply)
			switch e.bound() {
			case boundExact:
				return sc
			case boundLower:
				if sc >= beta {
					return sc
				}
			case boundUpper:
				if sc <= alpha {
					return sc
				}
			}
		}
	}

	// Shallow non-PV nodes out of check may be pruned on the static
	// evaluation (computed once here).
	pvNode := beta-alpha > 1
	prune := !pvNode && !inCheck && ply > 0
	eval := 0
	if prune {
		eval = p.Evaluate()
	}
	nullOK = nullOK && excluded == game.NoMove
	if prune && excluded == game.NoMove && s.opts.ReverseFutility && depth <= rfpDepth && beta < mateBound && beta > -mateBound && eval-rfpMargin*depth >= beta {
		return eval
	}

	// Null move: if passing still fails high, a real move will too.
	if s.nm != nil && nullOK && prune && depth >= 3 && beta < mateBound && beta > -mateBound && eval >= beta && s.nm.NullMoveOK() {
		r := 3 + depth/4 + min((eval-beta)/200, 3)
		s.nm.MakeNull()
		v := -s.search(-beta, -beta+1, depth-1-r, ply+1, false)
		s.nm.UnmakeNull()
		if s.aborted {
			return 0
		}
		if v >= beta {
			if v > mateBound {
				v = beta
			}
			// Deep null-move cutoffs are verified by a reduced search
			// without null moves (zugzwang-like positions).
			if depth < nullVerifyDepth {
				return v
			}
			w := s.search(beta-1, beta, depth-1-r, ply, false)
			if s.aborted {
				return 0
			}
			if w >= beta {
				return v
			}
		}
	}

	// Singular extension, before this node's moves are generated: the
	// search without the table move runs at the same ply and reuses its
	// buffers.
	ttExt := 0
	if s.opts.Singular && ply > 0 && ply < MaxPly/2 && excluded == game.NoMove && ttHit && ttMove != game.NoMove &&
		depth >= singularDepth && e.bound()&boundLower != 0 && int(e.depth) >= depth-3 {
		if ttScore := fromTT(int(e.score), ply); ttScore > -mateBound && ttScore < mateBound {
			sBeta := ttScore - singularMargin*depth
			s.excluded[ply] = ttMove
			v := s.search(sBeta-1, sBeta, (depth-1)/2, ply, false)
			s.excluded[ply] = game.NoMove
			s.pvLen[ply] = ply // its line is not this node's
			if s.aborted {
				return 0
			}
			if v < sBeta {
				ttExt = 1
			} else if sBeta >= beta {
				return sBeta
			}
		}
	}

	moves := p.GenerateMoves(s.moves[ply][:0])
	s.moves[ply] = moves
	if len(moves) == 0 {
		return resultScore(p.Status().Result, ply)
	}
	scores := s.scores[ply][:len(moves)]
	s.order(moves, scores, ply, ttMove)

	best, bestMove := -Infinity, game.NoMove
	for i := range moves {
		m := pick(moves, scores, i)
		if m == excluded {
			continue
		}
		captured, _ := p.MoveValues(m)
		quiet := captured == 0
		killer := m == s.killers[ply][0] || m == s.killers[ply][1]
		p.Make(m)
		givesCheck := p.InCheck()
		// Futility and late-move pruning: a quiet move that gives no
		// check cannot lift this shallow node to alpha. Not once alpha is
		// a mate: a quiet move may mate sooner, and no margin says so.
		if prune && quiet && i > 0 && !givesCheck && !killer && best > -mateBound && alpha < mateBound {
			if s.opts.Futility && depth <= futilityDepth && eval+futilityMargin*depth <= alpha {
				p.Unmake()
				best = max(best, eval+futilityMargin*depth)
				continue
			}
			if s.opts.LateMovePruning && depth <= lmpDepth && i >= lmpMoves(depth) {
				p.Unmake()
				continue
			}
		}
		// At the root a blend's bonus shifts the move's window (lo, hi)
		// and is added back: the search maximises score + bonus.
		lo, hi, bonus := alpha, beta, 0
		if ply == 0 && s.rootBonus != nil {
			bonus = int(math.Round(min(s.rootBonus(m), MaxRootBonus)))
			lo = max(alpha-bonus, -Infinity)
			hi = max(beta-bonus, lo+1)
		}
		var score int
		if best == -Infinity {
			ext := 0
			if m == ttMove {
				ext = ttExt
			}
			score = -s.search(-hi, -lo, depth-1+ext, ply+1, true)
		} else {
			r := 0
			// No reductions once alpha is a mate: a reduced search cannot
			// see the shorter mate it would have to beat.
			if s.opts.LMR && depth >= 3 && i >= 2 && quiet && !inCheck && !givesCheck && alpha < mateBound {
				r = lmrTable[min(depth, lmrMax-1)][min(i, lmrMax-1)]
				if pvNode {
					r--
				}
				if killer {
					r--
				}
				r = max(0, min(r, depth-2))
			}
			researched := false
			if r > 0 {
				score = -s.search(-lo-1, -lo, depth-1-r, ply+1, true)
				researched = score > lo
			}
			if r == 0 || researched {
				if s.pvs {
					score = -s.search(-lo-1, -lo, depth-1, ply+1, true)
					if score > lo && score < hi {
						score = -s.search(-hi, -lo, depth-1, ply+1, true)
					}
				} else {
					score = -s.search(-hi, -lo, depth-1, ply+1, true)
				}
			}
		}
		if bonus != 0 && !IsMate(score) {
			// A mate needs none (it outweighs any), and a bonus never
			// makes a score look like one.
			score = min(score+bonus, mateBound)
		}
		p.Unmake()
		if s.aborted {
			return 0
		}
		if score > best {
			best, bestMove = score, m
			if score > alpha {
				alpha = score
				if ply == 0 {
					s.rootBest, s.rootScore = m, score
				}
				s.pv[ply][ply] = m
				copy(s.pv[ply][ply+1:s.pvLen[ply+1]], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
				s.pvLen[ply] = max(s.pvLen[ply+1], ply+1)
				if alpha >= beta {
					if quiet {
						if s.killers[ply][0] != m {
							s.killers[ply][1] = s.killers[ply][0]
							s.killers[ply][0] = m
						}
						s.rewardHistory(m, depth)
					}
					break
				}
			}
		}
	}
	if s.failHard {
		best = max(min(best, beta), alphaOrig)
	}
	if excluded != game.NoMove {
		return best
	}
	bound := uint8(boundExact)
	if best <= alphaOrig {
		bound = boundUpper
	} else if best >= beta {
		bound = boundLower
	}
	s.tt.store(key, bestMove, toTT(best, ply), depth, bound)
	return best
}

// rewardHistory credits quiet move m with a cutoff at depth.
func (s *Searcher) rewardHistory(m game.Move, depth int) {
	h := &s.history[int(m)&(historySize-1)]
	*h = min(*h+int32(depth*depth), orderKiller-1)
}

// Pruning parameters, in the evaluation's centi-units (a Xiangqi soldier
// is 100).
const (
	rfpDepth        = 6
	rfpMargin       = 120
	futilityDepth   = 3
	futilityMargin  = 150
	lmpDepth        = 3
	nullVerifyDepth = 12
	deltaMargin     = 200
	lmrMax          = 64
	// Singular extensions from this depth on, against the table score
	// less singularMargin per ply.
	singularDepth  = 6
	singularMargin = 2
)

// lmpMoves is the number of moves searched at depth before late-move
// pruning starts.
func lmpMoves(depth int) int { return 3 + depth*depth }

// lmrTable[d][i] is the reduction of the i-th move at depth d: about
// ln(d)*ln(i)/2, as Stockfish-family engines reduce.
var lmrTable = func() (t [lmrMax][lmrMax]int) {
	for d := 1; d < lmrMax; d++ {
		for i := 1; i < lmrMax; i++ {
			t[d][i] = int(0.5 + math.Log(float64(d))*math.Log(float64(i))/2)
		}
	}
	return t
}()

// leaf scores a horizon node: quiescence search, or the static evaluation.
func (s *Searcher) leaf(alpha, beta, ply int) int {
	if s.opts.Quiescence {
		return s.quiesce(alpha, beta, ply, s.qc != nil)
	}
	return s.p.Evaluate()
}

// quiesce searches captures (all moves in check) until the position is
// quiet; standing pat on the static evaluation when not in check. With
// checks (its first ply under QSChecks) it then tries the quiet checks.
func (s *Searcher) quiesce(alpha, beta, ply int, checks bool) int {
	if v, done := s.enter(ply); done {
		return v
	}
	p := s.p
	alphaOrig := alpha
	inCheck := p.InCheck()
	best := -Infinity
	if !inCheck {
		if ms, ok := p.(MoveShortage); ok && ms.FewMoves() && len(p.GenerateMoves(s.moves[ply][:0])) == 0 {
			return resultScore(p.Status().Result, ply)
		}
		best = p.Evaluate()
		if best >= beta {
			if s.failHard {
				return beta
			}
			return best
		}
		alpha = max(alpha, best)
	}
	moves := p.GenerateCaptures(s.moves[ply][:0])
	s.moves[ply] = moves
	if len(moves) == 0 && (inCheck || len(p.GenerateMoves(s.moves[ply][:0])) == 0) {
		// No move at all: the side to move may have lost (stalemate loses
		// in Xiangqi). A position with a capture always has a move, so
		// this test is rare.
		return resultScore(p.Status().Result, ply)
	}
	scores := s.scores[ply][:len(moves)]
	s.order(moves, scores, ply, game.NoMove)
	for i := range moves {
		m := pick(moves, scores, i)
		if s.opts.DeltaPruning && !inCheck {
			if captured, _ := p.MoveValues(m); best+captured+deltaMargin <= alpha {
				continue
			}
		}
		p.Make(m)
		// A capture that loses material by exchange is searched only when
		// it gives check: the exchange does not count the threat.
		if scores[i] < 0 && !inCheck && !p.InCheck() {
			p.Unmake()
			continue
		}
		if s.quiesceChild(&alpha, &best, beta, ply) {
			break
		}
	}
	if checks && !inCheck && alpha < beta && !s.aborted {
		moves = s.qc.GenerateQuietChecks(s.moves[ply][:0])
		s.moves[ply] = moves
		for _, m := range moves {
			// A check that gives its piece away is a sacrifice, and
			// quiescence cannot tell a good one (Stockfish skips them too).
			if s.see != nil && s.see.SEE(m) < 0 {
				continue
			}
			p.Make(m)
			if s.quiesceChild(&alpha, &best, beta, ply) {
				break
			}
		}
	}
	if s.aborted {
		return 0
	}
	if s.failHard {
		best = max(min(best, beta), alphaOrig)
	}
	return best
}

// quiesceChild searches the move just made at ply in quiescence, takes
// it back, and raises best and alpha; it reports a cutoff or an abort.
func (s *Searcher) quiesceChild(alpha, best *int, beta, ply int) bool {
	score := -s.quiesce(-beta, -*alpha, ply+1, false)
	s.p.Unmake()
	if s.aborted {
		return true
	}
	if score > *best {
		*best = score
		*alpha = max(*alpha, score)
	}
	return *alpha >= beta
}

// order scores the moves for pick.
func (s *Searcher) order(moves []game.Move, scores []int32, ply int, ttMove game.Move) {
	k0, k1 := s.killers[ply][0], s.killers[ply][1]
	for i, m := range moves {
		var v int32
		switch captured, mover := s.p.MoveValues(m); {
		case m == ttMove:
			v = orderTT
		case captured > 0:
			v = orderCapture + int32(captured*captureM-mover)
			// Only a capture by a more valuable piece can lose material.
			if captured < mover && s.see != nil && s.see.SEE(m) < 0 {
				v += orderBadCapture - orderCapture
			}
		case m == k0:
			v = orderKiller + 1
		case m == k1:
			v = orderKiller
		default:
			v = s.history[int(m)&(historySize-1)]
			if s.qo != nil {
				v = int32(s.qo.QuietScore(m))<<12 + min(v, 1<<12-1)
			}
		}
		scores[i] = v
	}
}

// pick moves the best-scored remaining move to index i (selection sort:
// cut-offs usually come early, so sorting everything would be wasted).
func pick(moves []game.Move, scores []int32, i int) game.Move {
	b := i
	for j := i + 1; j < len(moves); j++ {
		if scores[j] > scores[b] {
			b = j
		}
	}
	moves[i], moves[b] = moves[b], moves[i]
	scores[i], scores[b] = scores[b], scores[i]
	return moves[i]
}
