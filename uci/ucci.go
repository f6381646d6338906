package uci

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// The UCCI dialect (Universal Chinese Chess Interface, version 3.0 as
// published by xqbase.com, with ElephantEye as its reference engine). The
// package doc lists what is implemented; the comments here say why.

// protocol is the dialect the engine speaks.
type protocol uint8

const (
	protoUCI protocol = iota
	protoUCCI
)

const (
	// notationOption with the value iccsNotation is how a game that UCCI
	// hosts (game.UCCIHosted) writes ICCS moves (h2e2).
	notationOption = "Notation"
	iccsNotation   = "iccs"

	// UCCI's own options.
	optUseMillisec = "usemillisec"
	optNewGame     = "newgame"

	// ucciMate is ElephantEye's mate score: UCCI has no "score mate", so a
	// mate n plies away is reported as ucciMate - n (negative when mated),
	// and other scores stay within ucciWin, beyond which GUIs read a mate.
	ucciMate = 10000
	ucciWin  = ucciMate - 100
)

// ucciAliases maps UCCI's standard option names to the searcher's options
// of the same meaning; the options are declared under the UCCI name.
var ucciAliases = map[string]string{"hashsize": "Hash", "threads": "Threads"}

// isQuit reports whether cmd ends the engine: quit, and in UCCI also bye.
func (e *Engine) isQuit(cmd string) bool {
	return cmd == "quit" || e.proto == protoUCCI && cmd == "bye"
}

// cmdUCCI answers `ucci`: it switches the engine to UCCI for good, with
// Xiangqi moves in ICCS, and answers id, the options and ucciok. It is
// refused (the engine stays in UCI) unless the current game is one UCCI
// hosts (game.UCCIHosted: Xiangqi), whose UCCI rule options it sets.
func (e *Engine) cmdUCCI() error {
	hosted, ok := game.Capability[game.UCCIHosted](e.game)
	if !ok {
		all := game.WithCapability[game.UCCIHosted]()
		if len(all) == 0 {
			return fmt.Errorf("ucci: UCCI plays none of the registered games (none is game.UCCIHosted) and the variant is %s; use uci", e.game.Name)
		}
		return fmt.Errorf("ucci: UCCI plays %s only and the variant is %s; use uci, or select %s first (setoption name %s value %s)",
			game.GameNames(all, ", "), e.game.Name, all[0].Name, variantOption, all[0].Name)
	}
	u := maps.Clone(e.rules[e.game.Name])
	if u == nil {
		u = game.Options{}
	}
	for name, v := range hosted.UCCIOptions() {
		o, ok := e.game.Option(name)
		if !ok || (len(o.Values) > 0 && !slices.Contains(o.Values, v)) {
			return fmt.Errorf("ucci: %s has no %s=%s option for UCCI's move text", e.game.Name, name, v)
		}
		u[o.Name] = v
	}
	resolved, pos, err := startPosition(e.game, u)
	if err != nil {
		return fmt.Errorf("ucci: %w", err)
	}
	e.rules[e.game.Name] = u
	e.opts, e.pos, e.banned = resolved, pos, nil
	e.proto, e.millis = protoUCCI, true
	e.out.setUCCI()
	e.out.lines(e.ucciHandshake()...)
	return nil
}

// ucciHandshake lists id, the options in UCCI syntax (`option NAME type
// spin min A max B default C`, no name/value keywords) and ucciok.
func (e *Engine) ucciHandshake() []string {
	ls := []string{
		"id name " + engineName,
		"id author " + engineAuthor,
		"option " + optUseMillisec + " type check default true",
		"option " + optNewGame + " type button",
	}
	seen := map[string]bool{strings.ToLower(variantOption): true, strings.ToLower(notationOption): true,
		optUseMillisec: true, optNewGame: true}
	for _, o := range e.game.Options {
		if !seen[strings.ToLower(o.Name)] {
			seen[strings.ToLower(o.Name)] = true
			ls = append(ls, ucciOptionLine(o.Name, o, false))
		}
	}
	if e.searcher != nil && !seen[strings.ToLower(MoveOverheadOption)] {
		seen[strings.ToLower(MoveOverheadOption)] = true
		ls = append(ls, ucciOptionLine(MoveOverheadOption, MoveOverheadDeclaration(), false))
	}
	if os, ok := e.searcher.(OptionSetter); ok {
		for _, o := range os.SearchOptions() {
			name := o.Name
			for alias, target := range ucciAliases {
				if strings.EqualFold(target, o.Name) {
					name = alias
				}
			}
			if seen[strings.ToLower(name)] || seen[strings.ToLower(o.Name)] {
				continue
			}
			seen[strings.ToLower(name)], seen[strings.ToLower(o.Name)] = true, true
			ls = append(ls, ucciOptionLine(name, o, isStringOption(e.searcher, o.Name)))
		}
	}
	return append(ls, "ucciok")
}

