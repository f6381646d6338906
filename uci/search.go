package uci

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// Searcher is the search behind `go`, declared here so that the engine
// needs nothing else from a search package; tabula engine wires one in with
// WithSearcher.
type Searcher interface {
	// Search looks for the best move in p within lim. p is a clone that the
	// searcher owns. When ctx is cancelled (`stop`, `quit`, the end of the
	// input, the end of Run) it returns the best move found so far at once.
	// info writes one `info ...` line; pass the text after "info ", such as
	// "depth 3 score cp 20 pv h3e3". Best is game.NoMove when p has no legal
	// move.
	Search(ctx context.Context, p game.Position, lim Limits, info func(string)) (SearchResult, error)
}

// OptionSetter is implemented by searchers with options of their own (hash
// size, algorithm, multi-PV). The engine lists them after the rule options
// and routes `setoption` for those names to the searcher.
type OptionSetter interface {
	SearchOptions() []game.Option
	SetSearchOption(name, value string) error
}

// StringOptioner is implemented by OptionSetters with free-text options
// (a file name, a real number): the engine declares the options it names
// as `type string` and passes their values to SetSearchOption unchecked.
type StringOptioner interface {
	StringOptions() []string
}

// isStringOption reports whether the searcher declares name as free text.
func isStringOption(s Searcher, name string) bool {
	so, ok := s.(StringOptioner)
	if !ok {
		return false
	}
	for _, n := range so.StringOptions() {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// GameSetter is implemented by searchers with options that hold for one
// game only (a network is made for one game). The engine names the game
// when it is created and at every variant switch, so that such options
// are checked when they are set rather than at the first go. An error
// says the options do not fit the game: it is reported, and the switch
// stands.
type GameSetter interface {
	SetGame(name string) error
}

// NewGamer is implemented by searchers that keep state between moves (a
// transposition table); `ucinewgame` clears it.
type NewGamer interface {
	NewGame()
}

// SearchResult is what a search reports at its end.
type SearchResult struct {
	Best   game.Move
	Ponder game.Move // the expected reply, or game.NoMove
}

// Limits are the limits of a `go` command. Zero values mean "not given";
// with no limit at all the searcher picks its own default.
type Limits struct {
	Depth    int
	Nodes    uint64
	Mate     int              // search for a mate in this many moves
	MoveTime time.Duration    // exact time for this move
	Time     [2]time.Duration // clocks (wtime, btime) indexed by game.Color
	// Clocked marks the clocks that were given: a given clock at zero
	// (read from a zero or negative one after a flag fall) asks for a
	// move at once, where an absent one means no clock.
	Clocked   [2]bool
	Inc       [2]time.Duration // increments (winc, binc) indexed by game.Color
	MovesToGo int
	// Infinite searches until stop; the engine holds bestmove back until
	// then even when the searcher returns early.
	Infinite bool
	// SearchMoves restricts the root to these legal moves.
	SearchMoves []game.Move
}

// MoveOverheadOption is the engine option (UCI, UCCI and CECP) that sets
// the time kept back from every time limit, in milliseconds, for what
// happens outside the search: writing the move, the pipe, the GUI reading
// it. Under a hard per-move limit (xboard's st) a move that comes a few
// milliseconds late loses the game.
const MoveOverheadOption = "MoveOverhead"

const (
	// DefaultMoveOverhead is the default of MoveOverheadOption.
	DefaultMoveOverhead = 50 * time.Millisecond
	// MaxMoveOverhead bounds MoveOverheadOption.
	MaxMoveOverhead = 5 * time.Second
	// minBudget is the least time a move gets once the overhead is off:
	// enough for a fast sensible move rather than none.
	minBudget = time.Millisecond
)

// MoveOverheadDeclaration is MoveOverheadOption as an option to declare.
func MoveOverheadDeclaration() game.Option {
	return game.Option{Name: MoveOverheadOption, Default: strconv.FormatInt(DefaultMoveOverhead.Milliseconds(), 10),
		Min: 0, Max: int(MaxMoveOverhead.Milliseconds())}
}

// WithOverhead returns lim with overhead taken off its time limits, and
// the time by which the search must end (0: no time limit): the move time
// less the overhead, or the remaining clock of us less the overhead,
// whichever is sooner, and never below minBudget. The searcher plans its
// time on the returned limits; the caller cancels the search at the
// deadline in case it overruns. An infinite search has no deadline: it
// waits for stop.
func (lim Limits) WithOverhead(us game.Color, overhead time.Duration) (Limits, time.Duration) {
	if lim.Infinite {
		return lim, 0
	}
	var limit time.Duration
	if lim.MoveTime > 0 {
		lim.MoveTime = max(lim.MoveTime-overhead, minBudget)
		limit = lim.MoveTime
	}
	if lim.Clocked[us] {
		lim.Time[us] = max(lim.Time[us]-overhead, 0)
		if t := max(lim.Time[us], minBudget); limit == 0 || t < limit {
			limit = t
		}
	}
	return lim, limit
}

const (
	// maxPerftDepth bounds `go perft N`.
	maxPerftDepth = 20
	// perftSplit: subtrees of at most this many plies are counted by
	// game.Perft in one call; deeper ones are split so that stop acts
	// within one such subtree (a few milliseconds in Xiangqi).
	perftSplit = 4
	// maxMillis bounds times in `go` (about 31 years), far below the
	// overflow of time.Duration.
	maxMillis = 1_000_000_000_000
	// maxSearchDepth bounds `go depth` and `go mate`.
	maxSearchDepth = 10_000
)

// cmdGo handles `go perft N` and hands other `go` forms to the searcher.
func (e *Engine) cmdGo(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "perft" {
		if len(args) < 2 {
			return errors.New("go perft: missing depth")
		}
		if len(args) > 2 {
			return fmt.Errorf("go perft: unexpected %s after the depth", clip(args[2]))
		}
		d, err := strconv.Atoi(args[1])
		if err != nil || d < 1 || d > maxPerftDepth {
			return fmt.Errorf("go perft: depth %s is not an integer in [1, %d]", clip(args[1]), maxPerftDepth)
		}
		if e.pos == nil {
			return e.errNoPosition("go perft")
		}
		p := e.pos.Clone()
		e.startJob(ctx, false, func(ctx context.Context, j *job) { e.perft(ctx, j, p, d) })
		return nil
	}
	if e.pos == nil {
		// The GUI waits for bestmove: an error alone would hang it.
		e.out.errorf("%v", e.errNoPosition("go"))
		e.out.lines("bestmove (none)")
		return nil
	}
	err := errors.New("search is not available yet")
	var lim Limits
	if e.searcher != nil {
		lim, err = parseLimits(args, e.pos)
	}
	if err != nil {
		// The GUI waits for bestmove, as above.
		e.out.errorf("%v", err)
		e.out.lines("bestmove (none)")
		return nil
	}
	e.startSearch(ctx, lim)
	return nil
}

// startSearch runs the searcher on a copy of the position in the
// background; the reply is written in the protocol spoken now.
func (e *Engine) startSearch(ctx context.Context, lim Limits) {
	p, ref := e.pos.Clone(), e.pos.Clone()
	lim, limit := lim.WithOverhead(p.SideToMove(), e.overhead)
	var deadline time.Time
	if limit > 0 {
		deadline = time.Now().Add(limit)
	}
	d := dialect{ucci: e.proto == protoUCCI, millis: e.millis}
	e.startJob(ctx, true, func(ctx context.Context, j *job) { e.search(ctx, j, p, ref, lim, deadline, d) })
}

// dialect is how a search reports: UCI, or UCCI with its time unit.
type dialect struct {
	ucci, millis bool
}

// perft prints the divide of p to depth as Fairy-Stockfish does: one
// `move: count` line per legal move in generation order (as game.Divide),
// an empty line, and `Nodes searched: total`. When ctx is cancelled it
// stops and says so. j is marked answered before the last line.
func (e *Engine) perft(ctx context.Context, j *job, p game.Position, depth int) {
	var total uint64
	for _, m := range p.GenerateMoves(nil) {
		p.Make(m)
		n, ok := perftCtx(ctx, p, depth-1)
		p.Unmake()
		if !ok {
			j.answered.Store(true)
			e.out.message("perft stopped")
			return
		}
		total += n
		e.out.printf("%s: %d", p.FormatMove(m), n)
	}
	j.answered.Store(true)
	e.out.lines("", fmt.Sprintf("Nodes searched: %d", total))
}

// perftCtx is game.Perft with a check of ctx between subtrees of
// perftSplit plies; ok is false when ctx was cancelled.
func perftCtx(ctx context.Context, p game.Position, depth int) (n uint64, ok bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	if depth <= perftSplit {
		return game.Perft(p, depth), true
	}
	for _, m := range p.GenerateMoves(nil) {
		p.Make(m)
		c, ok := perftCtx(ctx, p, depth-1)
		p.Unmake()
		if !ok {
			return 0, false
		}
		n += c
	}
	return n, true
}

// search runs the searcher on p and prints bestmove; ref is an untouched
// copy of p to check and format the moves it returns. The search is
// stopped at deadline (when not zero) whatever the searcher makes of lim.
// In UCCI the info lines are translated (ucciInfo) and no move is
// `nobestmove`. j is marked answered before bestmove is written.
func (e *Engine) search(ctx context.Context, j *job, p, ref game.Position, lim Limits, deadline time.Time, d dialect) {
	info := func(s string) { e.out.lines("info " + oneLine(s)) }
	none := "bestmove (none)"
	if d.ucci {
		info = func(s string) { e.out.lines(ucciInfo(oneLine(s), d.millis)...) }
		none = "nobestmove"
	}
	sctx := ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		sctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	res, err := e.searcher.Search(sctx, p, lim, info)
	if err != nil {
		e.out.errorf("search: %v", err)
	}
	if lim.Infinite {
		<-ctx.Done()
	}
	line := none
	if res.Best != game.NoMove {
		switch {
		case !game.IsLegal(ref, res.Best):
			e.out.errorf("search: the searcher returned an illegal move")
		case len(lim.SearchMoves) > 0 && !slices.Contains(lim.SearchMoves, res.Best):
			e.out.errorf("search: the searcher returned a move outside searchmoves (or banned by banmoves)")
		default:
			line = "bestmove " + ref.FormatMove(res.Best)
			ref.Make(res.Best)
			if res.Ponder != game.NoMove && game.IsLegal(ref, res.Ponder) {
				line += " ponder " + ref.FormatMove(res.Ponder)
			}
			ref.Unmake()
		}
	}
	j.answered.Store(true)
	e.out.lines(oneLine(line))
}

// goKeywords are the words of a `go` command; they end a searchmoves list.
var goKeywords = map[string]bool{
	"searchmoves": true, "ponder": true, "wtime": true, "btime": true,
	"winc": true, "binc": true, "movestogo": true, "depth": true,
	"nodes": true, "mate": true, "movetime": true, "infinite": true,
	"perft": true,
}

// parseLimits reads the arguments of `go` (everything but perft); moves
// after searchmoves are checked for legality in p.
// goNumber reads the number after the keyword args[*i] of a go command,
// in [lo, hi], and advances *i past it.
func goNumber(args []string, i *int, lo, hi int64) (int64, error) {
	kw := args[*i]
	if *i+1 >= len(args) {
		return 0, fmt.Errorf("go %s: missing value", kw)
	}
	*i++
	v, err := strconv.ParseInt(args[*i], 10, 64)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("go %s: value %s is not an integer in [%d, %d]", kw, clip(args[*i]), lo, hi)
	}
	return v, nil
}

func parseLimits(args []string, p game.Position) (Limits, error) {
	var lim Limits
	num := func(i *int, lo, hi int64) (int64, error) { return goNumber(args, i, lo, hi) }
	ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
	for i := 0; i < len(args); i++ {
		var (
			v   int64
			err error
		)
		switch kw := args[i]; kw {
		case "infinite":
			lim.Infinite = true
		case "ponder":
			return Limits{}, errors.New("go ponder: pondering is not supported")
		case "perft":
			return Limits{}, errors.New(`go: perft must come first ("go perft N")`)
		case "depth":
			if v, err = num(&i, 1, maxSearchDepth); err == nil {
				lim.Depth = int(v)
			}
		case "mate":
			if v, err = num(&i, 1, maxSearchDepth); err == nil {
				lim.Mate = int(v)
			}
		case "nodes":
			if v, err = num(&i, 1, 1<<62); err == nil {
				lim.Nodes = uint64(v)
			}
		case "movestogo":
			if v, err = num(&i, 1, 1_000_000); err == nil {
				lim.MovesToGo = int(v)
			}
		case "movetime":
			if v, err = num(&i, 0, maxMillis); err == nil {
				lim.MoveTime = ms(v)
			}
		case "wtime", "btime":
			// GUIs send negative clocks after a flag fall: read as zero.
			if v, err = num(&i, -maxMillis, maxMillis); err == nil {
				lim.Time[colorOf(kw)], lim.Clocked[colorOf(kw)] = ms(max(v, 0)), true
			}
		case "winc", "binc":
			if v, err = num(&i, 0, maxMillis); err == nil {
				lim.Inc[colorOf(kw)] = ms(v)
			}
		case "searchmoves":
			j := i + 1
			for ; j < len(args) && !goKeywords[args[j]]; j++ {
				m, perr := p.ParseMove(args[j])
				if perr != nil {
					return Limits{}, fmt.Errorf("go searchmoves: move %s: %w", clip(args[j]), perr)
				}
				lim.SearchMoves = append(lim.SearchMoves, m)
			}
			if j == i+1 {
				return Limits{}, errors.New("go searchmoves: missing moves")
			}
			i = j - 1
		default:
			return Limits{}, fmt.Errorf("go: unknown parameter %s", clip(kw))
		}
		if err != nil {
			return Limits{}, err
		}
	}
	return lim, nil
}

// colorOf maps wtime/winc to the first player and btime/binc to the second.
func colorOf(kw string) game.Color {
	if strings.HasPrefix(kw, "w") {
		return game.First
	}
	return game.Second
}
