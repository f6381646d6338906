package c4solver

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/tabula-zero/tabula/game/connect4"
)

// Board geometry, from game/connect4.
const (
	width  = connect4.Width
	cells  = connect4.Cells
	colBit = connect4.Height + 1 // bits per column, sentinel included
)

// Invalid marks an unplayable column in Analyze and AnalyzeDepth; it is
// below every score of both.
const Invalid = math.MinInt32

// DefaultTTMiB is the table size New uses for ttMiB <= 0.
const DefaultTTMiB = 16

// MaxTTMiB bounds the table: a larger one than the machine can allocate
// would end the process instead of failing with an error.
const MaxTTMiB = 4096

// Algorithm names accepted by New.
const (
	AlphaBeta       = "alphabeta"        // fail-soft alpha-beta, full reachable window
	AlphaBetaHybrid = "alphabeta-hybrid" // returns the score on a cutoff, alpha otherwise
	AlphaBetaHard   = "alphabeta-hard"   // fail-hard: results clipped to [alpha, beta]
	PVS             = "pvs"              // principal variation search (fail-soft)
	MTDF            = "mtdf"             // MTD(f) from f = 0
	NegaCStar       = "negacstar"        // NegaC*: bisection by null-window searches
	NegaCStarOpt    = "negacstar-opt"    // the seed's optimised NegaC* (Pons' solve)
)

// Fastest is the algorithm this package measures fastest on Pons' sets.
const Fastest = NegaCStarOpt

// Algorithms lists the algorithm names New accepts.
func Algorithms() []string {
	return []string{AlphaBeta, AlphaBetaHybrid, AlphaBetaHard, PVS, MTDF, NegaCStar, NegaCStarOpt}
}

// fail says what a search returns outside its window.
type fail uint8

const (
	failSoft   fail = iota // the best bound found, possibly outside [alpha, beta]
	failHybrid             // the score on a cutoff, alpha when nothing beats it
	failHard               // clipped to [alpha, beta]
)

type driver uint8

const (
	fullWindow driver = iota
	mtdf
	negaC
	negaCOpt
)

// order is the static centre-first column order (0-based): 4 3 5 2 6 1 7.
var order = [width]int{3, 2, 4, 1, 5, 0, 6}

var colMask = func() (m [width]uint64) {
	for c := range m {
		m[c] = connect4.ColumnMask(c)
	}
	return
}()

// Solver solves positions exactly with one algorithm and one
// transposition table, which it keeps between calls (entries stay valid:
// they hold exact bounds) until Reset. A Solver is not safe for concurrent
// use; use one per goroutine.
type Solver struct {
	algo   string
	drive  driver
	fail   fail
	pvs    bool
	mirror bool
	tt     *table

	nodes   uint64
	done    <-chan struct{}
	stopped bool
}

// New returns a solver running algo (one of Algorithms) with a
// transposition table of ttMiB MiB (rounded down to a power of two of
// 8-byte entries, at least 1 MiB; DefaultTTMiB when ttMiB <= 0; at most
// MaxTTMiB).
func New(algo string, ttMiB int) (*Solver, error) {
	s := &Solver{algo: algo}
	switch algo {
	case AlphaBeta:
	case AlphaBetaHybrid:
		s.fail = failHybrid
	case AlphaBetaHard:
		s.fail = failHard
	case PVS:
		s.pvs = true
	case MTDF:
		s.drive = mtdf
	case NegaCStar:
		s.drive = negaC
	case NegaCStarOpt:
		s.drive = negaCOpt
	default:
		return nil, fmt.Errorf("c4solver: unknown algorithm %q (valid: %s)", algo, strings.Join(Algorithms(), ", "))
	}
	if ttMiB <= 0 {
		ttMiB = DefaultTTMiB
	}
	if ttMiB > MaxTTMiB {
		return nil, fmt.Errorf("c4solver: table of %d MiB exceeds the limit of %d MiB", ttMiB, MaxTTMiB)
	}
	s.tt = newTable(ttMiB)
	return s, nil
}

// Algorithm returns the solver's algorithm name.
func (s *Solver) Algorithm() string { return s.algo }

// TTBytes returns the memory the transposition table takes.
func (s *Solver) TTBytes() int { return s.tt.sizeBytes() }

// SetMirror turns the seed's mirrored lookup on or off: when a position
// misses in the table, its left-right mirror image is looked up too.
func (s *Solver) SetMirror(on bool) { s.mirror = on }

// Nodes returns the number of negamax calls since New or the last Reset.
func (s *Solver) Nodes() uint64 { return s.nodes }

// Reset empties the transposition table and zeroes the node count, so
// the next solve starts cold (Pons' test protocol). It is O(1) almost
// always.
func (s *Solver) Reset() {
	s.tt.reset()
	s.nodes = 0
}

// Solve returns the exact score of p.
func (s *Solver) Solve(p *connect4.Position) int {
	v, _ := s.SolveContext(context.Background(), p)
	return v
}

