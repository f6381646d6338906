package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/uci"
)

// The movers behind `go`, chosen by the Mover option. ab, mcts and abzero
// are built by player.Spec.NewMover from the knobs as the options set
// them (moverState.spec), as the arena's players and the Play page's are;
// the engine drives the searcher each holds (alphabeta.Searcher,
// mcts.Mover, abzero.Mover) with the protocols' limits and info lines.
//
//   - ab: alpha-beta (searcher.go). With UCI_LimitStrength it plays at
//     UCI_Elo (player.StrengthFor): the Elo's node budget caps every
//     limit, and at the lowest levels some moves are drawn at random (an
//     info string says so), never at a root searchmoves or banmoves
//     restrict.
//   - mcts: the network's search (mcts.Mover) with the constants of the
//     Search (puct, or gumbel, which needs a simulation budget: go nodes
//     or no limit), CInit and FPU options. `go nodes N` runs N
//     simulations, movetime or the clock bound the time, infinite runs
//     until stop, depth N runs until the principal variation is N plies
//     long (at most mcts.MaxPV; or it ends in a finished game, or the root
//     is proven); limits combine, the first reached ends the search;
//     without any, Simulations (0: the raw policy). info: depth = length of the pv, nodes =
//     simulations of this search, score cp = round(1000 * root value) (the
//     value in [-1, 1] for the side to move; 1000 is a proven win), with
//     UCI_ShowWDL and a network with the WDL head wdl W D L = the root's
//     win, draw and loss in permille (mcts.Result.WDL), pv =
//     the most visited line (mcts.Result.PV), and an `info string visits`
//     line with the most visited moves. With Threads above 1 the search
//     evaluates batches of leaves (leafRows a thread) on that many cores.
//   - tablebase: Catch the Lion's perfect play from the table file the
//     Tablebase option names (tablebase.go).
//   - abzero: Alpha-Beta-Zero (abzero.Mover): MCTS (nodes, and with
//     movetime or the clock at most ABZeroSimShare percent of the time;
//     with neither, Simulations), then alpha-beta (depth, or the rest of
//     the time; without a limit depth defaultABZeroDepth; infinite until
//     stop) with every thread, maximising ABZeroWeight * visit share +
//     alpha-beta score in soldiers inside its search (the share added to
//     each root move's score; with searchmoves or banmoves, multi-PV
//     scores of the allowed moves). With ABZeroPolicy prior the share is
//     the network's prior (one forward pass, no simulations). info: the
//     alpha-beta iterations, then `info string abzero` with the move and
//     its blended value in soldiers (with multi-PV, the best candidates).
//
// ab and abzero's alpha-beta evaluate positions as the Eval option says
// (eval.go): the game's own evaluation, or Xiangqi's learned one from
// EvalFile or, without it, the shipped network (models/xiangqi.nnue).
//
// Every mover honours a restricted root (searchmoves, or UCCI's banmoves):
// ab and abzero take the best allowed move of alpha-beta's root scores,
// mcts the most visited allowed move. Under a time limit alpha-beta
// scores every root move after each iteration, so a restricted root or
// the blend always has the scores of some completed depth.
//
// mcts and abzero play Network: a checkpoint file, a run directory (its
// best checkpoint) or a shipped model's name (connect4, lion, xiangqi;
// package models), for the current variant; without it, the shipped model
// of the variant. The network is loaded
// when the option is set, so that a bad file is reported then rather than
// at the first go; a network of another game than the variant is reported
// too, but kept, since GUIs may send the variant after the network. The
// tree is kept from move to move within a game (ucinewgame clears it).

// Mover option names and values. The options of the knobs (every one
// but Tablebase and MultiPV) are declared once in package player
// (player.Knobs: name, default, range or values), which the arena's specs
// and the Play page read too.
const (
	optMover        = "Mover"
	optNetwork      = "Network"
	optSimulations  = "Simulations"
	optABZeroWeight = "ABZeroWeight"
	optABZeroPolicy = "ABZeroPolicy"
	optPrecision    = "Precision"
	optSearch       = "Search"

	moverAB     = player.MoverAB
	moverMCTS   = player.MoverMCTS
	moverABZero = player.MoverABZero
)

var movers = []string{moverAB, moverMCTS, moverABZero, moverTB}

