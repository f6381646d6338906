package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/uci"
)

// Searcher is the engine's uci.Searcher: the search options, and UCI
// limits turned into a search by the selected mover (alpha-beta, the
// network's MCTS or Alpha-Beta-Zero; see movers.go) with its info lines.
//
// Options, the game and a new game are refused (ErrSearching) while a
// search runs: the search holds the network, its evaluator's helper
// goroutines and the alpha-beta tables, and closing or replacing them
// under it once left it waiting for good on helpers that had been
// stopped. The protocols apply options between searches.
type Searcher struct {
	opts    alphabeta.Options
	tunedTo string // the game whose search features opts hold
	multiPV int
	// showWDL adds the root's win, draw and loss in permille to the
	// network searches' info lines (UCI_ShowWDL), for a network with the
	// WDL head.
	showWDL bool
	s       *alphabeta.Searcher
	moverState
	// ev is the evaluation alpha-beta searches with (eval.go).
	ev evalState

	mu        sync.Mutex
	searching bool
}

// ErrSearching refuses a change of options, game or game state while a
// search runs.
var ErrSearching = errors.New("a search is running: options take effect between searches")

// busy marks a search as running, or reports one that is.
func (s *Searcher) busy() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.searching {
		return ErrSearching
	}
	s.searching = true
	return nil
}

// idle marks the search as over.
func (s *Searcher) idle() {
	s.mu.Lock()
	s.searching = false
	s.mu.Unlock()
}

// capThreads bounds a thread count by the cores the process may use
// (GOMAXPROCS). A thread beyond them only takes turns on the same cores,
// and every thread must get a turn to see that the time is up before the
// search returns: 64 threads on 2 cores missed movetime 100 by up to
// 700 ms.
func capThreads(n int) int {
	if n <= 1 {
		return n // 0 and 1: one thread, as alphabeta reads them
	}
	return max(1, min(n, runtime.GOMAXPROCS(0)))
}

// New returns a searcher with the default options (the alpha-beta mover).
func New() *Searcher {
	s := &Searcher{multiPV: 1, moverState: newMoverState(), ev: newEvalState()}
	s.opts = s.play.AlphaBeta
	return s
}

// Option names.
const (
	optAlgorithm = "Algorithm"
	optHash      = "Hash"
	optThreads   = "Threads"
	optMultiPV   = "MultiPV"
	// optShowWDL is Stockfish's option of the name: info lines say
	// `wdl W D L` in permille after the score.
	optShowWDL = "UCI_ShowWDL"
)

// SearchOptions are the knobs' options (package player declares their
// names, defaults and ranges: Hash's bound is a table ordinary machines
// can allocate, since one they cannot kills the process outright;
// Threads above the cores run as many as there are, capThreads),
// Tablebase, MultiPV and UCI_ShowWDL (a check option: uci.IsCheck).
func (s *Searcher) SearchOptions() []game.Option {
	return append(moverOptions(), game.Option{Name: optMultiPV, Default: "1", Min: 1, Max: 500},
		game.Option{Name: optShowWDL, Default: "false", Values: uci.CheckValues,
			Help: "info lines of a network with the win/draw/loss head give the root's wdl in permille"})
}

func (s *Searcher) SetSearchOption(name, value string) error {
	if err := s.busy(); err != nil {
		return fmt.Errorf("option %s: %w", name, err)
	}
	defer s.idle()
	if ok, changed, err := s.ev.setEvalOption(name, value, s.game); ok {
		if changed {
			// The tables hold the other evaluation's scores.
			s.s, s.abz = nil, nil
		}
		return err
	}
	switch name {
	case optAlgorithm, optHash, optThreads:
		if _, err := s.play.SetOption(name, value); err != nil {
			return err
		}
		// Rebuilt with the new options at the next search.
		s.s, s.tunedTo = nil, ""
		return nil
	case optMultiPV:
		s.multiPV, _ = strconv.Atoi(value)
		return nil
	case optShowWDL:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("option %s: value %q is not true or false", optShowWDL, value)
		}
		s.showWDL = b
		return nil
	}
	if ok, err := s.setMoverOption(name, value); ok {
		return err
	}
	return fmt.Errorf("unknown search option %s", name)
}

// NewGame clears what the searcher keeps between moves; during a search
// (which the protocols never allow) it does nothing.
func (s *Searcher) NewGame() {
	if s.busy() != nil {
		return
	}
	defer s.idle()
	if s.s != nil {
		s.s.Clear()
	}
	s.newGame()
	s.ev.announced = false
}