// SolveContext is Solve with cancellation: when ctx ends during the
// search it returns ctx's error (the table keeps only what was proved).
func (s *Solver) SolveContext(ctx context.Context, p *connect4.Position) (int, error) {
	s.begin(ctx)
	defer s.end()
	v := s.solve(p.Current(), p.Mask(), p.Moves())
	if s.stopped {
		return 0, fmt.Errorf("c4solver: solve %q: %w", p.String(), context.Cause(ctx))
	}
	return v, nil
}

// BestMove returns an optimal column (0-6) and p's exact score; among
// optimal columns the most central one wins (order 4 3 5 2 6 1 7). A
// finished position returns column -1.
func (s *Solver) BestMove(p *connect4.Position) (col, score int) {
	col, score, _ = s.BestMoveContext(context.Background(), p)
	return col, score
}

// BestMoveContext is BestMove with cancellation.
func (s *Solver) BestMoveContext(ctx context.Context, p *connect4.Position) (col, score int, err error) {
	s.begin(ctx)
	defer s.end()
	cur, mask, n := p.Current(), p.Mask(), p.Moves()
	if over(cur, mask, n) {
		return -1, s.solve(cur, mask, n), nil
	}
	if w := winningMoves(cur, mask); w != 0 {
		for _, c := range order {
			if w&colMask[c] != 0 {
				return c, (cells + 1 - n) / 2, nil
			}
		}
	}
	score = s.solve(cur, mask, n)
	for _, c := range order {
		if s.stopped {
			break
		}
		if !canPlay(mask, c) {
			continue
		}
		c2, m2 := play(cur, mask, c)
		// The child is worth at least -score; a null window decides
		// whether it is exactly -score (the table is warm from the solve).
		if v := s.window(c2, m2, n+1, -score, -score+1); v <= -score && !s.stopped {
			return c, score, nil
		}
	}
	if s.stopped {
		return -1, 0, fmt.Errorf("c4solver: best move %q: %w", p.String(), context.Cause(ctx))
	}
	panic(fmt.Sprintf("c4solver: no column of %q reaches its score %d", p.String(), score))
}

// Analyze returns the exact score of p after each column (from p's side to
// move's view: the score p would have if that column were forced), Invalid
// for full columns and for every column of a finished position.
func (s *Solver) Analyze(p *connect4.Position) [connect4.Width]int {
	a, _ := s.AnalyzeContext(context.Background(), p)
	return a
}

// AnalyzeContext is Analyze with cancellation.
func (s *Solver) AnalyzeContext(ctx context.Context, p *connect4.Position) ([connect4.Width]int, error) {
	s.begin(ctx)
	defer s.end()
	var a [connect4.Width]int
	cur, mask, n := p.Current(), p.Mask(), p.Moves()
	done := over(cur, mask, n)
	for c := range a {
		switch {
		case done || !canPlay(mask, c):
			a[c] = Invalid
		case isWinning(cur, mask, c):
			a[c] = (cells + 1 - n) / 2
		default:
			c2, m2 := play(cur, mask, c)
			a[c] = -s.solve(c2, m2, n+1)
		}
	}
	if s.stopped {
		return a, fmt.Errorf("c4solver: analyze %q: %w", p.String(), context.Cause(ctx))
	}
	return a, nil
}

func (s *Solver) begin(ctx context.Context) {
	s.done = ctx.Done()
	s.stopped = false
}

func (s *Solver) end() { s.done = nil }

// pollMask sets how often (in nodes) the search looks at its context.
const pollMask = 1<<14 - 1

func (s *Solver) poll() {
	if s.done == nil {
		return
	}
	select {
	case <-s.done:
		s.stopped = true
	default:
	}
}

// solve returns the exact score of any position, finished or not.
func (s *Solver) solve(cur, mask uint64, n int) int {
	if v, ok := rootValue(cur, mask, n); ok {
		return v
	}
	// No immediate win: the side to move scores at most (41-n)/2, and at
	// least -(42-n)/2 (the opponent wins with its next stone).
	lo, hi := -(cells-n)/2, (cells-1-n)/2
	switch s.drive {
	case mtdf:
		g := min(max(0, lo), hi)
		for lo < hi && !s.stopped {
			beta := g
			if g == lo {
				beta = g + 1
			}
			g = s.negamax(cur, mask, n, beta-1, beta)
			if g < beta {
				hi = g
			} else {
				lo = g
			}
		}
		return lo
	case negaC, negaCOpt:
		for lo < hi && !s.stopped {
			med := lo + (hi-lo)/2
			if s.drive == negaCOpt {
				// Probe half way to the largest win or loss first
				// (Go's division truncates toward zero, as C's does).
				if med <= 0 && lo/2 < med {
					med = lo / 2
				} else if med >= 0 && hi/2 > med {
					med = hi / 2
				}
			}
			if r := s.negamax(cur, mask, n, med, med+1); r <= med {
				hi = r
			} else {
				lo = r
			}
		}
		return lo
	default:
		// lo and hi bound the score, so a result at either end is exact.
		return s.negamax(cur, mask, n, lo, hi)
	}
}