// ABZeroPolicy values: what pi of the blend is.
const policyPrior = player.PolicyPrior

// infoEvery spaces the progress lines of long MCTS searches.
const infoEvery = time.Second

// moverState is the searcher's state for the network movers.
type moverState struct {
	mover string
	// play holds the knobs' values as the options set them (search
	// constants, simulations, precision, the blend's weight, policy and
	// share, alpha-beta's algorithm, hash and threads).
	play    *player.Spec
	network string

	// game is the variant the engine plays (SetGame), "" until told.
	game string

	// The network for its game evalGame, loaded when Network is set, and
	// the movers built on it (nil until needed).
	evalGame string
	eval     *playNet
	mc       *mcts.Mover
	abz      *abzero.Mover
	// abzNet is the learned network abz's alpha-beta evaluates with (nil:
	// the game's own evaluation).
	abzNet *nnue.Net

	// The Lion tablebase of the tablebase mover (tablebase.go).
	tb     *tablebase.Table
	tbFile string
}

func newMoverState() moverState {
	return moverState{mover: moverAB, play: player.Default(player.KindAB, "")}
}

// moverOptions are the knobs' engine options (the Mover's values with
// tablebase) and Tablebase.
func moverOptions() []game.Option {
	var out []game.Option
	for _, o := range player.UCIOptions() {
		if o.Name == optMover {
			o.Values = movers
		}
		out = append(out, o)
	}
	return append(out, game.Option{Name: optTablebase, Default: "", Help: "Catch the Lion's tablebase file (tabula liontb) of the tablebase mover"})
}

// StringOptions declares the free-text options: the knobs' (Network,
// EvalFile, the numbers CInit, FPU and ABZeroWeight) and Tablebase.
func (s *Searcher) StringOptions() []string {
	return append(player.StringOptions(), optTablebase)
}

// setMoverOption sets a mover option; ok is false for other names.
func (m *moverState) setMoverOption(name, value string) (ok bool, err error) {
	switch name {
	case optMover:
		if !slices.Contains(movers, value) {
			return true, fmt.Errorf("option %s: %q (valid: %s)", optMover, value, strings.Join(movers, ", "))
		}
		m.mover = value
		return true, m.preloadShipped()
	case optNetwork:
		value = strings.TrimSpace(value)
		if value == "" {
			// Back to the shipped model of the game played.
			m.eval.close()
			m.network, m.evalGame, m.eval, m.mc, m.abz = "", "", nil, nil, nil
			return true, m.preloadShipped()
		}
		ev, g, err := loadNetwork(value, m.play.Precision)
		if err != nil {
			return true, fmt.Errorf("option %s: %w", optNetwork, err)
		}
		m.eval.close()
		m.network, m.evalGame, m.eval, m.mc, m.abz = value, g, ev, nil, nil
		return true, m.checkNetworkGame()
	case optPrecision:
		if err := player.Lookup(player.KnobPrecision).Check(value); err != nil {
			return true, fmt.Errorf("option %s: %w", optPrecision, err)
		}
		if infer.Resolve(value) == infer.Resolve(m.play.Precision) {
			m.play.Precision = value // the same arithmetic on this CPU: nothing to lay out again
			return true, nil
		}
		switch {
		case m.network != "":
			// The loaded network is laid out again in the new arithmetic.
			ev, _, err := loadNetwork(m.network, value)
			if err != nil {
				return true, fmt.Errorf("option %s: %w", optPrecision, err)
			}
			m.eval.close()
			m.eval, m.mc, m.abz = ev, nil, nil
		case m.eval != nil:
			// The shipped model is laid out again.
			m.eval.close()
			m.evalGame, m.eval, m.mc, m.abz = "", nil, nil, nil
		}
		m.play.Precision = value
		return true, m.preloadShipped()
	case optTablebase:
		return true, m.setTablebase(value)
	}
	before := m.play.MCTS
	ok, err = m.play.SetOption(name, value)
	if m.play.MCTS != before {
		m.mc, m.abz = nil, nil // rebuilt with the new constants
	}
	return ok, err
}

// loadNetwork loads the checkpoint file, run directory or shipped model
// path names and returns it laid out for play, and its game.
func loadNetwork(path, precision string) (*playNet, string, error) {
	// A device or pipe (/dev/zero, /dev/stdin) is refused by the
	// checkpoint reader itself, without reading it.
	n, err := player.OpenNetwork(path, precision, player.MaxLeafBatch)
	if err != nil {
		return nil, "", err
	}
	return &playNet{net: n}, n.Game.Name, nil
}

