package alphabeta

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// Algorithm names.
const (
	AlgAlphaBeta     = "alphabeta"      // fail-soft alpha-beta
	AlgAlphaBetaHard = "alphabeta-hard" // fail-hard alpha-beta
	AlgPVS           = "pvs"
	AlgMTDF          = "mtdf"
	AlgNegaCStar     = "negacstar"
	AlgNegaCStarOpt  = "negacstar-opt"
)

// Algorithms lists the selectable algorithm names.
var Algorithms = []string{AlgAlphaBeta, AlgAlphaBetaHard, AlgPVS, AlgMTDF, AlgNegaCStar, AlgNegaCStarOpt}

// Options configure a Searcher.
type Options struct {
	Algorithm string
	HashMiB   int
	// Quiescence searches captures (and check evasions) at the horizon.
	Quiescence bool
	// CheckExtension searches one ply deeper when in check.
	CheckExtension bool
	// NullMove and LMR prune and reduce; they apply to games that
	// implement NullMover (null move) and to quiet late moves (LMR, by a
	// table of depth and move number, less at PV nodes and for killers).
	NullMove bool
	LMR      bool
	// Aspiration searches each iteration from depth 4 on in a window
	// around the previous score, widening it on a fail (PVS and
	// alpha-beta).
	Aspiration bool
	// ReverseFutility returns the static evaluation at shallow non-PV
	// nodes where it beats beta by a margin per ply.
	ReverseFutility bool
	// Futility skips quiet moves that give no check at shallow non-PV
	// nodes where the evaluation plus a margin cannot reach alpha.
	Futility bool
	// LateMovePruning skips quiet moves that give no check after the
	// first few at shallow non-PV nodes.
	LateMovePruning bool
	// DeltaPruning skips quiescence captures that cannot lift the
	// evaluation to alpha even with a margin.
	DeltaPruning bool
	// SEE orders captures that lose material by static exchange
	// evaluation after the quiet moves and skips those that give no check
	// in quiescence out of check (games that implement
	// ExchangeEvaluator).
	SEE bool
	// QSChecks also searches, at the first ply of quiescence, the quiet
	// moves that give check and do not lose material by static exchange
	// (games that implement QuietChecker).
	QSChecks bool
	// Singular extends the table move by a ply when a reduced search of
	// the other moves, with it excluded, fails low against a margin below
	// its table score: the move is the only good one (singular
	// extension). When that search fails high against beta instead,
	// several moves beat beta and the node is cut (multi-cut).
	Singular bool
	// ExactDepthTT lets TT entries cut off only at exactly the depth they
	// were searched to, so that every algorithm returns the fixed-depth
	// minimax value (the equivalence invariant). Off, deeper entries are
	// used too, which is stronger.
	ExactDepthTT bool
	// Threads is the number of search threads (0 or 1: one, the
	// deterministic default). More run Lazy SMP: Search starts Threads-1
	// helpers on copies of the position that share the TT and only
	// speak through it, while the main thread decides and reports.
	// FixedDepth, Quiesce and RootScores search on one thread.
	Threads int
}

// fullWidth returns the options without forward pruning: no null move,
// reductions or pruning rules. Ordering, quiescence and check extension
// stay. A full-width search of d plies finds every mate within d plies
// at its distance; pruning can hide a shorter one.
func (o Options) fullWidth() Options {
	o.NullMove, o.LMR, o.ReverseFutility, o.Futility, o.LateMovePruning = false, false, false, false, false
	o.DeltaPruning, o.Singular = false, false
	return o
}

// MaxThreads bounds Options.Threads.
const MaxThreads = 256

// DefaultOptions is the classic set: PVS, quiescence and the check
// extension, no forward pruning. Each pruning feature is on only for a
// game whose matches showed it pays (DefaultOptionsFor), because pruning
// trades exactness for depth and whether that pays depends on the game's
// evaluation and branching; a game without that evidence keeps the
// exact search (the matches are in docs/notebook/alphabeta.md).
func DefaultOptions() Options {
	return Options{Algorithm: AlgPVS, HashMiB: 64, Quiescence: true, CheckExtension: true}
}

