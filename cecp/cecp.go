// Package cecp speaks the Chess Engine Communication Protocol (CECP
// version 2, "the xboard protocol", Tim Mann and H. G. Muller) on the
// engine side, so that GNU xboard and WinBoard host the engine for
// Xiangqi the way they host Fairy-Stockfish: `variant xiangqi`, moves in
// xboard's Xiangqi coordinates (files a-i, ranks 0-9 from Red's side,
// which is ICCS: h2e2), FEN as Fairy-Stockfish writes it.
//
// The searching is the same uci.Searcher the UCI and UCCI front-ends use.
// Implemented: xboard, protover (features ping, setboard, usermove, time,
// myname, variants, MoveOverhead and the searcher's options, done), new,
// variant, force, go, playother, usermove (and bare moves), ? (move now),
// level, st, sd, time, otim, ping/pong, setboard, undo, remove, result,
// post, nopost, option NAME=VALUE, quit. Draw offers are declined by
// silence; hard, easy, random, computer, name, rating, ics, accepted,
// rejected, hint and bk are accepted and ignored.
//
// st and the clock are hard limits in xboard: the option MoveOverhead
// (milliseconds, default 50) is taken off them before the searcher plans
// its time, and the search is stopped at st, or the clock, less it.
//
// A rejected setboard leaves no board: go, playother, usermove and undo
// answer an Error line, never a move, until new, variant or a valid
// setboard.
//
// Connect Four and Catch the Lion are not offered: xboard has no Connect
// Four, and knows Catch the Lion (Fairy-Stockfish's dobutsu) only from a
// board the engine would have to define.
package cecp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// Variant is the only game offered, and notation is how its positions
// write xboard's coordinates.
const (
	Variant  = "xiangqi"
	notation = "iccs"
)

// Engine is one CECP session over in and out.
type Engine struct {
	in       io.Reader
	outMu    sync.Mutex
	out      *bufio.Writer
	searcher uci.Searcher
	name     string

	game  game.Game
	rules game.Options // resolved
	// pos is nil after a rejected setboard, which posErr holds: xboard
	// believes the engine has the board it sent, so the engine plays
	// nothing until new, variant or a valid setboard.
	pos    game.Position
	posErr error

	force      bool       // the engine plays neither side
	engineSide game.Color // the side the engine plays when not forced
	post       bool       // thinking output

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
}

type searchDone struct {
	gen int
	res uci.SearchResult
	err error
}

// New returns an engine that reads commands from in, answers on out and
// searches with s; name is what xboard shows (feature myname).
func New(in io.Reader, out io.Writer, s uci.Searcher, name string) (*Engine, error) {
	g, err := game.Lookup(Variant)
	if err != nil {
		return nil, fmt.Errorf("cecp: %w", err)
	}
	e := &Engine{in: in, out: bufio.NewWriter(out), searcher: s, name: name, game: g, post: true, overhead: uci.DefaultMoveOverhead}
	if gs, ok := s.(uci.GameSetter); ok {
		if err := gs.SetGame(g.Name); err != nil {
			return nil, fmt.Errorf("cecp: %w", err)
		}
	}
	if err := e.newGame(); err != nil {
		return nil, err
	}
	return e, nil
}

// newGame sets up the start position with the engine playing the second
// side, leaving force mode (CECP's `new`).
func (e *Engine) newGame() error {
	resolved, err := e.game.Resolve(game.Options{"Notation": notation})
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

func (e *Engine) send(format string, a ...any) error {
	e.outMu.Lock()
	defer e.outMu.Unlock()
	fmt.Fprintf(e.out, format+"\n", a...)
	return e.out.Flush()
}

// Run answers commands until quit, the end of the input or ctx's end.
func (e *Engine) Run(ctx context.Context) error {
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(e.in)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
		close(lines)
	}()
	defer e.abort()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case d := <-e.done:
			if err := e.finishSearch(d); err != nil {
				return err
			}
		case l, ok := <-lines:
			if !ok {
				return <-readErr
			}
			quit, err := e.command(ctx, strings.TrimSpace(l))
			if err != nil || quit {
				return err
			}
		}
	}
}

