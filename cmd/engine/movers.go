package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/uci"
)

// The movers behind `go`, chosen by the Mover option:
//
//   - ab: alpha-beta (searcher.go).
//   - mcts: the network's PUCT search. `go nodes N` runs N simulations,
//     movetime or the clock bound the time, infinite runs until stop,
//     depth N runs until the principal variation is N plies long (at most
//     mcts.MaxPV; or it ends in a finished game, or the root is proven);
//     limits combine, the first reached ends the search; without any,
//     Simulations. info: depth = length of the pv, nodes = simulations of
//     this search, score cp = round(1000 * root value) (the value in
//     [-1, 1] for the side to move; 1000 is a proven win), pv = the most
//     visited line (mcts.Result.PV), and an `info string visits` line with
//     the most visited moves.
//   - abzero: Alpha-Beta-Zero: alpha-beta (depth, movetime or the clock;
//     without a limit depth defaultABZeroDepth; infinite until stop) and
//     MCTS (nodes; else until the time or stop with movetime, the clock or
//     infinite; else Simulations) at once, then the move maximising
//     ABZeroWeight * visit share + alpha-beta score in soldiers. info: the
//     alpha-beta iterations, then `info string abzero` with the best
//     candidates.
//
// Every mover honours a restricted root (searchmoves, or UCCI's banmoves):
// ab and abzero take the best allowed move of alpha-beta's root scores,
// mcts the most visited allowed move. Alpha-beta's root scores come after
// its iterative deepening, so under a time limit the deepening gets half
// the time (abBudget).
//
// mcts and abzero need Network: a checkpoint file, or a run directory
// (its best checkpoint), for the current variant. The tree is kept from
// move to move within a game (ucinewgame clears it).

// Mover option names and values.
const (
	optMover        = "Mover"
	optNetwork      = "Network"
	optSimulations  = "Simulations"
	optABZeroWeight = "ABZeroWeight"

	moverAB     = "ab"
	moverMCTS   = "mcts"
	moverABZero = "abzero"
)

var movers = []string{moverAB, moverMCTS, moverABZero}

const (
	defaultSims        = 800
	defaultABZeroDepth = 4
	defaultWeight      = "1"
	// mctsChunk is the simulations run between checks of the clock and
	// stop (a cancelled tree search would lose its tree).
	mctsChunk = 8
	// infoEvery spaces the progress lines of long MCTS searches.
	infoEvery = time.Second
)

// moverState is the searcher's state for the network movers.
type moverState struct {
	mover   string
	network string
	sims    int
	weight  float64

	evalKey string // network file and game the evaluator was built for
	mc      *abzero.MCTS
}

func newMoverState() moverState {
	w, _ := strconv.ParseFloat(defaultWeight, 64)
	return moverState{mover: moverAB, sims: defaultSims, weight: w}
}

func moverOptions() []game.Option {
	return []game.Option{
		{Name: optMover, Default: moverAB, Values: movers},
		{Name: optNetwork, Default: ""},
		{Name: optSimulations, Default: strconv.Itoa(defaultSims), Min: 1, Max: 100_000_000},
		{Name: optABZeroWeight, Default: defaultWeight},
	}
}

// StringOptions declares Network and ABZeroWeight as free text.
func (s *searcher) StringOptions() []string { return []string{optNetwork, optABZeroWeight} }

// setMoverOption sets a mover option; ok is false for other names.
func (m *moverState) setMoverOption(name, value string) (ok bool, err error) {
	switch name {
	case optMover:
		m.mover = value
	case optNetwork:
		value = strings.TrimSpace(value)
		if value != "" {
			st, err := os.Stat(value)
			if err != nil {
				return true, fmt.Errorf("option %s: %w", optNetwork, err)
			}
			// A device or pipe (/dev/zero, /dev/stdin) would be read
			// without end when the network loads.
			if !st.Mode().IsRegular() && !st.IsDir() {
				return true, fmt.Errorf("option %s: %s is not a file or directory", optNetwork, value)
			}
		}
		m.network = value
		m.evalKey, m.mc = "", nil
	case optSimulations:
		m.sims, _ = strconv.Atoi(value)
	case optABZeroWeight:
		w, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return true, fmt.Errorf("option %s: %q is not a number >= 0", optABZeroWeight, value)
		}
		m.weight = w
	default:
		return false, nil
	}
	return true, nil
}

// tree returns the MCTS for p's game, loading the network when the file
// or the game changed.
func (m *moverState) tree(p game.Position) (*abzero.MCTS, error) {
	if m.network == "" {
		return nil, fmt.Errorf("mover %s needs the %s option (a checkpoint file or run directory)", m.mover, optNetwork)
	}
	key := m.network + "\x00" + p.Game()
	if m.mc != nil && m.evalKey == key {
		return m.mc, nil
	}
	g, err := game.Lookup(p.Game())
	if err != nil {
		return nil, err
	}
	c, _, err := rundir.LoadNetwork(m.network, g)
	if err != nil {
		return nil, err
	}
	n, err := infer.New(c.Params, 1)
	if err != nil {
		return nil, err
	}
	m.mc = abzero.NewMCTS(mcts.DefaultConfig(), arena.NewNetEvaluator(n, g.Encoder), 0)
	m.evalKey = key
	return m.mc, nil
}

