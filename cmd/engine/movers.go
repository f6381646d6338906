package main

import (
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
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/uci"
)

// The movers behind `go`, chosen by the Mover option:
//
//   - ab: alpha-beta (searcher.go).
//   - mcts: the network's PUCT search. `go nodes N` runs N simulations,
//     movetime or the clock bound the time, infinite runs until stop;
//     otherwise Simulations. depth is ignored. info: nodes = simulations
//     of this search, score cp = round(1000 * root value) (the value in
//     [-1, 1] for the side to move; 1000 is a proven win), pv = the most
//     visited root move (the tree exports no deeper line), and an `info
//     string visits` line with the most visited moves.
//   - abzero: Alpha-Beta-Zero: alpha-beta (depth, movetime or the clock;
//     without a limit depth defaultABZeroDepth) and MCTS (nodes, else
//     Simulations) at once, then the move maximising ABZeroWeight * visit
//     share + alpha-beta score in soldiers. info: the alpha-beta
//     iterations, then `info string abzero` with the best candidates.
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
			if _, err := os.Stat(value); err != nil {
				return true, fmt.Errorf("option %s: %w", optNetwork, err)
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
	file := m.network
	if st, err := os.Stat(file); err != nil {
		return nil, err
	} else if st.IsDir() {
		if file, err = checkpoints.Pointer(file, checkpoints.BestFile); err != nil {
			return nil, err
		}
	}
	c, err := checkpoints.LoadFor(file, g.Name, g.Encoder.Version())
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
// calling progress at most every infoEvery.
func runMCTS(ctx context.Context, mc *abzero.MCTS, p game.Position, sims int, progress func(mctsRun)) (mctsRun, error) {
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
		if r.Proven || r.Simulations == 0 {
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

// mctsInfo formats the figures of a run.
func mctsInfo(p game.Position, run mctsRun, began time.Time) string {
	el := time.Since(began)
	nps := 0
	if el > 0 {
		nps = int(float64(run.sims) / el.Seconds())
	}
	return fmt.Sprintf("nodes %d nps %d time %d score cp %d pv %s", run.sims, nps, el.Milliseconds(), valueCP(run.res.Value), p.FormatMove(run.res.Best))
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

// searchMCTS is the mcts mover.
func (s *searcher) searchMCTS(ctx context.Context, p game.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	mc, err := s.tree(p)
	if err != nil {
		return uci.SearchResult{}, err
	}
	sims := s.sims
	switch {
	case lim.Nodes > 0:
		sims = int(min(lim.Nodes, math.MaxInt32))
	case lim.Infinite || moveTime(lim, p.SideToMove()) > 0:
		sims = 0
	}
	ctx, cancel := deadline(ctx, lim, p.SideToMove())
	defer cancel()
	began := time.Now()
	run, err := runMCTS(ctx, mc, p, sims, func(r mctsRun) { info(mctsInfo(p, r, began)) })
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
	info(mctsInfo(p, run, began))
	info(visitsInfo(p, run.res, 5))
	return uci.SearchResult{Best: run.res.Best}, nil
}

// searchABZero is the abzero mover: alpha-beta and MCTS at once, then
// abzero.Combine.
func (s *searcher) searchABZero(ctx context.Context, p alphabeta.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	mc, err := s.tree(p)
	if err != nil {
		return uci.SearchResult{}, err
	}
	if err := s.ensureAB(); err != nil {
		return uci.SearchResult{}, err
	}
	us := p.SideToMove()
	al := alphabeta.Limits{Depth: lim.Depth, Time: moveTime(lim, us), MultiPV: true}
	if al.Depth == 0 && al.Time == 0 && !lim.Infinite {
		al.Depth = defaultABZeroDepth
	}
	sims := s.sims
	if lim.Nodes > 0 {
		sims = int(min(lim.Nodes, math.MaxInt32))
	}
	mctsCtx, cancel := deadline(ctx, lim, us)
	defer cancel()
	var abres alphabeta.Result
	done := make(chan struct{})
	abp := p.Clone().(alphabeta.Position)
	go func() {
		defer close(done)
		abres = s.s.Search(ctx, abp, al, abInfo(abp, info))
	}()
	began := time.Now()
	run, merr := runMCTS(mctsCtx, mc, p, sims, nil)
	<-done
	if merr != nil && !errors.Is(merr, mcts.ErrGameOver) {
		return uci.SearchResult{}, merr
	}
	if run.ok {
		info(mctsInfo(p, run, began))
	}
	if !run.ok || len(abres.RootScores) == 0 {
		// One search has nothing to offer: play the other's move.
		best := abres.Move
		if best == game.NoMove && run.ok {
			best = run.res.Best
		}
		return uci.SearchResult{Best: best}, nil
	}
	best, cands := abzero.Combine(run.res, abres, s.weight, abzero.DefaultMateValue)
	slices.SortStableFunc(cands, func(a, b abzero.Candidate) int { return cmpDesc(a.V, b.V) })
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
