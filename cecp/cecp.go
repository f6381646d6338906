// Package cecp speaks the Chess Engine Communication Protocol (CECP
// version 2, "the xboard protocol", Tim Mann and H. G. Muller) on the
// engine side, so that GNU xboard and WinBoard host the engine for the
// games that say how (game.XboardHosted) the way they host
// Fairy-Stockfish: for Xiangqi `variant xiangqi`, moves in xboard's
// Xiangqi coordinates (files a-i, ranks 0-9 from Red's side, which is
// ICCS: h2e2), FEN as Fairy-Stockfish writes it.
//
// The searching is the same uci.Searcher the UCI and UCCI front-ends use.
// Implemented: xboard, protover (features ping, setboard, usermove, time,
// myname, variants, MoveOverhead and the searcher's options, done), new,
// variant, force, go, playother, usermove (and bare moves), ? (move now),
// level, st, sd, time, otim, ping/pong, setboard, undo, remove, result,
// post, nopost, option NAME=VALUE, analyze, exit, . (analysis status),
// quit. Draw offers are declined by silence; hard, easy, random,
// computer, name, rating, ics, accepted, rejected, hint and bk are
// accepted and ignored.
//
// Analysis mode (analyze, left by exit) searches the current position
// without limit and plays nothing: thinking output (ply score time nodes
// pv) comes whatever post says, and . answers a stat01 line. usermove,
// undo, remove, setboard, new and option stop the analysis and start it
// again on the changed position; go and playother leave analysis mode and
// play; result stops the analysis until the next change of position.
//
// st and the clock are hard limits in xboard: the option MoveOverhead
// (milliseconds, default 50) is taken off them before the searcher plans
// its time, and the search is stopped at st, or the clock, less it.
//
// A rejected setboard leaves no board: go, playother, usermove and undo
// answer an Error line, never a move, until new, variant or a valid
// setboard.
//
// Options sent while the engine thinks wait until the search ends (a
// ping behind them waits too), as UCI's setoption does: the searcher's
// network is never replaced under a running search. No search keeps the
// engine from quitting: quit, the end of the input, the end of Run's
// context and a command that stops the search wait for it at most a
// grace of two seconds. A line over MaxLineBytes is skipped with an
// Error line; st, level, time, otim and sd refuse values that are not
// finite or beyond any game; input quoted back in an Error line has its
// control characters escaped (\x1b) and is cut to 200 bytes.
//
// Connect Four and Catch the Lion are not offered (they lack the
// capability): xboard has no Connect Four, and knows Catch the Lion
// (Fairy-Stockfish's dobutsu) only from a board the engine would have to
// define.
package cecp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// Engine is one CECP session over in and out.
type Engine struct {
	in       io.Reader
	outMu    sync.Mutex
	out      *bufio.Writer
	searcher uci.Searcher
	name     string

	game   game.Game
	xboard game.XboardHosted // game's capability
	rules  game.Options      // resolved
	// pos is nil after a rejected setboard, which posErr holds: xboard
	// believes the engine has the board it sent, so the engine plays
	// nothing until new, variant or a valid setboard.
	pos    game.Position
	posErr error

	force      bool       // the engine plays neither side
	engineSide game.Color // the side the engine plays when not forced
	post       bool       // thinking output
	analyzing  bool       // analysis mode: search without limit, play nothing

	// Time control: level MPS BASE INC, st (fixed time per move), sd.
	mps       int
	base, inc time.Duration
	moveTime  time.Duration
	depth     int
	clock     [2]time.Duration // time (engine) and otim (opponent), by colour
	clocked   bool
	overhead  time.Duration // option MoveOverhead (uci.MoveOverheadOption)

	// The search in flight: cancel stops it, done delivers its result
	// (for the position of generation gen; a stale one is dropped).
	cancel context.CancelFunc
	done   chan searchDone
	gen    int
	// deferred holds the option commands that came during the search
	// (and the pings behind them), run in order when it ends: the
	// searcher's network and tables are not changed under it.
	deferred []string

	// progress is the search in flight's progress, for analysis's `.`.
	progressMu sync.Mutex
	progress   progress
}