// ucciOptionLine declares o under name in UCCI syntax.
func ucciOptionLine(name string, o game.Option, str bool) string {
	switch {
	case str:
		return fmt.Sprintf("option %s type string default %s", name, cmp.Or(o.Default, "<empty>"))
	case IsCheck(o):
		return fmt.Sprintf("option %s type check default %s", name, o.Default)
	case len(o.Values) > 0:
		return fmt.Sprintf("option %s type combo%s default %s", name, varList(o.Values), o.Default)
	}
	return fmt.Sprintf("option %s type spin min %d max %d default %s", name, o.Min, o.Max, o.Default)
}

// executeUCCI runs one UCCI command line (split into words) and reports
// whether it ends the engine.
func (e *Engine) executeUCCI(ctx context.Context, f []string) (quit bool) {
	var err error
	switch f[0] {
	case "ucci":
		e.out.lines(e.ucciHandshake()...)
	case "isready":
		e.out.lines("readyok")
	case "ponderhit":
		// No pondering: nothing to switch (and no search runs here).
	case "stop":
		// The protocol asks an idle engine to answer stop with nobestmove,
		// so that a GUI waiting for the end of a search is never stuck.
		e.out.lines("nobestmove")
	case "setoption":
		err = e.cmdSetOptionUCCI(f[1:])
	case "uccinewgame", "ucinewgame":
		// Not UCCI (its way is `setoption newgame`) but sent by some GUIs.
		err = e.cmdNewGame()
	case "position":
		err = e.cmdPosition(f[1:])
	case "banmoves":
		err = e.cmdBanMoves(f[1:])
	case "go":
		if len(f) > 1 && f[1] == "perft" {
			err = e.cmdGo(ctx, f[1:])
			break
		}
		if err = e.cmdGoUCCI(ctx, f[1:]); err != nil {
			// The GUI waits for the end of the thinking state.
			e.out.errorf("%v", err)
			e.out.lines("nobestmove")
			return false
		}
	case "d":
		err = e.cmdDisplay()
	case "quit", "bye":
		e.out.lines("bye")
		return true
	default:
		err = fmt.Errorf("unknown command %s", clip(f[0]))
	}
	if err != nil {
		e.out.errorf("%v", err)
	}
	return false
}

// cmdSetOptionUCCI handles `setoption NAME [VALUE...]`; the UCI form with
// name and value keywords is accepted too, since GUIs that speak both
// protocols sometimes send it.
func (e *Engine) cmdSetOptionUCCI(args []string) error {
	if len(args) == 0 {
		return errors.New(`setoption: expected "setoption <option> [<value>]"`)
	}
	name, value := args[0], strings.Join(args[1:], " ")
	if name == "name" {
		vi := slices.Index(args, "value")
		if vi < 0 {
			vi = len(args)
		}
		name, value = strings.Join(args[1:vi], " "), strings.Join(args[min(vi+1, len(args)):], " ")
		if name == "" {
			return errors.New("setoption: missing option name")
		}
	}
	switch {
	case strings.EqualFold(name, optNewGame):
		return e.cmdNewGame()
	case strings.EqualFold(name, optUseMillisec):
		b, err := parseCheck(value)
		if err != nil {
			return fmt.Errorf("setoption %s: %w", optUseMillisec, err)
		}
		e.millis = b
		return nil
	case strings.EqualFold(name, variantOption):
		return fmt.Errorf("setoption: UCCI plays %s only", e.game.Name)
	case strings.EqualFold(name, notationOption):
		return fmt.Errorf("setoption: UCCI moves are always ICCS (%s=%s)", notationOption, iccsNotation)
	}
	if target, ok := ucciAliases[strings.ToLower(name)]; ok {
		name = target
	}
	if value == "" {
		return fmt.Errorf("setoption: option %s needs a value", clip(name))
	}
	if o, ok := e.searchOption(name); ok && IsCheck(o) {
		// A check option takes on and off too, as usemillisec does.
		b, err := parseCheck(value)
		if err != nil {
			return fmt.Errorf("setoption %s: %w", o.Name, err)
		}
		value = strconv.FormatBool(b)
	}
	return e.setOption(name, value)
}