// loadShipped loads the shipped model of gameName (package models).
func loadShipped(gameName, precision string) (*playNet, string, error) {
	n, err := player.ShippedNetwork(gameName, precision, player.MaxLeafBatch)
	if err != nil {
		return nil, "", fmt.Errorf("%w (the %s option)", err, optNetwork)
	}
	return &playNet{net: n}, n.Game.Name, nil
}

// playNet is a network laid out for the network movers, for batches of up
// to player.MaxLeafBatch positions, with the evaluator for the thread
// count of the last search.
type playNet struct {
	net     *player.Network
	threads int
	ev      *mcts.NetEvaluator
	stop    func() // stops ev's helpers
}

// leafRows is the positions a thread evaluates at once (player.LeafRows).
const leafRows = player.LeafRows

// evaluator returns the network's evaluator for threads cores; changed
// reports a new one (the movers holding the old one must be rebuilt).
func (pn *playNet) evaluator(threads int) (ev *mcts.NetEvaluator, changed bool) {
	threads = max(1, min(threads, player.MaxLeafBatch/leafRows))
	if pn.ev != nil && pn.threads == threads {
		return pn.ev, false
	}
	pn.close()
	pn.threads = threads
	pn.ev, pn.stop = pn.net.BatchEvaluator(threads)
	return pn.ev, true
}

// close stops the helper goroutines of a parallel evaluator.
func (pn *playNet) close() {
	if pn != nil && pn.stop != nil {
		pn.stop()
		pn.stop = nil
	}
}

// checkNetworkGame reports a network of another game than the variant.
func (m *moverState) checkNetworkGame() error {
	if m.network == "" || m.game == "" || m.evalGame == m.game {
		return nil
	}
	return fmt.Errorf("option %s: %s is a %s network and the variant is %s: mcts and abzero refuse it until the variant is %s",
		optNetwork, m.network, m.evalGame, m.game, m.evalGame)
}

// SetGame records the variant the engine plays (uci.GameSetter) and
// reports a network of another game.
func (s *Searcher) SetGame(name string) error {
	if err := s.busy(); err != nil {
		return err
	}
	defer s.idle()
	s.game = name
	if err := s.preloadShipped(); err != nil {
		return err
	}
	if err := s.checkNetworkGame(); err != nil {
		return err
	}
	return s.ev.check(name)
}

// preloadShipped loads the shipped model of the variant when a network
// mover will play it (no Network option), so that loading and laying it
// out (an 8-bit tower is calibrated) happen when the GUI sets options,
// not on the clock of the first move.
func (m *moverState) preloadShipped() error {
	if m.network != "" || m.game == "" || m.evalGame == m.game || (m.mover != moverMCTS && m.mover != moverABZero) {
		return nil
	}
	return m.useShipped(m.game)
}

// useShipped makes the shipped model of gameName the movers' network.
func (m *moverState) useShipped(gameName string) error {
	ev, g, err := loadShipped(gameName, m.play.Precision)
	if err != nil {
		return fmt.Errorf("mover %s: %w", m.mover, err)
	}
	m.eval.close()
	m.evalGame, m.eval, m.mc, m.abz = g, ev, nil, nil
	return nil
}

// evaluator returns the network's evaluator on threads cores, which must
// be for p's game: without a Network option, the shipped model of p's
// game.
func (m *moverState) evaluator(p game.Position, threads int) (*mcts.NetEvaluator, error) {
	if m.network == "" && m.evalGame != p.Game() {
		if err := m.useShipped(p.Game()); err != nil {
			return nil, err
		}
	}
	if m.network != "" && m.evalGame != p.Game() {
		return nil, fmt.Errorf("option %s: %s is a %s network, not %s", optNetwork, m.network, m.evalGame, p.Game())
	}
	ev, changed := m.eval.evaluator(threads)
	if changed {
		m.mc, m.abz = nil, nil
	}
	return ev, nil
}