// progress is what the search in flight has reported: when it started,
// and its latest depth and node count.
type progress struct {
	gen          int // the search's generation
	start        time.Time
	depth, nodes int64
	moves        int // legal moves at the root
}

type searchDone struct {
	gen int
	res uci.SearchResult
	err error
}

// New returns an engine that reads commands from in, answers on out and
// searches with s; name is what xboard shows (feature myname).
// The game played first is the first registered game xboard hosts, by
// name.
func New(in io.Reader, out io.Writer, s uci.Searcher, name string) (*Engine, error) {
	hosted := game.WithCapability[game.XboardHosted]()
	if len(hosted) == 0 {
		return nil, fmt.Errorf("cecp: no registered game is hosted by xboard (game.XboardHosted)")
	}
	e := &Engine{in: in, out: bufio.NewWriter(out), searcher: s, name: name, post: true, overhead: uci.DefaultMoveOverhead}
	if err := e.setGame(hosted[0]); err != nil {
		return nil, err
	}
	if err := e.newGame(); err != nil {
		return nil, err
	}
	return e, nil
}

// setGame makes g the game played, telling the searcher.
func (e *Engine) setGame(g game.Game) error {
	if gs, ok := e.searcher.(uci.GameSetter); ok {
		if err := gs.SetGame(g.Name); err != nil {
			return fmt.Errorf("cecp: %w", err)
		}
	}
	e.game = g
	e.xboard, _ = game.Capability[game.XboardHosted](g)
	return nil
}

// variant returns the hosted game xboard calls name.
func variant(name string) (game.Game, bool) {
	for _, g := range game.WithCapability[game.XboardHosted]() {
		if x, _ := game.Capability[game.XboardHosted](g); x.XboardVariant() == name {
			return g, true
		}
	}
	return game.Game{}, false
}

// variants is the variants feature: the xboard names of the hosted games.
func variants() string {
	var names []string
	for _, g := range game.WithCapability[game.XboardHosted]() {
		x, _ := game.Capability[game.XboardHosted](g)
		names = append(names, x.XboardVariant())
	}
	return strings.Join(names, ",")
}

// newGame sets up the start position with the engine playing the second
// side, leaving force mode (CECP's `new`).
func (e *Engine) newGame() error {
	resolved, err := e.game.Resolve(e.xboard.XboardOptions())
	if err != nil {
		return fmt.Errorf("cecp: %w", err)
	}
	p, err := e.game.New(resolved)
	if err != nil {
		return fmt.Errorf("cecp: %w", err)
	}
	e.rules, e.pos, e.force, e.engineSide, e.depth, e.moveTime, e.clocked = resolved, p, false, game.Second, 0, 0, false
	if ng, ok := e.searcher.(uci.NewGamer); ok {
		ng.NewGame()
	}
	return nil
}

// send writes one line; control characters in it (from echoed input)
// are escaped, so that it stays one line the GUI can read.
func (e *Engine) send(format string, a ...any) error {
	e.outMu.Lock()
	defer e.outMu.Unlock()
	e.out.WriteString(escape(fmt.Sprintf(format, a...)))
	e.out.WriteByte('\n')
	return e.out.Flush()
}

// MaxLineBytes is the longest input line read; a longer one is skipped
// with an error line.
const MaxLineBytes = uci.DefaultMaxLineBytes

// quitGrace is how long quit, the end of the input or the end of Run
// waits for a stopped search to return before Run returns without it. A
// search returns within milliseconds of its stop; this only bounds a
// searcher that ignores its context.
var quitGrace = 2 * time.Second

// Run answers commands until quit, the end of the input or ctx's end.
func (e *Engine) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make(chan uci.Line)
	go uci.ReadLines(ctx, e.in, MaxLineBytes, lines)
	defer e.release()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case d := <-e.done:
			if err := e.finishSearch(ctx, d); err != nil {
				return err
			}
		case l, ok := <-lines:
			switch {
			case !ok:
				return nil
			case l.Err != nil:
				return fmt.Errorf("cecp: read input: %w", l.Err)
			case l.TooLong:
				if err := e.send("Error (line longer than %d bytes): skipped", MaxLineBytes); err != nil {
					return err
				}
				continue
			}
			quit, err := e.command(ctx, strings.TrimSpace(l.Text))
			if err != nil || quit {
				return err
			}
		}
	}
}

