package game

import (
	"strings"
	"time"
)

// A game's optional capabilities are values in Game.Capabilities, each
// implementing one of the small interfaces below. A generic package that
// needs one asserts it with Capability and does without, or refuses the
// game with a reason, when the game lacks it: a new game registers only
// the ones it wants (docs/new-game.md says what each buys).

// Capability returns the first of g's Capabilities that is a T.
func Capability[T any](g Game) (T, bool) {
	for _, c := range g.Capabilities {
		if t, ok := c.(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// WithCapability lists the registered games that have the capability T,
// in name order.
func WithCapability[T any]() []Game {
	var out []Game
	for _, name := range Names() {
		g, err := Lookup(name)
		if err != nil {
			continue
		}
		if _, ok := Capability[T](g); ok {
			out = append(out, g)
		}
	}
	return out
}

// GameNames joins the names of gs with sep.
func GameNames(gs []Game, sep string) string {
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.Name
	}
	return strings.Join(names, sep)
}

// Presets are the run configs a game ships (package configs): their names
// (the game's own first, then variants such as "xiangqi-zero") and YAML
// text. What train and selfplay start from when no config is given.
type Presets interface {
	Presets() map[string][]byte
}

// AlphaBetaTuned names the pruning features (alphabeta.FeatureNames)
// that alpha-beta turns on for the game by default, because matches
// showed they pay for it (alphabeta.DefaultOptionsFor). Without it a game
// gets alpha-beta's plain defaults.
type AlphaBetaTuned interface {
	AlphaBetaFeatures() []string
}

// UCCIHosted is a game that UCCI GUIs host (package uci's `ucci`): the
// rule options under which its moves and positions are UCCI's text.
type UCCIHosted interface {
	UCCIOptions() Options
}

// XboardHosted is a game that xboard hosts over CECP (package cecp): the
// variant name xboard knows it by, the rule options under which its moves
// are xboard's coordinates, and xboard's FEN rewritten into the game's
// text format.
type XboardHosted interface {
	XboardVariant() string
	XboardOptions() Options
	XboardFEN(fen string) string
}

// Playable is a game the dashboard's Play page offers (its positions
// draw through Boarder): the deepest alpha-beta search a person may ask
// for there, which keeps a reply within the page's time budget.
type Playable interface {
	PlayMaxDepth() int
}

// EngineDefault is the game an engine or a match plays when none is
// named: the first registered game that engine GUIs know by a UCI
// variant name (Game.UCIVariant), else the first by name; "" when none is
// registered.
func EngineDefault() string {
	names := Names()
	for _, n := range names {
		if g, err := Lookup(n); err == nil && g.UCIVariant != "" {
			return n
		}
	}
	if len(names) > 0 {
		return names[0]
	}
	return ""
}

// PlayDepth is Playable for a game that needs nothing more: the Play
// page's deepest alpha-beta search.
type PlayDepth int

// PlayMaxDepth returns d.
func (d PlayDepth) PlayMaxDepth() int { return int(d) }

// ReferenceRun is a preset's run recorded on a reference machine, which
// bench's sized plans set beside what they predict for this one.
type ReferenceRun struct {
	Budget  time.Duration
	Machine string
	// Generations made by the recorded seeds, the fewest and the most.
	Generations [2]int
	// Source is the notebook section that records the runs.
	Source string
}

// ReferenceRuns are the recorded runs of a game's presets, by preset
// name (bench.References). The presets' evaluation cadences were chosen
// for their budgets.
type ReferenceRuns interface {
	ReferenceRuns() map[string]ReferenceRun
}