// command handles one line; quit reports the end of the session.
func (e *Engine) command(ctx context.Context, line string) (quit bool, err error) {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch cmd {
	case "", "xboard", "accepted", "rejected", "hard", "easy", "random", "computer", "name", "rating", "ics", "hint", "bk", "draw", ".", "ponder", "exit":
		return false, nil
	case "quit":
		return true, nil
	case "protover":
		return false, e.features()
	case "ping":
		// Commands are handled in order, so everything before the ping
		// is done (a search started by it runs on, as xboard allows).
		return false, e.send("pong %s", arg)
	case "new":
		e.abort()
		return false, e.report(e.newGame())
	case "variant":
		e.abort()
		if arg != Variant {
			return false, e.send("Error (unsupported variant): %s", arg)
		}
		return false, e.report(e.newGame())
	case "force":
		e.abort()
		e.force = true
		return false, nil
	case "result":
		e.abort()
		e.force = true
		return false, nil
	case "go":
		e.abort()
		if e.pos == nil {
			return false, e.noPosition(line)
		}
		e.force, e.engineSide = false, e.pos.SideToMove()
		return false, e.think(ctx)
	case "playother":
		e.abort()
		if e.pos == nil {
			return false, e.noPosition(line)
		}
		e.force, e.engineSide = false, e.pos.SideToMove().Other()
		return false, nil
	case "?":
		return false, e.stopSearch()
	case "post", "nopost":
		e.post = cmd == "post"
		return false, nil
	case "level":
		return false, e.report(e.level(arg))
	case "st":
		s, err := strconv.ParseFloat(arg, 64)
		if err != nil || s <= 0 {
			return false, e.send("Error (bad st): %s", arg)
		}
		e.moveTime = time.Duration(s * float64(time.Second))
		return false, nil
	case "sd":
		d, err := strconv.Atoi(arg)
		if err != nil || d <= 0 {
			return false, e.send("Error (bad sd): %s", arg)
		}
		e.depth = d
		return false, nil
	case "time", "otim":
		cs, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return false, e.send("Error (bad %s): %s", cmd, arg)
		}
		side := e.engineSide
		if cmd == "otim" {
			side = side.Other()
		}
		e.clock[side], e.clocked = time.Duration(max(cs, 0))*10*time.Millisecond, true
		return false, nil
	case "setboard":
		e.abort()
		return false, e.report(e.setBoard(arg))
	case "undo", "remove":
		e.abort()
		if e.pos == nil {
			return false, e.noPosition(line)
		}
		n := 1
		if cmd == "remove" {
			n = 2
		}
		for range n {
			if e.pos.Ply() == 0 {
				return false, e.send("Error (no move to undo): %s", cmd)
			}
			e.pos.Unmake()
		}
		return false, nil
	case "option":
		return false, e.report(e.option(arg))
	case "usermove":
		return false, e.userMove(ctx, arg)
	}
	if e.pos != nil {
		if _, err := e.pos.ParseMove(cmd); err == nil && arg == "" {
			return false, e.userMove(ctx, cmd) // a bare move (usermove=0 GUIs)
		}
	}
	return false, e.send("Error (unknown command): %s", line)
}