// searchOption returns the searcher's option of the name
// (case-insensitive), if it has one.
func (e *Engine) searchOption(name string) (game.Option, bool) {
	if os, ok := e.searcher.(OptionSetter); ok {
		for _, o := range os.SearchOptions() {
			if strings.EqualFold(o.Name, name) {
				return o, true
			}
		}
	}
	return game.Option{}, false
}

// parseCheck reads the value of a check option: true/false, also on/off
// (the protocol's own example writes `setoption batch on`).
func parseCheck(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "on":
		return true, nil
	case "false", "off":
		return false, nil
	}
	return false, fmt.Errorf("value %s is not true or false", clip(v))
}

// cmdBanMoves handles `banmoves <move>...`: the moves the next searches
// of this position may not play (UCCI's answer to the repetition rules;
// cleared by position and new games). Legal moves are banned even when
// others in the list are malformed or illegal, which are reported.
func (e *Engine) cmdBanMoves(args []string) error {
	if e.pos == nil {
		return e.errNoPosition("banmoves")
	}
	e.banned = e.banned[:0]
	var bad []string
	for _, s := range args {
		m, err := e.pos.ParseMove(s)
		if err != nil {
			bad = append(bad, clip(s))
			continue
		}
		if !slices.Contains(e.banned, m) {
			e.banned = append(e.banned, m)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("banmoves: not legal here, ignored: %s", strings.Join(bad, " "))
	}
	return nil
}

// cmdGoUCCI handles UCCI's go (go perft is handled as in UCI). `go depth
// 0` asks for no search: nobestmove at once.
func (e *Engine) cmdGoUCCI(ctx context.Context, args []string) error {
	if e.pos == nil {
		return e.errNoPosition("go")
	}
	if e.searcher == nil {
		return errors.New("search is not available yet")
	}
	lim, static, err := parseUCCILimits(args, e.pos.SideToMove(), e.millis)
	if err != nil {
		return err
	}
	if static {
		e.out.lines("nobestmove")
		return nil
	}
	if len(e.banned) > 0 {
		legal := e.pos.GenerateMoves(nil)
		n := len(legal)
		lim.SearchMoves = slices.DeleteFunc(legal, func(m game.Move) bool { return slices.Contains(e.banned, m) })
		if n > 0 && len(lim.SearchMoves) == 0 {
			return errors.New("go: banmoves forbids every legal move")
		}
	}
	e.startSearch(ctx, lim)
	return nil
}

// parseUCCILimits reads the arguments of UCCI's go:
//
//	go [ponder|draw] [depth N|depth infinite|infinite] [nodes N]
//	   [time T [movestogo N|increment I] [opptime T [oppmovestogo N|oppincrement I]]]
//
// us is the side to move: time and increment are its clock, opptime and
// oppincrement the other side's. Times are milliseconds with usemillisec
// (the default), else seconds. As in ElephantEye, time without movestogo
// or increment means one move to go. movetime (milliseconds) is accepted
// as an extension some GUIs send. static is set for depth 0.
func parseUCCILimits(args []string, us game.Color, millis bool) (lim Limits, static bool, err error) {
	unit, maxT := time.Millisecond, int64(maxMillis)
	if !millis {
		unit, maxT = time.Second, maxMillis/1000
	}
	num := func(i *int, lo, hi int64) (int64, error) { return goNumber(args, i, lo, hi) }
	them := us.Other()
	clock, togo, inc := false, false, false
	for i := 0; i < len(args); i++ {
		var v int64
		switch kw := args[i]; kw {
		case "ponder":
			return Limits{}, false, errors.New("go ponder: pondering is not supported")
		case "draw":
			// A draw offer: the engine never accepts one (it would answer
			// `bestmove ... draw`), so the offer changes nothing.
		case "infinite":
			lim.Infinite = true
		case "depth":
			if i+1 < len(args) && args[i+1] == "infinite" {
				i++
				lim.Infinite = true
				continue
			}
			if v, err = num(&i, 0, maxSearchDepth); err == nil {
				lim.Depth, static = int(v), v == 0
			}
		case "nodes":
			if v, err = num(&i, 1, 1<<62); err == nil {
				lim.Nodes = uint64(v)
			}
		case "time", "opptime":
			// A negative clock after a flag fall reads as zero.
			if v, err = num(&i, -maxT, maxT); err == nil {
				c := us
				if kw == "opptime" {
					c = them
				}
				lim.Time[c], lim.Clocked[c] = time.Duration(max(v, 0))*unit, true
				clock = clock || kw == "time"
			}
		case "increment", "oppincrement":
			if v, err = num(&i, 0, maxT); err == nil {
				c := us
				if kw == "oppincrement" {
					c = them
				}
				lim.Inc[c] = time.Duration(v) * unit
				inc = inc || kw == "increment"
			}
		case "movestogo":
			if v, err = num(&i, 1, 1_000_000); err == nil {
				lim.MovesToGo, togo = int(v), true
			}
		case "oppmovestogo":
			// Read for its syntax; the other side's schedule does not
			// change how long this move may take.
			_, err = num(&i, 1, 1_000_000)
		case "movetime":
			if v, err = num(&i, 0, maxMillis); err == nil {
				lim.MoveTime = time.Duration(v) * time.Millisecond
			}
		default:
			return Limits{}, false, fmt.Errorf("go: unknown parameter %s", clip(kw))
		}
		if err != nil {
			return Limits{}, false, err
		}
	}
	if clock && !togo && !inc {
		lim.MovesToGo = 1
	}
	return lim, static, nil
}

// ucciInfo translates the text of a UCI info line (after "info ") into
// UCCI's forms, as ElephantEye writes them: `info depth D score S pv ...`
// (S in centi-units, mates as ±(ucciMate - plies)), `info time T nodes N`
// (T in the go time unit), `info currmove M`, and `info message ...` for
// info string. Fields UCCI lacks (seldepth, nps, hashfull, bounds) are
// dropped, and so are the lines of multi-PV ranks beyond the first.
func ucciInfo(s string, millis bool) []string {
	if rest, ok := strings.CutPrefix(s, "string"); ok && (rest == "" || rest[0] == ' ') {
		return []string{oneLine("info message" + rest)}
	}
	f := strings.Fields(s)
	var depth, score, tm, nodes, curr string
	var pv, msg []string
	// Fields with one value that UCCI does not have.
	skip := map[string]bool{"seldepth": true, "nps": true, "hashfull": true, "tbhits": true, "cpuload": true, "currmovenumber": true, "refutation": true, "currline": true}
	for i := 0; i < len(f); i++ {
		next := ""
		if i+1 < len(f) {
			next = f[i+1]
		}
		switch f[i] {
		case "depth":
			depth, i = next, i+1
		case "time":
			tm, i = next, i+1
			if ms, err := strconv.ParseInt(next, 10, 64); err == nil && !millis {
				tm = strconv.FormatInt(ms/1000, 10)
			}
		case "nodes":
			nodes, i = next, i+1
		case "currmove":
			curr, i = next, i+1
		case "multipv":
			if next != "1" {
				return nil
			}
			i++
		case "score":
			if i+2 < len(f) {
				score = ucciScore(f[i+1], f[i+2])
				i += 2
			}
		case "pv":
			pv, i = f[i+1:], len(f)
		case "string":
			msg, i = f[i+1:], len(f)
		default:
			if skip[f[i]] {
				i++
			}
		}
	}
	var ls []string
	if depth != "" || score != "" || len(pv) > 0 {
		l := "info depth " + cmp.Or(depth, "0")
		if score != "" {
			l += " score " + score
		}
		if len(pv) > 0 {
			l += " pv " + strings.Join(pv, " ")
		}
		ls = append(ls, l)
	}
	if tm != "" || nodes != "" {
		l := "info"
		if tm != "" {
			l += " time " + tm
		}
		if nodes != "" {
			l += " nodes " + nodes
		}
		ls = append(ls, l)
	}
	if curr != "" {
		ls = append(ls, "info currmove "+curr)
	}
	if len(msg) > 0 {
		ls = append(ls, "info message "+strings.Join(msg, " "))
	}
	// The parts come from a line clipped to maxMessage; the prefixes
	// above may push a line past it again.
	for i, l := range ls {
		ls[i] = oneLine(l)
	}
	return ls
}

// ucciScore turns a UCI score ("cp", "35" or "mate", "-3") into a UCCI
// number; "" when it does not parse.
func ucciScore(kind, v string) string {
	n, err := strconv.Atoi(v)
	if err != nil {
		return ""
	}
	switch kind {
	case "cp":
		return strconv.Itoa(min(max(n, -ucciWin+1), ucciWin-1))
	case "mate":
		// Mate in n moves is 2n-1 plies away; mated in n, 2n plies.
		switch {
		case n > 0:
			return strconv.Itoa(ucciMate - min(2*n-1, 99))
		case n < 0:
			return strconv.Itoa(-ucciMate + min(-2*n, 99))
		}
		return strconv.Itoa(-ucciMate)
	}
	return ""
}