// features maps the feature names of Set to their options.
func (o *Options) features() map[string]*bool {
	return map[string]*bool{
		"quiescence": &o.Quiescence, "checkext": &o.CheckExtension,
		"nullmove": &o.NullMove, "lmr": &o.LMR, "aspiration": &o.Aspiration,
		"rfp": &o.ReverseFutility, "futility": &o.Futility, "lmp": &o.LateMovePruning,
		"delta": &o.DeltaPruning, "see": &o.SEE, "qchecks": &o.QSChecks,
		"singular": &o.Singular,
	}
}

// RetiredFeatures are the features that were measured, did not pay and
// were removed (docs/retired.md): internal iterative reduction,
// history-adjusted LMR, continuation history, SEE pruning, the
// improving reduction and ProbCut.
var RetiredFeatures = []string{"iir", "histlmr", "conthist", "seeprune", "improving", "probcut"}

// FeatureNames lists the names Set takes.
func FeatureNames() []string {
	var o Options
	return slices.Sorted(maps.Keys(o.features()))
}

// Set switches the search feature name (one of FeatureNames) on or off.
func (o *Options) Set(name string, on bool) error {
	f, ok := o.features()[name]
	if !ok && slices.Contains(RetiredFeatures, name) {
		return fmt.Errorf("alphabeta: search feature %q was retired (docs/retired.md)", name)
	}
	if !ok {
		return fmt.Errorf("alphabeta: unknown search feature %q (valid: %s)", name, strings.Join(FeatureNames(), ", "))
	}
	*f = on
	return nil
}

// DefaultOptionsFor returns the strongest measured configuration for a
// game: DefaultOptions with the pruning that SPRTs accepted for it
// (docs/notebook/alphabeta.md), which the game names through its
// game.AlphaBetaTuned capability. Games without such evidence (Connect
// Four, Catch the Lion, whose ab:depth=N players are fixed anchors of the
// learning benchmarks) and unregistered names get DefaultOptions.
func DefaultOptionsFor(gameName string) Options {
	o := DefaultOptions()
	g, err := game.Lookup(gameName)
	if err != nil {
		return o
	}
	if t, ok := game.Capability[game.AlphaBetaTuned](g); ok {
		for _, f := range t.AlphaBetaFeatures() {
			// A name Set does not know is the game's error, caught by
			// TestTunedFeaturesKnown, not a reason to fail a search.
			o.Set(f, true)
		}
	}
	return o
}

// FixedDepthOptions leave the searched tree independent of the algorithm:
// no extensions, reductions or pruning; TT cutoffs at equal depth only.
func FixedDepthOptions(algo string) Options {
	return Options{Algorithm: algo, HashMiB: 16, Quiescence: true, ExactDepthTT: true}
}

// Limits bound one search. Zero values mean "no limit"; with none at all
// the search stops at MaxDepth.
type Limits struct {
	Depth int
	Nodes uint64
	// Time is the hard limit: the search stops when it is up. Alone it
	// is a fixed time per move (UCI movetime), all of which is used.
	Time time.Duration
	// SoftTime, with a clock, is the time the search aims at: no
	// iteration starts once about half of it is gone (the next would
	// rarely finish), less once the best move has held for several
	// iterations and more right after it changed (softStop).
	SoftTime time.Duration
	// MultiPV asks for an exact score of every root move at the deepest
	// completed depth (Result.RootScores). Under Time they are scored
	// after every iteration, so that the clock always leaves the scores
	// of some depth (Result.RootDepth); otherwise once, after the last.
	MultiPV bool
	// MultiPVMargin > 0 scores exactly only the root moves within it of
	// the best; the others get upper bounds (RootScore.Upper) at most the
	// best's score less the margin.
	MultiPVMargin int
	// RootBonus is what a blend adds to each root move's score
	// (centi-units, >= 0). Without MultiPV the search itself maximises
	// score + bonus (rounded, at most MaxRootBonus) over the root moves,
	// at a plain search's cost: Result.Move is the blend's choice and
	// Result.Score its value.
	// With MultiPV (it replaces MultiPVMargin) only the
	// moves whose score plus bonus can reach the best exact move's are
	// scored exactly, and each other gets an upper bound that keeps its
	// score plus bonus below that. A blend that knows its bonuses before
	// the search (the network's prior) then pays little more than the
	// search: a move with no bonus is bounded at the best score, where
	// the iteration's own null windows left it in the table.
	RootBonus func(game.Move) float64
}

