package alphabeta

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// Search runs iterative deepening on p within lim and returns the best move
// of the deepest completed iteration, or the partial iteration's move when
// it already scores better. info, if not nil, is called after each
// completed iteration. p is modified during the search and restored.
//
// With Options.Threads > 1 helper threads search copies of p meanwhile
// (Lazy SMP, helpers.go); they are stopped and joined before Search
// returns, the node limit bounds the nodes of all threads, and the
// result's move, score and PV are the main thread's.
func (s *Searcher) Search(ctx context.Context, p Position, lim Limits, info func(Info)) Result {
	s.prepare(ctx, p, lim)
	stopHelpers := s.startHelpers(p)
	maxDepth := MaxDepth
	if lim.Depth > 0 {
		maxDepth = min(lim.Depth, MaxDepth)
	}
	var res Result
	prev, stable := 0, 0
	for depth := 1; depth <= maxDepth; depth++ {
		s.rootBest, s.rootScore = game.NoMove, -Infinity
		score := s.root(depth, prev)
		if s.aborted {
			// The partial iteration's move counts when it has proved a score
			// above the last completed one.
			if s.rootBest != game.NoMove && (res.Move == game.NoMove || s.rootScore > res.Score) {
				res.Move, res.Score = s.rootBest, s.rootScore
				res.PV = []game.Move{s.rootBest}
			}
			break
		}
		prev = score
		if depth > 1 && s.rootBest == res.Move {
			stable++
		} else {
			stable = 0
		}
		res.Move, res.Score, res.Depth = s.rootBest, score, depth
		if res.Move == game.NoMove {
			res.Move = s.ttMove(p)
		}
		res.PV = s.principalVariation(p, depth)
		if info != nil {
			info(Info{Depth: depth, SelDepth: s.seldepth, Score: score, Nodes: s.Nodes(), Time: time.Since(s.start), PV: res.PV, Hashfull: s.tt.Hashfull()})
		}
		if res.Move == game.NoMove {
			break // no legal move: nothing deeper to find
		}
		if lim.MultiPV && lim.Time > 0 {
			// Scoring every root move costs 3-14 times the iteration
			// (Xiangqi openings) and varies too much to predict: score
			// each depth, and the clock keeps the last complete scores.
			rs := s.rootScores(depth, lim, s.rootBest)
			if s.aborted {
				break
			}
			res.RootScores, res.RootDepth = rs, depth
		}
		// A mate found within a full-width horizon cannot get shorter.
		// Forward pruning can hide a shorter mate (or a longer defence):
		// a full-width search of the mate's plies then settles its
		// distance, or deepening goes on.
		if k := Mate - abs(score); IsMate(score) && k <= depth {
			if s.opts.fullWidth() == s.opts {
				break
			}
			if k <= maxProofPlies {
				v, ok := s.proveMate(k)
				if s.aborted {
					break
				}
				if ok {
					res.Move, res.Score = s.rootBest, v
					res.PV = s.principalVariation(p, depth)
					if info != nil {
						info(Info{Depth: depth, SelDepth: s.seldepth, Score: v, Nodes: s.Nodes(), Time: time.Since(s.start), PV: res.PV, Hashfull: s.tt.Hashfull()})
					}
					break
				}
			}
		}
		if lim.SoftTime > 0 && time.Since(s.start) > softStop(lim.SoftTime, stable) {
			break
		}
	}
	stopHelpers()
	if res.Move == game.NoMove {
		// Stopped before depth 1 finished: any legal move beats none.
		if ms := p.GenerateMoves(nil); len(ms) > 0 {
			res.Move = ms[0]
		}
	}
	if lim.MultiPV && lim.Time == 0 && res.Depth > 0 && ctx.Err() == nil {
		// The depth and node limits no longer apply (the scores must be
		// complete), but a stop still does: then there are no root scores.
		s.aborted = false
		s.maxNodes = 0
		s.ctx = ctx
		res.RootScores, res.RootDepth = s.rootScores(res.Depth, lim, res.Move), res.Depth
		if s.aborted {
			res.RootScores, res.RootDepth = nil, 0
		}
	}
	res.Nodes, res.Time = s.Nodes(), time.Since(s.start)
	res.ThreadNodes = append(res.ThreadNodes, s.nodes)
	for _, h := range s.running {
		res.ThreadNodes = append(res.ThreadNodes, h.nodes)
	}
	return res
}