func (m *moverState) newGame() {
	if m.mc != nil {
		m.mc.NewGame(0)
	}
}

// mctsRun is the outcome of runMCTS.
type mctsRun struct {
	res  mcts.Result // the last chunk's summary (visits are cumulative)
	sims int         // simulations run by this search
	ok   bool        // at least one chunk finished
}

// runMCTS runs up to sims simulations (0: until ctx ends) in chunks,
// calling progress at most every infoEvery; done, if not nil, ends the
// search early when it reports true after a chunk.
func runMCTS(ctx context.Context, mc *abzero.MCTS, p game.Position, sims int, done func(mctsRun) bool, progress func(mctsRun)) (mctsRun, error) {
	var run mctsRun
	last := time.Now()
	for sims == 0 || run.sims < sims {
		if ctx.Err() != nil {
			break
		}
		n := mctsChunk
		if sims > 0 {
			n = min(n, sims-run.sims)
		}
		// The chunk runs to its end: a cancelled tree search drops the
		// tree and with it the visits so far.
		r, err := mc.Search(context.Background(), p, n, false)
		if err != nil {
			return run, err
		}
		run.res, run.ok = r, true
		run.sims += r.Simulations
		if r.Proven || r.Simulations == 0 || done != nil && done(run) {
			break
		}
		if progress != nil && time.Since(last) >= infoEvery {
			progress(run)
			last = time.Now()
		}
	}
	return run, nil
}

// valueCP maps a value in [-1, 1] to centipawns: round(1000 * v).
func valueCP(v float32) int { return int(math.Round(1000 * float64(v))) }

// mctsInfo formats the figures of a run with its principal variation.
func mctsInfo(p game.Position, run mctsRun, pv []game.Move, began time.Time) string {
	el := time.Since(began)
	nps := 0
	if el > 0 {
		nps = int(float64(run.sims) / el.Seconds())
	}
	return fmt.Sprintf("depth %d nodes %d nps %d time %d score cp %d pv %s", len(pv), run.sims, nps, el.Milliseconds(), valueCP(run.res.Value), movesText(p, pv))
}

// runPV is the principal variation of a run: the search's own, or the
// root move alone when the result has none (the raw policy).
func runPV(r mcts.Result) []game.Move {
	if len(r.PV) > 0 {
		return r.PV
	}
	if r.Best != game.NoMove {
		return []game.Move{r.Best}
	}
	return nil
}

// deepEnough reports whether a run's principal variation has depth plies
// or cannot grow: it ends in a finished game.
func deepEnough(p game.Position, r mcts.Result, depth int) bool {
	if len(r.PV) >= depth {
		return true
	}
	for _, m := range r.PV {
		p.Make(m)
	}
	over := p.Status().Over()
	for range r.PV {
		p.Unmake()
	}
	return over
}

// mostVisitedAllowed returns the allowed move of r with the most visits
// (then the highest policy), or NoMove when r has none of them.
func mostVisitedAllowed(r mcts.Result, allowed []game.Move) game.Move {
	best := -1
	for i, m := range r.Moves {
		if !slices.Contains(allowed, m) {
			continue
		}
		if best < 0 || r.Visits[i] > r.Visits[best] || r.Visits[i] == r.Visits[best] && r.Policy[i] > r.Policy[best] {
			best = i
		}
	}
	if best < 0 {
		return game.NoMove
	}
	return r.Moves[best]
}

// visitsInfo lists the most visited root moves: `string visits m:n ...`.
func visitsInfo(p game.Position, r mcts.Result, top int) string {
	idx := make([]int, len(r.Moves))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return r.Visits[b] - r.Visits[a] })
	var b strings.Builder
	b.WriteString("string visits")
	for _, i := range idx[:min(top, len(idx))] {
		fmt.Fprintf(&b, " %s:%d", p.FormatMove(r.Moves[i]), r.Visits[i])
	}
	return b.String()
}

// deadline applies the time budget of lim to ctx.
func deadline(ctx context.Context, lim uci.Limits, us game.Color) (context.Context, context.CancelFunc) {
	if t := moveTime(lim, us); t > 0 {
		return context.WithTimeout(ctx, t)
	}
	return context.WithCancel(ctx)
}

// mctsSims is the simulation budget of the network's search under lim:
// nodes, else unbounded (0) when time, stop or depth end the search, else
// the Simulations option.
func (s *searcher) mctsSims(lim uci.Limits, us game.Color) int {
	switch {
	case lim.Nodes > 0:
		return int(min(lim.Nodes, math.MaxInt32))
	case lim.Infinite || lim.Depth > 0 || moveTime(lim, us) > 0:
		return 0
	}
	return s.sims
}