// release ends a search in flight as Run returns, waiting for it at most
// quitGrace.
func (e *Engine) release() {
	if e.cancel == nil {
		return
	}
	if _, ok := e.cancelAndWait(); !ok {
		e.send("Error (the search did not stop within %v): quitting without its move", quitGrace)
	}
}

// command handles one line; quit reports the end of the session.
func (e *Engine) command(ctx context.Context, line string) (quit bool, err error) {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch cmd {
	case "", "xboard", "accepted", "rejected", "hard", "easy", "random", "computer", "name", "rating", "ics", "hint", "bk", "draw", "ponder":
		return false, nil
	case "analyze":
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		if e.pos == nil {
			return false, e.noPosition(line)
		}
		e.analyzing = true
		return false, e.think(ctx)
	case "exit":
		if !e.analyzing {
			return false, nil
		}
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		// Out of analysis the engine plays neither side until go or
		// playother, as before analyze from xboard's force mode.
		e.analyzing, e.force = false, true
		return false, nil
	case ".":
		return false, e.status()
	case "quit":
		return true, nil
	case "protover":
		return false, e.features()
	case "ping":
		// Commands are handled in order, so everything before the ping
		// is done (a search started by it runs on, as xboard allows);
		// behind options deferred by a search, pong waits for them.
		if len(e.deferred) > 0 {
			e.deferred = append(e.deferred, line)
			return false, nil
		}
		return false, e.send("pong %s", echo(arg))
	case "new":
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		if err := e.report(e.newGame()); err != nil {
			return false, err
		}
		return false, e.resumeAnalysis(ctx)
	case "variant":
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		g, ok := variant(arg)
		if !ok {
			return false, e.send("Error (unsupported variant): %s", echo(arg))
		}
		if g.Name != e.game.Name {
			if err := e.report(e.setGame(g)); err != nil {
				return false, err
			}
		}
		if err := e.report(e.newGame()); err != nil {
			return false, err
		}
		return false, e.resumeAnalysis(ctx)
	case "force", "result":
		if e.analyzing && cmd == "force" {
			return false, nil // analysis plays neither side already
		}
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		e.force = true
		return false, nil
	case "go":
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		if e.pos == nil {
			return false, e.noPosition(line)
		}
		e.analyzing, e.force, e.engineSide = false, false, e.pos.SideToMove()
		return false, e.think(ctx)
	case "playother":
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		if e.pos == nil {
			return false, e.noPosition(line)
		}
		e.analyzing, e.force, e.engineSide = false, false, e.pos.SideToMove().Other()
		return false, nil
	case "?":
		if e.analyzing {
			return false, nil // there is no move to play in analysis
		}
		return false, e.stopSearch(ctx)
	case "post", "nopost":
		e.post = cmd == "post"
		return false, nil
	case "level":
		return false, e.report(e.level(arg))
	case "st":
		d, ok := seconds(arg)
		if !ok {
			return false, e.send("Error (bad st): %s", echo(arg))
		}
		e.moveTime = d
		return false, nil
	case "sd":
		d, err := strconv.Atoi(arg)
		if err != nil || d <= 0 || d > maxDepth {
			return false, e.send("Error (bad sd): %s", echo(arg))
		}
		e.depth = d
		return false, nil
	case "time", "otim":
		cs, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || cs < -maxSeconds*100 || cs > maxSeconds*100 {
			return false, e.send("Error (bad %s): %s", cmd, echo(arg))
		}
		side := e.engineSide
		if cmd == "otim" {
			side = side.Other()
		}
		// A clock below zero (a flag fall) is read as empty.
		e.clock[side], e.clocked = time.Duration(max(cs, 0))*10*time.Millisecond, true
		return false, nil
	case "setboard":
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		if err := e.report(e.setBoard(arg)); err != nil {
			return false, err
		}
		return false, e.resumeAnalysis(ctx)
	case "undo", "remove":
		if err := e.abort(ctx); err != nil {
			return false, err
		}
		if e.pos == nil {
			return false, e.noPosition(line)
		}
		n := 1
		if cmd == "remove" {
			n = 2
		}
		for range n {
			if e.pos.Ply() == 0 {
				if err := e.send("Error (no move to undo): %s", cmd); err != nil {
					return false, err
				}
				break
			}
			e.pos.Unmake()
		}
		return false, e.resumeAnalysis(ctx)
	case "option":
		if e.analyzing && e.cancel != nil {
			// An analysis never ends by itself: the option stops it,
			// applies, and the analysis starts again under it.
			if err := e.abort(ctx); err != nil {
				return false, err
			}
			if err := e.report(e.option(arg)); err != nil {
				return false, err
			}
			return false, e.resumeAnalysis(ctx)
		}
		if e.cancel != nil {
			// As in UCI, an option waits for the search to end: the
			// searcher's network is not replaced under it.
			e.deferred = append(e.deferred, line)
			return false, nil
		}
		return false, e.report(e.option(arg))
	case "usermove":
		return false, e.userMove(ctx, arg)
	}
	if e.pos != nil {
		if _, err := e.pos.ParseMove(cmd); err == nil && arg == "" {
			return false, e.userMove(ctx, cmd) // a bare move (usermove=0 GUIs)
		}
	}
	return false, e.send("Error (unknown command): %s", echo(line))
}