// mctsMover returns the network's MCTS mover for p's game on threads
// cores.
func (m *moverState) mctsMover(p game.Position, threads int) (*mcts.Mover, error) {
	ev, err := m.evaluator(p, threads)
	if err != nil {
		return nil, err
	}
	if m.mc == nil {
		mv, err := m.spec(player.KindNet).NewMover(ev, nil)
		if err != nil {
			return nil, err
		}
		m.mc = mv.MCTS()
	}
	return m.mc, nil
}

// spec is the knobs as the options set them, for a mover of kind.
func (m *moverState) spec(kind string) *player.Spec {
	s := *m.play
	s.Kind = kind
	return &s
}

// abzeroMover returns the Alpha-Beta-Zero mover for p's game with the
// current weight and alpha-beta options, its alpha-beta evaluating with
// the learned network net (nil: the game's own evaluation).
func (m *moverState) abzeroMover(p game.Position, ab alphabeta.Options, net *nnue.Net) (*abzero.Mover, error) {
	ev, err := m.evaluator(p, ab.Threads)
	if err != nil {
		return nil, err
	}
	if m.abz == nil || m.abz.Config().AlphaBeta != ab || m.abzNet != net {
		// The blend of the knobs, its depth without a limit the depth
		// knob's default.
		spec := m.spec(player.KindABZero)
		spec.Depth, spec.AlphaBeta = player.DefaultInt(player.KnobDepth), ab
		mv, err := spec.NewMover(ev, net)
		if err != nil {
			return nil, err
		}
		m.abz, m.abzNet = mv.ABZero(), net
	}
	if err := m.abz.SetM(m.play.M); err != nil {
		return nil, err
	}
	return m.abz, nil
}

func (m *moverState) newGame() {
	if m.mc != nil {
		m.mc.NewGame(0)
	}
	if m.abz != nil {
		m.abz.NewGame(0)
	}
}

// valueCP maps a value in [-1, 1] to centipawns: round(1000 * v).
func valueCP(v float32) int { return int(math.Round(1000 * float64(v))) }

// mctsInfo formats the figures of a search with its principal variation,
// with the root's wdl when showWDL and the search has it.
func mctsInfo(p game.Position, r mcts.Result, pv []game.Move, began time.Time, showWDL bool) string {
	el := time.Since(began)
	nps := 0
	if el > 0 {
		nps = int(float64(r.Simulations) / el.Seconds())
	}
	wdl := ""
	if showWDL && r.HasWDL {
		w, d, l := permille(r.WDL)
		wdl = fmt.Sprintf(" wdl %d %d %d", w, d, l)
	}
	return fmt.Sprintf("depth %d nodes %d nps %d time %d score cp %d%s pv %s", len(pv), r.Simulations, nps, el.Milliseconds(), valueCP(r.Value), wdl, movesText(p, pv))
}

// permille rounds a win, draw and loss to permille summing to 1000: W
// and L rounded, D the rest (W and L are what the score is made of).
func permille(x mcts.WDL) (w, d, l int) {
	w = int(math.Round(1000 * float64(x.Win)))
	l = min(int(math.Round(1000*float64(x.Loss))), 1000-w)
	return w, 1000 - w - l, l
}

// deepEnough reports whether a search's principal variation has depth
// plies or cannot grow: it ends in a finished game.
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
func (s *Searcher) mctsSims(lim uci.Limits, us game.Color) int {
	switch {
	case lim.Nodes > 0:
		return int(min(lim.Nodes, math.MaxInt32))
	case lim.Infinite || lim.Depth > 0 || moveTime(lim, us) > 0:
		return 0
	}
	return s.play.Sims
}