// ensureAB builds the alpha-beta searcher with the current options, an
// ab mover of package player (its positions are wrapped for the learned
// evaluation by evalPosition).
func (s *Searcher) ensureAB() error {
	if s.s != nil {
		return nil
	}
	spec := s.spec(player.KindAB)
	spec.AlphaBeta = s.opts
	spec.AlphaBeta.Threads = capThreads(spec.AlphaBeta.Threads)
	mv, err := spec.NewMover(nil, nil)
	if err != nil {
		return err
	}
	s.s = mv.AlphaBeta()
	return nil
}

// abInfo turns alpha-beta iterations into info lines.
func abInfo(p alphabeta.Position, info func(string)) func(alphabeta.Info) {
	return func(i alphabeta.Info) {
		nps := uint64(0)
		if i.Time > 0 {
			nps = uint64(float64(i.Nodes) / i.Time.Seconds())
		}
		info(fmt.Sprintf("depth %d seldepth %d score %s nodes %d nps %d time %d hashfull %d pv %s",
			i.Depth, i.SelDepth, alphabeta.FormatScore(i.Score), i.Nodes, nps, i.Time.Milliseconds(), i.Hashfull, movesText(p, i.PV)))
	}
}

// Search runs the selected mover. Root moves restricted by searchmoves
// (UCI) or banmoves (UCCI) are honoured by every mover: see allowedMoves.
func (s *Searcher) Search(ctx context.Context, gp game.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	if err := s.busy(); err != nil {
		return uci.SearchResult{}, err
	}
	defer s.idle()
	allowed, err := allowedMoves(gp, lim.SearchMoves)
	if err != nil {
		return uci.SearchResult{}, err
	}
	switch s.mover {
	case moverMCTS:
		return s.searchMCTS(ctx, gp, lim, allowed, info)
	case moverTB:
		return s.searchTB(ctx, gp, allowed, info)
	}
	p, ok := gp.(alphabeta.Position)
	if !ok {
		return uci.SearchResult{}, fmt.Errorf("game %s has no alpha-beta support", gp.Game())
	}
	if s.mover == moverABZero {
		return s.searchABZero(ctx, p, lim, allowed, info)
	}
	if g := gp.Game(); g != s.tunedTo {
		// Each game searches with the features measured best for it;
		// the algorithm, hash and threads options stay the user's.
		s.opts, s.tunedTo, s.s = s.userOptions(alphabeta.DefaultOptionsFor(g)), g, nil
	}
	if err := s.ensureAB(); err != nil {
		return uci.SearchResult{}, err
	}
	// The position searched: p itself, or p evaluated by the learned
	// network; p stays for writing moves.
	sp, err := s.ev.evalPosition(p, info)
	if err != nil {
		return uci.SearchResult{}, err
	}
	// alpha-beta has no root move filter: a restricted root takes the
	// best allowed move of the multi-PV root scores.
	al := alphabeta.Limits{Depth: lim.Depth, Nodes: lim.Nodes, MultiPV: s.multiPV > 1 || allowed != nil}
	if lim.Mate > 0 && (al.Depth == 0 || al.Depth > 2*lim.Mate-1) {
		al.Depth = 2*lim.Mate - 1
	}
	al.SoftTime, al.Time = searchTimes(lim, p.SideToMove())
	// A strength limit (UCI_LimitStrength, UCI_Elo) caps the nodes and
	// may play a random move instead: the evaluation searched with is
	// the one its Elo was measured with.
	var st player.Strength
	limited := s.play.LimitStrength
	if limited {
		eval := player.EvalClassical
		if game.Position(sp) != game.Position(p) {
			eval = player.EvalLearned
		}
		st = player.StrengthFor(gp.Game(), eval, s.play.Elo)
		al = st.Limit(al)
	}
	res := s.s.Search(ctx, sp, al, abInfo(p, info))
	// A restricted root (searchmoves, banmoves) plays the search's
	// choice: a random move could be one it excludes.
	if limited && allowed == nil {
		if m, random := st.Choose(p, res.Move); random {
			info("string a random move, as the strength limit plays some at Elo " + strconv.Itoa(s.play.Elo))
			res.Move, res.PV = m, []game.Move{m}
		}
	}
	k := 0
	for _, rs := range res.RootScores {
		if k >= s.multiPV {
			break
		}
		if allowed == nil || slices.Contains(allowed, rs.Move) {
			k++
			info(fmt.Sprintf("depth %d multipv %d score %s pv %s", res.Depth, k, alphabeta.FormatScore(rs.Score), p.FormatMove(rs.Move)))
		}
	}
	out := uci.SearchResult{Best: res.Move}
	if len(res.PV) > 1 {
		out.Ponder = res.PV[1]
	}
	if allowed == nil || slices.Contains(allowed, res.Move) {
		return out, nil
	}
	return uci.SearchResult{Best: s.bestAllowedAB(sp, res.RootScores, allowed)}, nil
}

