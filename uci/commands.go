package uci

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// variantOption is the UCI option that selects the game.
const variantOption = "UCI_Variant"

// cmdUCI answers `uci`: identification, the options, uciok.
//
// Every rule option of every registered game is listed once. When games
// declare an option of the same name, the declaration of the initial game
// wins, then the first game by name; setoption checks values against each
// declaring game.
func (e *Engine) cmdUCI() {
	names := game.Names()
	ls := []string{
		"id name " + engineName,
		"id author " + engineAuthor,
		fmt.Sprintf("option name %s type combo default %s%s", variantOption, e.defaultVariant, varList(names)),
	}
	order := append([]string{e.defaultVariant}, slices.DeleteFunc(names, func(n string) bool { return n == e.defaultVariant })...)
	seen := map[string]bool{strings.ToLower(variantOption): true}
	for _, n := range order {
		g, err := game.Lookup(n)
		if err != nil {
			continue
		}
		for _, o := range g.Options {
			key := strings.ToLower(o.Name)
			if seen[key] {
				continue
			}
			seen[key] = true
			ls = append(ls, optionLine(o))
		}
	}
	if e.searcher != nil {
		seen[strings.ToLower(MoveOverheadOption)] = true
		ls = append(ls, optionLine(MoveOverheadDeclaration()))
	}
	if os, ok := e.searcher.(OptionSetter); ok {
		for _, o := range os.SearchOptions() {
			if seen[strings.ToLower(o.Name)] {
				continue
			}
			seen[strings.ToLower(o.Name)] = true
			if isStringOption(e.searcher, o.Name) {
				ls = append(ls, fmt.Sprintf("option name %s type string default %s", o.Name, cmp.Or(o.Default, "<empty>")))
				continue
			}
			ls = append(ls, optionLine(o))
		}
	}
	ls = append(ls, "uciok")
	e.out.lines(ls...)
}

// CheckValues are the values of a check option (an option whose Values
// are these is declared `type check`): what GUIs send for a box.
var CheckValues = []string{"false", "true"}

// IsCheck reports whether o is a check option: its values CheckValues.
func IsCheck(o game.Option) bool { return slices.Equal(o.Values, CheckValues) }

// optionLine declares o as a UCI check, combo or spin option.
func optionLine(o game.Option) string {
	if IsCheck(o) {
		return fmt.Sprintf("option name %s type check default %s", o.Name, o.Default)
	}
	if len(o.Values) > 0 {
		return fmt.Sprintf("option name %s type combo default %s%s", o.Name, o.Default, varList(o.Values))
	}
	return fmt.Sprintf("option name %s type spin default %s min %d max %d", o.Name, o.Default, o.Min, o.Max)
}

// varList formats the choices of a combo option.
func varList(values []string) string {
	var b strings.Builder
	for _, v := range values {
		b.WriteString(" var ")
		b.WriteString(v)
	}
	return b.String()
}

// cmdSetOption handles `setoption name <name...> value <value...>`.
func (e *Engine) cmdSetOption(args []string) error {
	if len(args) == 0 || args[0] != "name" {
		return errors.New(`setoption: expected "setoption name <option> value <value>"`)
	}
	args = args[1:]
	vi := slices.Index(args, "value")
	nameEnd := vi
	if vi < 0 {
		nameEnd = len(args)
	}
	name := strings.Join(args[:nameEnd], " ")
	if name == "" {
		return errors.New("setoption: missing option name")
	}
	if vi < 0 || vi == len(args)-1 {
		return fmt.Errorf("setoption: option %s needs a value", clip(name))
	}
	return e.setOption(name, strings.Join(args[vi+1:], " "))
}

// setOption sets the variant, a search option or a rule option, whichever
// name means (case-insensitive).
func (e *Engine) setOption(name, value string) error {
	if strings.EqualFold(name, variantOption) {
		return e.setVariant(value)
	}
	if e.searcher != nil && strings.EqualFold(name, MoveOverheadOption) {
		o := MoveOverheadDeclaration()
		if err := o.Check(value); err != nil {
			return fmt.Errorf("setoption: %w", err)
		}
		ms, _ := strconv.Atoi(value)
		e.overhead = time.Duration(ms) * time.Millisecond
		return nil
	}
	if os, ok := e.searcher.(OptionSetter); ok {
		for _, o := range os.SearchOptions() {
			if strings.EqualFold(o.Name, name) {
				if isStringOption(e.searcher, o.Name) {
					if value == "<empty>" {
						value = ""
					}
					return os.SetSearchOption(o.Name, value)
				}
				if err := o.Check(value); err != nil {
					return fmt.Errorf("setoption: %w", err)
				}
				return os.SetSearchOption(o.Name, value)
			}
		}
	}
	return e.setRule(name, value)
}

// setVariant switches the game and resets to its start position under the
// rule options set for it.
func (e *Engine) setVariant(name string) error {
	g, err := game.Lookup(name)
	if err != nil {
		return fmt.Errorf("setoption %s: unknown variant %s (known: %s)", variantOption, clip(name), strings.Join(game.Names(), ", "))
	}
	user := e.rules[g.Name]
	resolved, pos, err := startPosition(g, user)
	if err != nil {
		return fmt.Errorf("setoption %s: %w", variantOption, err)
	}
	e.game, e.opts, e.pos, e.banned = g, resolved, pos, nil
	if gs, ok := e.searcher.(GameSetter); ok {
		if err := gs.SetGame(g.Name); err != nil {
			return fmt.Errorf("setoption %s: %s is set, but %w", variantOption, g.Name, err)
		}
	}
	return nil
}