// searchMCTS is the mcts mover.
func (s *searcher) searchMCTS(ctx context.Context, p game.Position, lim uci.Limits, allowed []game.Move, info func(string)) (uci.SearchResult, error) {
	mc, err := s.tree(p)
	if err != nil {
		return uci.SearchResult{}, err
	}
	var done func(mctsRun) bool
	if lim.Depth > 0 {
		depth := min(lim.Depth, mcts.MaxPV)
		done = func(r mctsRun) bool { return deepEnough(p, r.res, depth) }
	}
	ctx, cancel := deadline(ctx, lim, p.SideToMove())
	defer cancel()
	began := time.Now()
	run, err := runMCTS(ctx, mc, p, s.mctsSims(lim, p.SideToMove()), done, func(r mctsRun) { info(mctsInfo(p, r, runPV(r.res), began)) })
	if err != nil {
		return uci.SearchResult{}, err
	}
	if !run.ok {
		// Stopped before the first chunk: play the raw policy.
		r, err := mc.Search(context.Background(), p, 0, false)
		if err != nil {
			return uci.SearchResult{}, err
		}
		run = mctsRun{res: r, ok: true}
	}
	best, pv := run.res.Best, runPV(run.res)
	if allowed != nil && !slices.Contains(allowed, best) {
		best = cmp.Or(mostVisitedAllowed(run.res, allowed), allowed[0])
		pv = []game.Move{best}
	}
	info(mctsInfo(p, run, pv, began))
	info(visitsInfo(p, run.res, 5))
	out := uci.SearchResult{Best: best}
	if len(pv) > 1 {
		out.Ponder = pv[1]
	}
	return out, nil
}

// searchABZero is the abzero mover: alpha-beta and MCTS at once, then
// abzero.Combine.
func (s *searcher) searchABZero(ctx context.Context, p alphabeta.Position, lim uci.Limits, allowed []game.Move, info func(string)) (uci.SearchResult, error) {
	mc, err := s.tree(p)
	if err != nil {
		return uci.SearchResult{}, err
	}
	if err := s.ensureAB(); err != nil {
		return uci.SearchResult{}, err
	}
	us := p.SideToMove()
	t := moveTime(lim, us)
	al := alphabeta.Limits{Depth: lim.Depth, MultiPV: true}
	if al.Depth == 0 && t == 0 && !lim.Infinite {
		al.Depth = defaultABZeroDepth
	}
	abCtx, abCancel, abTime := abBudget(ctx, t, true)
	defer abCancel()
	al.Time = abTime
	// depth is alpha-beta's limit here: it does not bound the MCTS.
	sims := s.sims
	switch {
	case lim.Nodes > 0:
		sims = int(min(lim.Nodes, math.MaxInt32))
	case lim.Infinite || t > 0:
		sims = 0
	}
	mctsCtx, cancel := deadline(ctx, lim, us)
	defer cancel()
	var abres alphabeta.Result
	done := make(chan struct{})
	abp := p.Clone().(alphabeta.Position)
	go func() {
		defer close(done)
		abres = s.s.Search(abCtx, abp, al, abInfo(abp, info))
	}()
	began := time.Now()
	run, merr := runMCTS(mctsCtx, mc, p, sims, nil, nil)
	<-done
	if merr != nil && !errors.Is(merr, mcts.ErrGameOver) {
		return uci.SearchResult{}, merr
	}
	if run.ok {
		info(mctsInfo(p, run, runPV(run.res), began))
	}
	ok := func(m game.Move) bool {
		return m != game.NoMove && (allowed == nil || slices.Contains(allowed, m))
	}
	if !run.ok || len(abres.RootScores) == 0 {
		// One search has nothing to offer: play the other's move.
		best := abres.Move
		if !ok(best) && run.ok {
			best = run.res.Best
			if allowed != nil && !ok(best) {
				best = mostVisitedAllowed(run.res, allowed)
			}
		}
		if allowed != nil && !ok(best) {
			best = s.bestAllowedAB(p, nil, allowed)
		}
		return uci.SearchResult{Best: best}, nil
	}
	best, cands := abzero.Combine(run.res, abres, s.weight, abzero.DefaultMateValue)
	if allowed != nil {
		cands = slices.DeleteFunc(cands, func(c abzero.Candidate) bool { return !ok(c.Move) })
	}
	slices.SortStableFunc(cands, func(a, b abzero.Candidate) int { return cmpDesc(a.V, b.V) })
	if !ok(best) {
		// Combine's choice is banned: the best allowed candidate.
		if len(cands) == 0 {
			return uci.SearchResult{Best: s.bestAllowedAB(p, nil, allowed)}, nil
		}
		best = cands[0].Move
	}
	var b strings.Builder
	fmt.Fprintf(&b, "string abzero m %g depth %d sims %d:", s.weight, abres.Depth, run.sims)
	for _, c := range cands[:min(5, len(cands))] {
		fmt.Fprintf(&b, " %s v %.3f pi %.3f beta %.2f", p.FormatMove(c.Move), c.V, c.Pi, c.Beta)
	}
	info(b.String())
	return uci.SearchResult{Best: best}, nil
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