// allowedMoves returns the legal moves of p among only, or nil when only
// is empty or holds every legal move (no restriction).
func allowedMoves(p game.Position, only []game.Move) ([]game.Move, error) {
	if len(only) == 0 {
		return nil, nil
	}
	legal := p.GenerateMoves(nil)
	n := len(legal)
	allowed := slices.DeleteFunc(legal, func(m game.Move) bool { return !slices.Contains(only, m) })
	switch {
	case len(allowed) == n:
		return nil, nil
	case len(allowed) == 0:
		return nil, errors.New("no legal move is among the allowed root moves")
	}
	return allowed, nil
}

// bestAllowedAB picks the best allowed move (any, when allowed is nil)
// from root scores (best first). Without them (a stopped search) a one-ply
// multi-PV search, a matter of milliseconds, ranks the moves; it ignores
// stop, since a move is needed either way.
func (s *Searcher) bestAllowedAB(p alphabeta.Position, scores []alphabeta.RootScore, allowed []game.Move) game.Move {
	if len(scores) == 0 {
		scores = s.s.Search(context.Background(), p, alphabeta.Limits{Depth: 1, MultiPV: true}, nil).RootScores
	}
	for _, rs := range scores {
		if allowed == nil || slices.Contains(allowed, rs.Move) {
			return rs.Move
		}
	}
	if len(allowed) > 0 {
		return allowed[0]
	}
	return game.NoMove
}

// minMoveTime is the budget on an empty clock: the fastest sensible move
// (alpha-beta finishes depth 1, MCTS plays the network's policy).
const minMoveTime = time.Millisecond

// moveTime turns the limits into a time budget: movetime when given, else
// a share of the clock (remaining / moves to go, 30 by default, plus most
// of the increment), never more than half the clock; minMoveTime on a
// given clock at zero, and 0 (no time limit) without a clock. The
// protocols have taken MoveOverhead off lim already (uci.Limits.WithOverhead).
func moveTime(lim uci.Limits, us game.Color) time.Duration {
	if lim.MoveTime > 0 {
		return lim.MoveTime
	}
	left := lim.Time[us]
	if left <= 0 {
		if lim.Clocked[us] {
			return minMoveTime
		}
		return 0
	}
	togo := lim.MovesToGo
	if togo <= 0 {
		togo = 30
	}
	t := left/time.Duration(togo) + lim.Inc[us]*3/4
	return max(min(t, left/2)-20*time.Millisecond, minMoveTime)
}

// userOptions returns base with the algorithm, hash and threads the user
// set.
func (s *Searcher) userOptions(base alphabeta.Options) alphabeta.Options {
	base.Algorithm, base.HashMiB, base.Threads = s.play.AlphaBeta.Algorithm, s.play.AlphaBeta.HashMiB, s.play.AlphaBeta.Threads
	return base
}

// searchTimes returns alpha-beta's soft and hard time limits: movetime
// is hard and used in full; a clock's share (moveTime) is the soft limit,
// with up to three times as much as the hard one when the clock allows
// (never more than half of it).
func searchTimes(lim uci.Limits, us game.Color) (soft, hard time.Duration) {
	t := moveTime(lim, us)
	if lim.MoveTime > 0 || t == 0 {
		return 0, t
	}
	return t, max(min(3*t, lim.Time[us]/2-20*time.Millisecond), t)
}

// movesText writes a line of moves, playing them on p and taking them back.
func movesText(p game.Position, pv []game.Move) string {
	parts := make([]string, 0, len(pv))
	for _, m := range pv {
		parts = append(parts, p.FormatMove(m))
		p.Make(m)
	}
	for range pv {
		p.Unmake()
	}
	return strings.Join(parts, " ")
}
