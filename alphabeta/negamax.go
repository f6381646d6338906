package alphabeta

import "github.com/tabula-zero/tabula/game"

// Ordering score bands: TT move, then captures by v = c*m - f (MVV-LVA
// with m = 16 >= the largest value ratio, so every capture comes before
// every quiet move), then killers, then history.
const (
	orderTT      = 1 << 30
	orderCapture = 1 << 24
	orderKiller  = 1 << 22
	captureM     = 16
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
	var ttMove game.Move
	if e, ok := s.tt.probe(key); ok {
		ttMove = game.Move(e.move)
		d := int(e.depth)
		if ply > 0 && (d == depth || (d > depth && !s.opts.ExactDepthTT)) {
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

	// Null move: if passing still fails high, a real move will too.
	if s.nm != nil && nullOK && !inCheck && ply > 0 && depth >= 3 && beta < mateBound && beta > -mateBound && s.nm.NullMoveOK() && p.Evaluate() >= beta {
		r := 2 + depth/4
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
			return v
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
		captured, _ := p.MoveValues(m)
		quiet := captured == 0
		p.Make(m)
		var score int
		if i == 0 {
			score = -s.search(-beta, -alpha, depth-1, ply+1, true)
		} else {
			r := 0
			if s.opts.LMR && depth >= 3 && i >= 3 && quiet && !inCheck && m != s.killers[ply][0] && m != s.killers[ply][1] && !p.InCheck() {
				r = 1
				if i >= 8 && depth >= 5 {
					r = 2
				}
			}
			researched := false
			if r > 0 {
				score = -s.search(-alpha-1, -alpha, depth-1-r, ply+1, true)
				researched = score > alpha
			}
			if r == 0 || researched {
				if s.pvs {
					score = -s.search(-alpha-1, -alpha, depth-1, ply+1, true)
					if score > alpha && score < beta {
						score = -s.search(-beta, -alpha, depth-1, ply+1, true)
					}
				} else {
					score = -s.search(-beta, -alpha, depth-1, ply+1, true)
				}
			}
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
						h := &s.history[int(m)&(historySize-1)]
						*h = min(*h+int32(depth*depth), orderKiller-1)
					}
					break
				}
			}
		}
	}
	if s.failHard {
		best = max(min(best, beta), alphaOrig)
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

// leaf scores a horizon node: quiescence search, or the static evaluation.
func (s *Searcher) leaf(alpha, beta, ply int) int {
	if s.opts.Quiescence {
		return s.quiesce(alpha, beta, ply)
	}
	return s.p.Evaluate()
}

// quiesce searches captures (all moves in check) until the position is
// quiet; standing pat on the static evaluation when not in check.
func (s *Searcher) quiesce(alpha, beta, ply int) int {
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
	if len(moves) == 0 {
		// No captures: make sure there is a move at all, since a side
		// without moves may have lost (stalemate loses in Xiangqi). A
		// position with a capture always has a move, so this is rare.
		if inCheck || len(p.GenerateMoves(s.moves[ply][:0])) == 0 {
			return resultScore(p.Status().Result, ply)
		}
		if s.failHard {
			return max(min(best, beta), alphaOrig)
		}
		return best
	}
	scores := s.scores[ply][:len(moves)]
	s.order(moves, scores, ply, game.NoMove)
	for i := range moves {
		m := pick(moves, scores, i)
		p.Make(m)
		score := -s.quiesce(-beta, -alpha, ply+1)
		p.Unmake()
		if s.aborted {
			return 0
		}
		if score > best {
			best = score
			if score > alpha {
				alpha = score
				if alpha >= beta {
					break
				}
			}
		}
	}
	if s.failHard {
		best = max(min(best, beta), alphaOrig)
	}
	return best
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