// window searches any position with window (alpha, beta): an exact value
// for finished positions and immediate wins, else negamax's bound.
func (s *Solver) window(cur, mask uint64, n, alpha, beta int) int {
	if v, ok := rootValue(cur, mask, n); ok {
		return v
	}
	return s.negamax(cur, mask, n, alpha, beta)
}

// rootValue scores the positions negamax must not see: finished ones and
// those where the side to move wins at once.
func rootValue(cur, mask uint64, n int) (int, bool) {
	switch {
	case connect4.HasFour(cur ^ mask):
		return -(cells + 2 - n) / 2, true // the opponent won with stone n
	case n >= cells:
		return 0, true
	case winningMoves(cur, mask) != 0:
		return (cells + 1 - n) / 2, true
	}
	return 0, false
}

func over(cur, mask uint64, n int) bool {
	return n >= cells || connect4.HasFour(cur^mask)
}

// negamax returns the score of a position whose side to move cannot win
// at once, with the usual bound semantics: a result <= alpha is an upper
// bound, >= beta a lower bound, and exact in between.
func (s *Solver) negamax(cur, mask uint64, n, alpha, beta int) int {
	s.nodes++
	if s.nodes&pollMask == 0 {
		s.poll()
	}
	if s.stopped {
		return 0
	}
	possible := nonLosing(cur, mask)
	if possible == 0 {
		// Every move lets the opponent win with its next stone.
		return s.clip(-(cells-n)/2, alpha, beta)
	}
	if n >= cells-2 {
		// Neither side can win with the last one or two stones.
		return s.clip(0, alpha, beta)
	}
	// Reachable scores: the opponent cannot win with its next stone (we
	// play a non-losing move) and we cannot win with ours.
	lo := -(cells - 2 - n) / 2
	hi := (cells - 1 - n) / 2
	key := cur + mask
	tlo, thi, ok := s.tt.probe(key)
	if !ok && s.mirror {
		if mk := mirrorKey(key); mk != key {
			tlo, thi, ok = s.tt.probe(mk)
		}
	}
	if ok {
		lo = max(lo, tlo)
		hi = min(hi, thi)
	}
	if lo >= beta {
		if s.fail == failHard {
			return beta
		}
		return lo
	}
	if hi <= alpha {
		if s.fail != failSoft {
			return alpha
		}
		return hi
	}
	if lo == hi {
		return lo
	}
	alpha = max(alpha, lo)
	beta = min(beta, hi)
	alpha0 := alpha

	// Threat-count ordering: most new winning cells first, centre first
	// on ties (insertion sort, stable for the static order).
	var moves [width]uint64
	k := orderMoves(cur, mask, possible, &moves)

	best := -cells // below every score
	opp := cur ^ mask
	for i := 0; i < k; i++ {
		m2 := mask | moves[i]
		var v int
		if s.pvs && i > 0 && beta-alpha > 1 {
			v = -s.negamax(opp, m2, n+1, -alpha-1, -alpha)
			if v > alpha && v < beta {
				v = -s.negamax(opp, m2, n+1, -beta, -alpha)
			}
		} else {
			v = -s.negamax(opp, m2, n+1, -beta, -alpha)
		}
		if s.stopped {
			return 0
		}
		if v >= beta {
			if s.fail == failHard {
				v = beta
			}
			s.tt.store(key, v, noUpper)
			return v
		}
		if v > best {
			best = v
			if v > alpha {
				alpha = v
			}
		}
	}
	if s.fail != failSoft {
		best = alpha
	}
	if best > alpha0 {
		s.tt.store(key, best, best)
	} else {
		s.tt.store(key, noLower, best)
	}
	return best
}

// clip applies the fail mode to an exact value.
func (s *Solver) clip(v, alpha, beta int) int {
	switch s.fail {
	case failHybrid:
		return max(v, alpha)
	case failHard:
		return min(max(v, alpha), beta)
	}
	return v
}

// nonLosing returns the playable cells after which the opponent cannot
// win at once (Pons' possibleNonLosingMoves); 0 when every move loses.
func nonLosing(cur, mask uint64) uint64 {
	possible := connect4.Possible(mask)
	opp := connect4.WinningCells(cur^mask, mask)
	if forced := possible & opp; forced != 0 {
		if forced&(forced-1) != 0 {
			return 0 // two threats: cannot block both
		}
		possible = forced
	}
	return possible &^ (opp >> 1) // never play just below an opponent's winning cell
}

// winningMoves returns the playable cells that complete a four for the
// side to move.
func winningMoves(cur, mask uint64) uint64 {
	return connect4.Possible(mask) & connect4.WinningCells(cur, mask)
}

func canPlay(mask uint64, c int) bool { return mask&(1<<(connect4.Height-1+c*colBit)) == 0 }

func isWinning(cur, mask uint64, c int) bool {
	return winningMoves(cur, mask)&colMask[c] != 0
}

// play drops a stone of the side to move into column c and returns the
// new (current, mask).
func play(cur, mask uint64, c int) (uint64, uint64) {
	m := connect4.Possible(mask) & colMask[c]
	return cur ^ mask, mask | m
}