// noPosition answers a command that needs the board when a rejected
// setboard left none.
func (e *Engine) noPosition(cmd string) error {
	return e.send("Error (no position: the last setboard was rejected: %v; send new or setboard): %s", e.posErr, cmd)
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
	if err := e.send(`feature ping=1 setboard=1 usermove=1 time=1 draw=0 sigint=0 sigterm=0 reuse=1 analyze=0 colors=0 name=0 san=0 myname="%s" variants="%s"`, e.name, Variant); err != nil {
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
	return os.SetSearchOption(strings.TrimSpace(name), strings.TrimSpace(value))
}

// level reads `level MPS BASE INC` (BASE in minutes or min:sec, INC in
// seconds).
func (e *Engine) level(arg string) error {
	f := strings.Fields(arg)
	if len(f) != 3 {
		return fmt.Errorf("level %q: want MPS BASE INC", arg)
	}
	mps, err := strconv.Atoi(f[0])
	if err != nil || mps < 0 {
		return fmt.Errorf("level %q: bad moves per session", arg)
	}
	min, sec, _ := strings.Cut(f[1], ":")
	m, err1 := strconv.Atoi(min)
	s := 0
	var err2 error
	if sec != "" {
		s, err2 = strconv.Atoi(sec)
	}
	inc, err3 := strconv.ParseFloat(f[2], 64)
	if err1 != nil || err2 != nil || err3 != nil || m < 0 || s < 0 || inc < 0 {
		return fmt.Errorf("level %q: bad base or increment", arg)
	}
	e.mps, e.base, e.inc = mps, time.Duration(m)*time.Minute+time.Duration(s)*time.Second, time.Duration(inc*float64(time.Second))
	e.moveTime = 0
	return nil
}

// setBoard reads xboard's FEN: Fairy-Stockfish's letters, with xboard's
// H (horse) and E (elephant) read as N and B.
func (e *Engine) setBoard(fen string) error {
	board, rest, _ := strings.Cut(fen, " ")
	board = strings.NewReplacer("H", "N", "h", "n", "E", "B", "e", "b").Replace(board)
	p, err := e.game.Parse(board+" "+rest, e.rules)
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
	e.abort()
	if e.pos == nil {
		return e.noPosition("usermove " + text)
	}
	m, err := e.pos.ParseMove(text)
	if err != nil {
		return e.send("Illegal move: %s", text)
	}
	e.pos.Make(m)
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

// think starts a search of the current position for the engine's side.
func (e *Engine) think(ctx context.Context) error {
	if over, err := e.announceEnd(); over || err != nil {
		return err
	}
	// The searcher plans on the limits less the overhead, and the search
	// is stopped at their deadline whatever it makes of them: xboard's
	// st is a hard limit.
	lim, limit := e.limits().WithOverhead(e.pos.SideToMove(), e.overhead)
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
	gen, p, post := e.gen, e.pos.Clone(), e.post
	done := make(chan searchDone, 1)
	e.cancel, e.done = cancel, done
	go func() {
		res, err := e.searcher.Search(sctx, p, lim, func(info string) {
			if post {
				if l, ok := thinking(info); ok {
					e.send("%s", l)
				}
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

// finishSearch plays the move of a search that ended on its own or by ?.
func (e *Engine) finishSearch(d searchDone) error {
	e.cancel, e.done = nil, nil
	if d.gen != e.gen {
		return nil
	}
	if d.err != nil {
		return e.send("Error (search failed): %v", d.err)
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
func (e *Engine) stopSearch() error {
	if e.cancel == nil {
		return nil
	}
	e.cancel()
	return e.finishSearch(<-e.done)
}

// abort ends a search in flight without playing its move: the command
// that called it changes the position or the engine's role.
func (e *Engine) abort() {
	e.gen++
	e.stopSearch()
}

// thinking turns a UCI info text into CECP thinking output: ply, score in
// centipawns (mates as 100000 + moves), time in centiseconds, nodes, PV.
func thinking(info string) (string, bool) {
	f := strings.Fields(info)
	var depth, nodes, ms int64
	score := int64(0)
	pv := ""
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
			depth = next()
		case "nodes":
			nodes = next()
		case "time":
			ms = next()
		case "score":
			if i+2 < len(f) {
				kind := f[i+1]
				i++
				v := next()
				switch {
				case kind == "cp":
					score = v
				case kind == "mate" && v > 0:
					score = 100000 + v
				case kind == "mate":
					score = -100000 + v
				}
			}
		case "pv":
			pv = strings.Join(f[i+1:], " ")
			i = len(f)
		}
	}
	if depth == 0 || pv == "" {
		return "", false
	}
	return fmt.Sprintf("%d %d %d %d %s", depth, score, ms/10, nodes, pv), true
}