// MaxRootBonus bounds a root bonus added inside the search (Limits.
// RootBonus without MultiPV), so that scores plus bonuses stay below mate
// scores; a blend that weighs more uses multi-PV.
const MaxRootBonus = 10000

// MaxDepth bounds iterative deepening.
const MaxDepth = 64

// Info describes one completed iteration.
type Info struct {
	Depth, SelDepth int
	Score           int
	Nodes           uint64 // of every thread
	Time            time.Duration
	PV              []game.Move
	Hashfull        int
}

// RootScore is one root move's score: exact, or with Upper an upper
// bound (Limits.MultiPVMargin).
type RootScore struct {
	Move  game.Move
	Score int
	Upper bool
}

// Result is the outcome of a search.
type Result struct {
	Move        game.Move // game.NoMove when the position has no legal move
	Score       int
	Depth       int      // deepest completed iteration
	Nodes       uint64   // of every thread
	ThreadNodes []uint64 // per thread, the main thread's first
	Time        time.Duration
	PV          []game.Move
	RootScores  []RootScore // with Limits.MultiPV, best first
	RootDepth   int         // the depth of RootScores
}

type algorithm uint8

const (
	algAB algorithm = iota
	algABHard
	algPVS
	algMTDF
	algNegaC
	algNegaCOpt
)

const historySize = 1 << 16

// Searcher searches positions of any game. It is not safe for concurrent
// use; run one per goroutine. With Options.Threads > 1 its Search runs
// goroutines of its own (helpers.go), all joined before it returns.
type Searcher struct {
	opts     Options
	algo     algorithm
	failHard bool
	pvs      bool
	tt       *TT

	p        Position
	nm       NullMover
	qo       QuietOrderer
	see      ExchangeEvaluator
	qc       QuietChecker // with QSChecks
	ctx      context.Context
	start    time.Time
	deadline time.Time
	maxNodes uint64
	nodes    uint64
	aborted  bool
	seldepth int

	moves   [MaxPly][]game.Move
	scores  [MaxPly][]int32
	killers [MaxPly][2]game.Move
	history [historySize]int32

	// excluded[ply] is the move a singular-extension search at ply leaves
	// out (game.NoMove otherwise).
	excluded [MaxPly]game.Move
	// proofTT is the table of proveMate's full-width searches, made on
	// first use: the main table holds scores that pruning shaped.
	proofTT *TT
	pv      [MaxPly + 1][MaxPly + 1]game.Move
	pvLen   [MaxPly + 1]int

	rootBest  game.Move
	rootScore int
	// rootBonus, when not nil, is added to each root move's score inside
	// the search (Limits.RootBonus without MultiPV), rounded.
	rootBonus func(game.Move) float64

	// Lazy SMP: the main searcher's helpers (their own move buffers,
	// killers and history, the main searcher's TT) and, while a search
	// runs, the flag that stops them. A helper has id > 0 and polls stop;
	// it publishes its node count every poll for the main thread's node
	// limit and info.
	helpers   []*Searcher
	running   []*Searcher // the helpers of the current search
	id        int
	stop      *atomic.Bool
	published atomic.Uint64
}