// maxProofPlies bounds the mates that proveMate settles: a full-width
// search grows with the branching factor to the plies (mate in 4 at most).
const maxProofPlies = 7

// proveMate searches the root full width (fullWidth, no null move) to
// the plies of a mate that the pruned search found, with a table of its
// own, and reports the score when it is a mate: its exact distance.
func (s *Searcher) proveMate(plies int) (int, bool) {
	opts, tt, nm := s.opts, s.tt, s.nm
	s.opts, s.nm = opts.fullWidth(), nil
	if s.proofTT == nil {
		s.proofTT = NewTT(proofHashMiB)
	} else {
		s.proofTT.Clear()
	}
	s.tt = s.proofTT
	s.rootBest, s.rootScore = game.NoMove, -Infinity
	score := s.search(-Infinity, Infinity, plies+1, 0, true)
	s.opts, s.tt, s.nm = opts, tt, nm
	return score, !s.aborted && s.rootBest != game.NoMove && IsMate(score)
}

// proofHashMiB sizes proveMate's table.
const proofHashMiB = 4

// softStop returns how much of the soft time may be gone for another
// iteration to start, given for how many iterations the best move has
// not changed. An iteration takes about as long as all before it, so
// one started after half of the budget would end near the budget's end:
// start it later than that only when the last iteration changed its
// mind, and stop sooner when the move has held (Stockfish's idea of
// best-move stability, in three steps).
func softStop(soft time.Duration, stable int) time.Duration {
	switch {
	case stable == 0:
		return soft * 7 / 10
	case stable >= 4:
		return soft * 3 / 10
	}
	return soft / 2
}

// root runs the selected algorithm at one depth; guess is the previous
// iteration's score (MTD(f)'s first guess).
func (s *Searcher) root(depth, guess int) int {
	switch s.algo {
	case algMTDF:
		return s.mtdf(depth, guess)
	case algNegaC, algNegaCOpt:
		return s.negaCStar(depth, s.algo == algNegaCOpt)
	}
	if !s.opts.Aspiration || depth < aspirationDepth || IsMate(guess) {
		return s.search(-Infinity, Infinity, depth, 0, true)
	}
	// Aspiration: a window around the previous score, widened on the side
	// that failed until the score falls inside.
	delta := aspirationWindow
	alpha, beta := max(guess-delta, -Infinity), min(guess+delta, Infinity)
	for {
		score := s.search(alpha, beta, depth, 0, true)
		switch {
		case s.aborted:
			return score
		case score <= alpha:
			alpha = max(score-delta, -Infinity)
		case score >= beta:
			beta = min(score+delta, Infinity)
		default:
			return score
		}
		delta *= 2
	}
}

// Aspiration windows start at iteration aspirationDepth, aspirationWindow
// either side of the previous score.
const (
	aspirationDepth  = 4
	aspirationWindow = 40
)

// mtdf converges on the value with null-window searches (Plaat).
func (s *Searcher) mtdf(depth, g int) int {
	lower, upper := -Infinity, Infinity
	for lower < upper && !s.aborted {
		beta := g
		if g == lower {
			beta = g + 1
		}
		g = s.search(beta-1, beta, depth, 0, true)
		if g < beta {
			upper = g
		} else {
			lower = g
		}
	}
	return g
}

// negaCStar bisects the value range with null-window searches (Coplan's
// C*); opt probes at half the bound first (Pons' optimisation, which finds
// large wins and losses sooner). Go's division truncates like C's, as the
// seed requires.
func (s *Searcher) negaCStar(depth int, opt bool) int {
	lo, hi := -Infinity, Infinity
	for lo < hi && !s.aborted {
		med := lo + (hi-lo)/2
		if opt {
			if med <= 0 && lo/2 < med {
				med = lo / 2
			} else if med >= 0 && hi/2 > med {
				med = hi / 2
			}
		}
		r := s.search(med, med+1, depth, 0, true)
		if r <= med {
			hi = r
		} else {
			lo = r
		}
	}
	return lo
}