// setRule sets a rule option. It applies to every registered game that
// declares the option and accepts the value, so that it holds after a later
// variant switch too; the current game, when it declares the option, must
// accept the value, and then its position resets to the start. An option
// no game declares, or a value no declaring game accepts, is an error.
func (e *Engine) setRule(name, value string) error {
	updates := map[string]game.Options{}
	var firstErr error
	for _, n := range game.Names() {
		g, err := game.Lookup(n)
		if err != nil {
			continue
		}
		o, ok := g.Option(name)
		if !ok {
			continue
		}
		if err := o.Check(value); err != nil {
			if g.Name == e.game.Name {
				return fmt.Errorf("setoption: %s: %w", g.Name, err)
			}
			if firstErr == nil {
				firstErr = fmt.Errorf("setoption: %s: %w", g.Name, err)
			}
			continue
		}
		u := maps.Clone(e.rules[g.Name])
		if u == nil {
			u = game.Options{}
		}
		u[o.Name] = value
		updates[g.Name] = u
	}
	if len(updates) == 0 {
		if firstErr != nil {
			return firstErr
		}
		return fmt.Errorf("setoption: unknown option %s", clip(name))
	}
	if u, ok := updates[e.game.Name]; ok {
		resolved, pos, err := startPosition(e.game, u)
		if err != nil {
			return fmt.Errorf("setoption: %w", err)
		}
		e.opts, e.pos, e.banned = resolved, pos, nil
	}
	for n, u := range updates {
		e.rules[n] = u
	}
	return nil
}

// cmdNewGame handles `ucinewgame`: back to the start position.
func (e *Engine) cmdNewGame() error {
	pos, err := e.game.New(e.opts)
	if err != nil {
		return fmt.Errorf("ucinewgame: %w", err)
	}
	e.pos, e.banned = pos, nil
	if ng, ok := e.searcher.(NewGamer); ok {
		ng.NewGame()
	}
	return nil
}

// cmdPosition handles `position startpos|fen <text...> [moves <m>...]`. A
// rejected command leaves the engine without a position: the GUI believes
// the engine has the position it sent, so keeping the previous one would
// answer the next go with a move for a position the GUI never asked about.
// A valid position command, ucinewgame or a variant or rule change sets
// one again.
func (e *Engine) cmdPosition(args []string) error {
	p, err := e.parsePosition(args)
	if err != nil {
		e.pos, e.banned, e.posErr = nil, nil, err
		return err
	}
	e.pos, e.banned = p, nil
	return nil
}

// errNoPosition explains why a command that needs a position finds none.
func (e *Engine) errNoPosition(cmd string) error {
	return fmt.Errorf("%s: no position (the last one was rejected: %v); send a valid position or ucinewgame", cmd, e.posErr)
}

// parsePosition builds the position of a position command's arguments.
func (e *Engine) parsePosition(args []string) (game.Position, error) {
	if len(args) == 0 {
		return nil, errors.New(`position: expected "startpos" or "fen"`)
	}
	var (
		p    game.Position
		rest []string
		err  error
	)
	switch args[0] {
	case "startpos":
		rest = args[1:]
		p, err = e.game.New(e.opts)
	case "fen":
		end := len(args)
		if i := slices.Index(args, "moves"); i >= 0 {
			end = i
		}
		if end == 1 {
			return nil, errors.New("position fen: missing position text")
		}
		rest = args[end:]
		p, err = e.game.Parse(strings.Join(args[1:end], " "), e.opts)
	default:
		return nil, fmt.Errorf(`position: expected "startpos" or "fen", got %s`, clip(args[0]))
	}
	if err != nil {
		return nil, fmt.Errorf("position: %w", err)
	}
	if len(rest) > 0 {
		if rest[0] != "moves" {
			return nil, fmt.Errorf(`position: expected "moves", got %s`, clip(rest[0]))
		}
		for i, m := range rest[1:] {
			if err := game.Play(p, m); err != nil {
				return nil, fmt.Errorf("position: move %d (%s): %w", i+1, clip(m), err)
			}
		}
	}
	return p, nil
}

// cmdDisplay handles `d`: the position as text, key, side and status.
func (e *Engine) cmdDisplay() error {
	if e.pos == nil {
		return e.errNoPosition("d")
	}
	ls := []string{"Variant: " + e.game.Name}
	if len(e.game.Options) > 0 {
		var b strings.Builder
		b.WriteString("Options:")
		for _, o := range e.game.Options {
			fmt.Fprintf(&b, " %s=%s", o.Name, e.opts[o.Name])
		}
		ls = append(ls, oneLine(b.String()))
	}
	st := e.pos.Status()
	status := st.Result.String()
	if st.Reason != "" {
		status += " (" + st.Reason + ")"
	}
	if d, ok := e.pos.(game.Diagrammer); ok {
		ls = append(ls, strings.Split(strings.TrimRight(d.Diagram(), "\n"), "\n")...)
	}
	ls = append(ls,
		"Fen: "+oneLine(e.pos.String()),
		fmt.Sprintf("Key: %016X", e.pos.Key()),
		"Side to move: "+e.pos.SideToMove().String(),
		"Status: "+oneLine(status),
	)
	e.out.lines(ls...)
	return nil
}