// New returns a searcher; an unknown algorithm is an error.
func New(opts Options) (*Searcher, error) {
	i := slices.Index(Algorithms, opts.Algorithm)
	if i < 0 {
		return nil, fmt.Errorf("alphabeta: unknown algorithm %q (valid: %s)", opts.Algorithm, strings.Join(Algorithms, ", "))
	}
	if opts.HashMiB < 0 || opts.HashMiB > 1<<16 {
		return nil, fmt.Errorf("alphabeta: hash size %d MiB out of range [0, 65536]", opts.HashMiB)
	}
	if opts.Threads < 0 || opts.Threads > MaxThreads {
		return nil, fmt.Errorf("alphabeta: %d threads out of range [0, %d] (0 and 1: one thread)", opts.Threads, MaxThreads)
	}
	s := newSearcher(opts, algorithm(i), NewTT(opts.HashMiB))
	for id := 1; id < opts.Threads; id++ {
		h := newSearcher(opts, s.algo, s.tt)
		h.id = id
		s.helpers = append(s.helpers, h)
	}
	return s, nil
}

func newSearcher(opts Options, algo algorithm, tt *TT) *Searcher {
	s := &Searcher{opts: opts, algo: algo, tt: tt}
	s.failHard = s.algo == algABHard
	s.pvs = s.algo == algPVS
	for i := range s.moves {
		s.moves[i] = make([]game.Move, 0, 256)
		s.scores[i] = make([]int32, 256)
	}
	return s
}

// Options returns the searcher's options.
func (s *Searcher) Options() Options { return s.opts }

// Clear forgets the TT, killers and history (a new game).
func (s *Searcher) Clear() {
	s.tt.Clear()
	s.killers = [MaxPly][2]game.Move{}
	clear(s.history[:])
	for _, h := range s.helpers {
		h.killers = [MaxPly][2]game.Move{}
		clear(h.history[:])
	}
}

// Nodes returns the nodes of the last search, of every thread.
func (s *Searcher) Nodes() uint64 {
	n := s.nodes
	for _, h := range s.running {
		n += h.published.Load()
	}
	return n
}

func (s *Searcher) prepare(ctx context.Context, p Position, lim Limits) {
	s.p = p
	s.qo, _ = p.(QuietOrderer)
	s.nm = ifOn[NullMover](p, s.opts.NullMove)
	s.see = ifOn[ExchangeEvaluator](p, s.opts.SEE)
	s.qc = ifOn[QuietChecker](p, s.opts.QSChecks)
	s.ctx = ctx
	s.start = time.Now()
	s.deadline = time.Time{}
	if lim.Time > 0 {
		s.deadline = s.start.Add(lim.Time)
	}
	s.maxNodes = lim.Nodes
	s.rootBonus = nil
	if lim.RootBonus != nil && !lim.MultiPV {
		s.rootBonus = lim.RootBonus
	}
	s.nodes = 0
	s.running = nil
	s.aborted = false
	s.seldepth = 0
	s.killers = [MaxPly][2]game.Move{}
	for i := range s.history {
		s.history[i] /= 8 // keep some ordering knowledge between moves
	}
	if s.id == 0 {
		s.tt.NewSearch() // the helpers search in the main thread's generation
	}
}

// ifOn returns p as the optional game interface T when its feature is on,
// else nil (the searcher tests for nil).
func ifOn[T any](p Position, on bool) T {
	var t T
	if on {
		t, _ = p.(T)
	}
	return t
}

// poll checks the stop conditions; it runs every 1024 nodes.
func (s *Searcher) poll() {
	if s.stop != nil { // a helper: the main thread decides
		s.published.Store(s.nodes)
		if s.stop.Load() {
			s.aborted = true
		}
		return
	}
	if s.maxNodes > 0 && s.Nodes() >= s.maxNodes {
		s.aborted = true
		return
	}
	if !s.deadline.IsZero() && time.Now().After(s.deadline) {
		s.aborted = true
		return
	}
	select {
	case <-s.ctx.Done():
		s.aborted = true
	default:
	}
}