// FixedDepth returns the root value of a fixed-depth search, with no
// iterative deepening (the equivalence invariant's measure).
func (s *Searcher) FixedDepth(p Position, depth int) (int, game.Move) {
	s.prepare(context.Background(), p, Limits{})
	s.rootBest = game.NoMove
	v := s.root(depth, 0)
	return v, s.rootBest
}

// Quiesce returns the quiescence search's value of p: the static
// evaluation once the captures (and check evasions) are resolved.
func (s *Searcher) Quiesce(p Position) int {
	s.prepare(context.Background(), p, Limits{})
	return s.quiesce(-Infinity, Infinity, 0, false)
}

// RootScores returns the exact score of every legal root move at depth
// (full-window searches one ply down, helped by the TT), best first.
func (s *Searcher) RootScores(depth int) []RootScore {
	return s.rootScores(depth, Limits{}, game.NoMove)
}

// rootScores scores every legal root move at depth, first (when legal)
// first. With lim.MultiPVMargin > 0 only the moves within the margin of
// the best are scored exactly: a null-window search shows each other move
// at most the best so far less the margin, and its score is that upper
// bound (Upper). A blend that adds at most the margin to a move's score
// needs no more, and the null windows cost a fraction of exact scores.
// With lim.RootBonus the bar of each move is its own: the best exact
// score plus bonus so far, less the move's bonus.
func (s *Searcher) rootScores(depth int, lim Limits, first game.Move) []RootScore {
	p := s.p
	moves := p.GenerateMoves(nil)
	if i := slices.Index(moves, first); i > 0 {
		moves[0], moves[i] = moves[i], moves[0]
	}
	out := make([]RootScore, 0, len(moves))
	best, bestV := -Infinity, math.Inf(-1)
	for _, m := range moves {
		p.Make(m)
		rs := RootScore{Move: m}
		bar := -Infinity
		switch {
		case lim.RootBonus != nil && best > -Infinity:
			// The largest score that keeps score + bonus below bestV.
			bar = min(int(math.Ceil(bestV-lim.RootBonus(m)))-1, Infinity-2)
		case lim.RootBonus == nil && lim.MultiPVMargin > 0:
			bar = best - lim.MultiPVMargin
		}
		if bar > -Infinity {
			rs.Score = -s.search(-bar-1, -bar, depth-1, 1, true)
			if rs.Upper = rs.Score <= bar; !rs.Upper {
				rs.Score = -s.search(-Infinity, -bar, depth-1, 1, true)
			}
		} else {
			rs.Score = -s.search(-Infinity, Infinity, depth-1, 1, true)
		}
		p.Unmake()
		if !rs.Upper {
			best = max(best, rs.Score)
			if lim.RootBonus != nil {
				bestV = max(bestV, float64(rs.Score)+lim.RootBonus(m))
			}
		}
		out = append(out, rs)
	}
	sortRootScores(out)
	return out
}

func sortRootScores(rs []RootScore) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].Score > rs[j-1].Score; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// ttMove returns the TT's move for p when it is legal.
func (s *Searcher) ttMove(p Position) game.Move {
	if e, ok := s.tt.probe(p.Key()); ok && e.move != 0 && game.IsLegal(p, game.Move(e.move)) {
		return game.Move(e.move)
	}
	return game.NoMove
}

// principalVariation returns the triangular PV when the last search kept
// one starting with the root best move, else follows TT moves (the
// null-window drivers leave no full PV).
func (s *Searcher) principalVariation(p Position, depth int) []game.Move {
	if s.pvLen[0] > 0 && s.pv[0][0] == s.rootBest {
		return append([]game.Move(nil), s.pv[0][:s.pvLen[0]]...)
	}
	var pv []game.Move
	seen := map[uint64]bool{}
	for len(pv) < depth && !seen[p.Key()] {
		seen[p.Key()] = true
		m := s.ttMove(p)
		if len(pv) == 0 && s.rootBest != game.NoMove {
			m = s.rootBest
		}
		if m == game.NoMove {
			break
		}
		pv = append(pv, m)
		p.Make(m)
	}
	for range pv {
		p.Unmake()
	}
	return pv
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