// Bounds of the time and depth commands: far beyond any game, and far
// below the overflow of time.Duration.
const (
	maxSeconds = 1_000_000_000 // about 31 years
	maxDepth   = 10_000
)

// seconds reads a positive, finite number of seconds of at most
// maxSeconds (st, level's increment): NaN, infinities and 1e300 once
// searched without a limit.
func seconds(text string) (time.Duration, bool) {
	s, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(s) || s <= 0 || s > maxSeconds {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}

// maxEcho bounds the input quoted back in an error line.
const maxEcho = 200

// echo makes input text safe to quote in a line to the GUI: control
// characters and invalid UTF-8 escaped (escape), cut to maxEcho bytes.
func echo(s string) string {
	s = escape(s)
	if len(s) > maxEcho {
		cut := maxEcho
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// escape writes control characters (C0, DEL, C1, the Unicode line and
// paragraph separators) as \xNN or \uNNNN and invalid UTF-8 bytes as
// \xNN, so that text from the input can neither break a line nor send
// the GUI's terminal an escape sequence.
func escape(s string) string {
	if !strings.ContainsFunc(s, needsEscape) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && needsEscape(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029'
}

// noPosition answers a command that needs the board when a rejected
// setboard left none.
func (e *Engine) noPosition(cmd string) error {
	return e.send("Error (no position: the last setboard was rejected: %v; send new or setboard): %s", e.posErr, echo(cmd))
}

// report sends err as a CECP error line, or nothing.
func (e *Engine) report(err error) error {
	if err == nil {
		return nil
	}
	return e.send("Error (%v): refused", err)
}

// features answers protover 2.
func (e *Engine) features() error {
	if err := e.send(`feature ping=1 setboard=1 usermove=1 time=1 draw=0 sigint=0 sigterm=0 reuse=1 analyze=1 colors=0 name=0 san=0 myname="%s" variants="%s"`, e.name, variants()); err != nil {
		return err
	}
	if err := e.send(`feature option="%s"`, optionFeature(uci.MoveOverheadDeclaration())); err != nil {
		return err
	}
	if os, ok := e.searcher.(uci.OptionSetter); ok {
		for _, o := range os.SearchOptions() {
			if err := e.send(`feature option="%s"`, optionFeature(o)); err != nil {
				return err
			}
		}
	}
	return e.send("feature done=1")
}

// optionFeature writes a searcher option as an xboard option feature.
func optionFeature(o game.Option) string {
	switch {
	case uci.IsCheck(o):
		return fmt.Sprintf("%s -check %d", o.Name, checkBit(o.Default == "true"))
	case len(o.Values) > 0:
		vals := append([]string(nil), o.Values...)
		for i, v := range vals {
			if v == o.Default {
				vals[i] = "*" + v
			}
		}
		return fmt.Sprintf("%s -combo %s", o.Name, strings.Join(vals, " /// "))
	case o.Max > o.Min:
		return fmt.Sprintf("%s -spin %s %d %d", o.Name, o.Default, o.Min, o.Max)
	}
	return fmt.Sprintf("%s -string %s", o.Name, o.Default)
}

// option sets MoveOverhead or a searcher option from `option NAME=VALUE`.
func (e *Engine) option(arg string) error {
	name, value, ok := strings.Cut(arg, "=")
	if ok && strings.EqualFold(strings.TrimSpace(name), uci.MoveOverheadOption) {
		value = strings.TrimSpace(value)
		if err := uci.MoveOverheadDeclaration().Check(value); err != nil {
			return err
		}
		ms, _ := strconv.Atoi(value)
		e.overhead = time.Duration(ms) * time.Millisecond
		return nil
	}
	os, can := e.searcher.(uci.OptionSetter)
	if !ok || !can {
		return fmt.Errorf("option %q: want NAME=VALUE for a search option", arg)
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	for _, o := range os.SearchOptions() {
		if strings.EqualFold(o.Name, name) && uci.IsCheck(o) {
			// xboard sends a check box as 1 or 0.
			switch value {
			case "1":
				value = "true"
			case "0":
				value = "false"
			}
			if err := o.Check(value); err != nil {
				return err
			}
		}
	}
	return os.SetSearchOption(name, value)
}

// checkBit is a check option's value as xboard writes it.
func checkBit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// level reads `level MPS BASE INC` (BASE in minutes or min:sec, INC in
// seconds).
func (e *Engine) level(arg string) error {
	f := strings.Fields(arg)
	if len(f) != 3 {
		return fmt.Errorf("level %q: want MPS BASE INC", arg)
	}
	mps, err := strconv.Atoi(f[0])
	if err != nil || mps < 0 || mps > maxDepth {
		return fmt.Errorf("level %q: bad moves per session", arg)
	}
	min, sec, _ := strings.Cut(f[1], ":")
	m, err1 := strconv.ParseInt(min, 10, 64)
	s := int64(0)
	var err2 error
	if sec != "" {
		s, err2 = strconv.ParseInt(sec, 10, 64)
	}
	inc, err3 := strconv.ParseFloat(f[2], 64)
	// NaN fails every comparison: !(inc >= 0) refuses it.
	if err1 != nil || err2 != nil || err3 != nil || m < 0 || s < 0 || !(inc >= 0) ||
		m > maxSeconds/60 || s > maxSeconds || 60*m+s > maxSeconds || inc > maxSeconds {
		return fmt.Errorf("level %q: bad base or increment (want minutes[:seconds] and seconds, at most %d seconds)", arg, maxSeconds)
	}
	e.mps, e.base, e.inc = mps, time.Duration(m)*time.Minute+time.Duration(s)*time.Second, time.Duration(inc*float64(time.Second))
	e.moveTime = 0
	return nil
}

// setBoard reads xboard's FEN, as the game rewrites it into its own text
// (for Xiangqi: Fairy-Stockfish's letters, with xboard's H (horse) and E
// (elephant) read as N and B).
func (e *Engine) setBoard(fen string) error {
	p, err := e.game.Parse(e.xboard.XboardFEN(fen), e.rules)
	if err != nil {
		e.pos, e.posErr = nil, fmt.Errorf("setboard: %w", err)
		return e.posErr
	}
	e.pos = p
	return nil
}

// userMove plays the opponent's move and, when the engine is to move,
// starts thinking.
func (e *Engine) userMove(ctx context.Context, text string) error {
	if err := e.abort(ctx); err != nil {
		return err
	}
	if e.pos == nil {
		return e.noPosition("usermove " + text)
	}
	m, err := e.pos.ParseMove(text)
	if err != nil {
		return e.send("Illegal move: %s", echo(text))
	}
	e.pos.Make(m)
	if e.analyzing {
		return e.think(ctx)
	}
	if over, err := e.announceEnd(); over || err != nil {
		return err
	}
	if !e.force && e.pos.SideToMove() == e.engineSide {
		return e.think(ctx)
	}
	return nil
}

// announceEnd tells xboard the result when the game is over.
func (e *Engine) announceEnd() (bool, error) {
	st := e.pos.Status()
	if !st.Over() {
		return false, nil
	}
	res := "1/2-1/2"
	switch {
	case st.Result == game.Win && e.pos.SideToMove() == game.First, st.Result == game.Loss && e.pos.SideToMove() == game.Second:
		res = "1-0"
	case st.Result != game.Draw:
		res = "0-1"
	}
	e.force = true
	return true, e.send("%s {%s}", res, st.Reason)
}

// resumeAnalysis starts the analysis again after a command changed the
// position, when in analysis mode and there is a position.
func (e *Engine) resumeAnalysis(ctx context.Context) error {
	if !e.analyzing || e.pos == nil {
		return nil
	}
	return e.think(ctx)
}

// status answers analysis's `.` with a stat01 line: time in
// centiseconds, nodes, depth, moves left at that depth (not known: 0),
// legal moves at the root. Out of analysis, or with no search in flight,
// it answers nothing.
func (e *Engine) status() error {
	if !e.analyzing || e.cancel == nil {
		return nil
	}
	e.progressMu.Lock()
	p := e.progress
	e.progressMu.Unlock()
	return e.send("stat01: %d %d %d 0 %d", time.Since(p.start).Milliseconds()/10, p.nodes, p.depth, p.moves)
}

// think starts a search of the current position: for the engine's side
// under the time control, or in analysis mode without limit.
func (e *Engine) think(ctx context.Context) error {
	if e.analyzing {
		if e.pos.Status().Over() {
			return nil // nothing to analyse; the GUI knows the result
		}
	} else if over, err := e.announceEnd(); over || err != nil {
		return err
	}
	// The searcher plans on the limits less the overhead, and the search
	// is stopped at their deadline whatever it makes of them: xboard's
	// st is a hard limit.
	lim, limit := e.limits().WithOverhead(e.pos.SideToMove(), e.overhead)
	if e.analyzing {
		lim, limit = uci.Limits{Infinite: true}, 0
	}
	var (
		sctx   context.Context
		cancel context.CancelFunc
	)
	if limit > 0 {
		sctx, cancel = context.WithTimeout(ctx, limit)
	} else {
		sctx, cancel = context.WithCancel(ctx)
	}
	e.gen++
	gen, p, post := e.gen, e.pos.Clone(), e.post || e.analyzing
	done := make(chan searchDone, 1)
	e.cancel, e.done = cancel, done
	e.progressMu.Lock()
	e.progress = progress{gen: gen, start: time.Now(), moves: len(p.GenerateMoves(nil))}
	e.progressMu.Unlock()
	go func() {
		res, err := e.searcher.Search(sctx, p, lim, func(info string) {
			t, ok := parseInfo(info)
			if t.depth > 0 {
				e.progressMu.Lock()
				if e.progress.gen == gen {
					e.progress.depth, e.progress.nodes = t.depth, t.nodes
				}
				e.progressMu.Unlock()
			}
			if post && ok {
				e.send("%s", t)
			}
		})
		done <- searchDone{gen: gen, res: res, err: err}
	}()
	return nil
}

// limits turns the time control into the searcher's limits.
func (e *Engine) limits() uci.Limits {
	lim := uci.Limits{Depth: e.depth, MoveTime: e.moveTime}
	if e.moveTime > 0 || !e.clocked && e.base == 0 {
		if lim.MoveTime == 0 && lim.Depth == 0 {
			lim.MoveTime = time.Second // no time control given at all
		}
		return lim
	}
	lim.Time, lim.Clocked = e.clock, [2]bool{true, true}
	if !e.clocked {
		lim.Time = [2]time.Duration{e.base, e.base}
	}
	lim.Inc = [2]time.Duration{e.inc, e.inc}
	if e.mps > 0 {
		lim.MovesToGo = e.mps - (e.pos.Ply()/2)%e.mps
	}
	return lim
}

// finishSearch plays the move of a search that ended on its own or by ?
// (or drops it, when a command has changed the game since), then runs the
// commands deferred while it ran.
func (e *Engine) finishSearch(ctx context.Context, d searchDone) error {
	e.cancel, e.done = nil, nil
	if err := e.playResult(d); err != nil {
		return err
	}
	return e.runDeferred(ctx)
}

// runDeferred runs the commands deferred while a search ran.
func (e *Engine) runDeferred(ctx context.Context) error {
	lines := e.deferred
	e.deferred = nil
	for _, line := range lines {
		if _, err := e.command(ctx, line); err != nil {
			return err
		}
	}
	return nil
}

// playResult plays and announces the move of a finished search.
func (e *Engine) playResult(d searchDone) error {
	if d.gen != e.gen {
		return nil
	}
	if d.err != nil {
		return e.send("Error (search failed): %v", d.err)
	}
	if e.analyzing {
		return nil // a search that ended by itself: analysis plays nothing
	}
	if d.res.Best == game.NoMove || !game.IsLegal(e.pos, d.res.Best) {
		return e.send("Error (no move): the search found none")
	}
	text := e.pos.FormatMove(d.res.Best)
	e.pos.Make(d.res.Best)
	if err := e.send("move %s", text); err != nil {
		return err
	}
	_, err := e.announceEnd()
	return err
}

// stopSearch ends a search in flight and plays its best move so far
// (CECP's ?).
//
// A search that has not returned within quitGrace is abandoned with an
// error line, so that the loop goes on reading commands (quit among them)
// whatever the searcher does.
func (e *Engine) stopSearch(ctx context.Context) error {
	if e.cancel == nil {
		return nil
	}
	if d, ok := e.cancelAndWait(); ok {
		return e.finishSearch(ctx, d)
	}
	if err := e.send("Error (the search did not stop within %v): its move is abandoned", quitGrace); err != nil {
		return err
	}
	return e.runDeferred(ctx)
}

// cancelAndWait stops the search in flight and waits for its result at
// most quitGrace; either way the search is no longer in flight after it.
func (e *Engine) cancelAndWait() (searchDone, bool) {
	e.cancel()
	done := e.done
	e.cancel, e.done = nil, nil
	select {
	case d := <-done:
		return d, true
	case <-time.After(quitGrace):
		e.gen++ // should it come after all, it is not played
		return searchDone{}, false
	}
}

// abort ends a search in flight without playing its move: the command
// that called it changes the position or the engine's role. The options
// deferred by the search apply before that command.
func (e *Engine) abort(ctx context.Context) error {
	e.gen++
	return e.stopSearch(ctx)
}

// thought is one UCI info line's search progress, which CECP's thinking
// output writes: ply, score in centipawns (mates as 100000 + moves), time
// in centiseconds, nodes, PV.
type thought struct {
	depth, score, ms, nodes int64
	pv                      string
}

func (t thought) String() string {
	return fmt.Sprintf("%d %d %d %d %s", t.depth, t.score, t.ms/10, t.nodes, t.pv)
}

// parseInfo reads a UCI info text; ok reports a line worth thinking
// output (a depth and a PV).
func parseInfo(info string) (t thought, ok bool) {
	f := strings.Fields(info)
	for i := 0; i < len(f); i++ {
		next := func() int64 {
			if i+1 < len(f) {
				i++
				v, _ := strconv.ParseInt(f[i], 10, 64)
				return v
			}
			return 0
		}
		switch f[i] {
		case "depth":
			t.depth = next()
		case "nodes":
			t.nodes = next()
		case "time":
			t.ms = next()
		case "score":
			if i+2 < len(f) {
				kind := f[i+1]
				i++
				v := next()
				switch {
				case kind == "cp":
					t.score = v
				case kind == "mate" && v > 0:
					t.score = 100000 + v
				case kind == "mate":
					t.score = -100000 + v
				}
			}
		case "pv":
			t.pv = strings.Join(f[i+1:], " ")
			i = len(f)
		}
	}
	return t, t.depth > 0 && t.pv != ""
}