// searchMCTS is the mcts mover.
func (s *Searcher) searchMCTS(ctx context.Context, p game.Position, lim uci.Limits, allowed []game.Move, info func(string)) (uci.SearchResult, error) {
	mc, err := s.mctsMover(p, capThreads(s.opts.Threads))
	if err != nil {
		return uci.SearchResult{}, err
	}
	began, last := time.Now(), time.Now()
	sims := s.mctsSims(lim, p.SideToMove())
	// Without a limit Simulations 0 plays the raw policy; Gumbel search
	// fixes its simulations in advance and cannot be interrupted.
	bounded := lim.Nodes > 0 || !lim.Infinite && lim.Depth == 0 && moveTime(lim, p.SideToMove()) == 0
	if s.play.MCTS.Gumbel && !bounded {
		return uci.SearchResult{}, fmt.Errorf("option %s is gumbel, which needs a simulation budget: go nodes N, or go without limits (%s)", optSearch, optSimulations)
	}
	ml := mcts.Limits{Sims: sims, Interruptible: !(bounded && (sims == 0 || s.play.MCTS.Gumbel)),
		Progress: func(r mcts.Result) {
			if time.Since(last) >= infoEvery {
				info(mctsInfo(p, r, r.PV, began, s.showWDL))
				last = time.Now()
			}
		}}
	if lim.Depth > 0 {
		depth := min(lim.Depth, mcts.MaxPV)
		ml.Done = func(r mcts.Result) bool { return deepEnough(p, r, depth) }
	}
	ctx, cancel := deadline(ctx, lim, p.SideToMove())
	defer cancel()
	res, err := mc.Search(ctx, p, ml)
	if err != nil {
		return uci.SearchResult{}, err
	}
	best, pv := res.Best, res.PV
	if allowed != nil && !slices.Contains(allowed, best) {
		best = cmp.Or(res.MostVisited(allowed), allowed[0])
		pv = []game.Move{best}
	}
	info(mctsInfo(p, res, pv, began, s.showWDL))
	info(visitsInfo(p, res, 5))
	out := uci.SearchResult{Best: best}
	if len(pv) > 1 {
		out.Ponder = pv[1]
	}
	return out, nil
}

// searchABZero is the abzero mover.
func (s *Searcher) searchABZero(ctx context.Context, p alphabeta.Position, lim uci.Limits, allowed []game.Move, info func(string)) (uci.SearchResult, error) {
	// The blend's alpha-beta searches as the alpha-beta mover does, with
	// the game's pruning set: it scores exactly only the moves its weight
	// can lift to the top (alphabeta.Limits.MultiPVMargin), so pruning
	// costs the scores nothing the blend reads (as the arena's abzero:
	// player).
	ab := s.userOptions(alphabeta.DefaultOptionsFor(p.Game()))
	ab.Threads = capThreads(ab.Threads)
	net, note, err := s.ev.learnedNet(p)
	if err != nil {
		return uci.SearchResult{}, err
	}
	if note != "" {
		info(note)
	}
	mv, err := s.abzeroMover(p, ab, net)
	if err != nil {
		return uci.SearchResult{}, err
	}
	us := p.SideToMove()
	al := abzero.Limits{Depth: lim.Depth, Time: moveTime(lim, us), Infinite: lim.Infinite, Interruptible: true,
		Allowed: allowed, Info: abInfo(p.Clone().(alphabeta.Position), info), Prior: s.play.Prior, InSearch: true}
	al.SimTime = al.Time * time.Duration(s.play.SimShare) / 100
	switch {
	case lim.Nodes > 0:
		al.Sims = int(min(lim.Nodes, math.MaxInt32))
	case al.Time == 0:
		al.Sims = s.play.Sims // the option as it is now, not as the mover was built
	}
	began := time.Now()
	d, err := mv.Move(ctx, p, al)
	if err != nil {
		return uci.SearchResult{}, err
	}
	if d.MCTS.Best != game.NoMove {
		info(mctsInfo(p, d.MCTS, d.MCTS.PV, began, s.showWDL))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "string abzero m %g depth %d sims %d:", d.M, d.AlphaBeta.Depth, d.MCTS.Simulations)
	if len(d.Candidates) > 0 {
		cands := slices.DeleteFunc(slices.Clone(d.Candidates), func(c abzero.Candidate) bool {
			return allowed != nil && !slices.Contains(allowed, c.Move)
		})
		slices.SortStableFunc(cands, func(a, b abzero.Candidate) int { return cmp.Compare(b.V, a.V) })
		for _, c := range cands[:min(5, len(cands))] {
			fmt.Fprintf(&b, " %s v %.3f pi %.3f beta %.2f", p.FormatMove(c.Move), c.V, c.Pi, c.Beta)
		}
	} else if d.AlphaBeta.Depth > 0 {
		// Blended inside alpha-beta: its score is the move's value.
		fmt.Fprintf(&b, " %s v %.2f", p.FormatMove(d.Move), abzero.Beta(d.AlphaBeta.Score, abzero.DefaultMateValue))
	}
	info(b.String())
	return uci.SearchResult{Best: d.Move}, nil
}
