// Package liondata holds the Lion oracle's test set: Catch the Lion
// positions sampled from varied games at several phases, each with its
// exact value and the moves that keep it, taken from the tablebase
// (game/lion/tablebase). The set is embedded and carries the truth, so
// that accuracy measures (arena/lionoracle, the trainer's evaluation) need
// no table file. README.md says how it was made; Generate remakes it from
// the table and a seed (tabula liontb -testset).
package liondata

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
)

// Name is the embedded set's name (its file in this folder).
const Name = "positions.txt"

//go:embed positions.txt
var positions string

// HeldOutName is the held-out set's name (its file in this folder).
const HeldOutName = "heldout.txt"

//go:embed heldout.txt
var heldOut string

// Line is one position of the set with its exact value for the side to
// move and the moves that keep it.
type Line struct {
	Text   string // the position (game/lion's text format; its ply number is the game's)
	Source string // the kind of game it was sampled from (Sources)
	Value  tablebase.Result
	// Optimal are the moves that keep the exact value: the quickest
	// wins, the slowest losses, or the drawing moves.
	Optimal []string
	// Kept are the other moves that keep the outcome (slower wins). In a
	// lost position every move keeps the outcome: AllKept, Kept empty.
	Kept    []string
	AllKept bool
}

// Sources are the kinds of games the positions come from: uniformly
// random play, alpha-beta at depth 1-3 with random moves mixed in, and
// the table's perfect play with random moves mixed in.
var Sources = []string{"random", "ab", "perfect"}

// Phases are the set's ply ranges ("opening" plies 0-9, "middle" 10-29,
// "late" 30 and on): Phase(ply) names them.
var Phases = []string{"opening", "middle", "late"}

// Phase returns the phase of a position at ply (0 at the start).
func Phase(ply int) string {
	switch {
	case ply < 10:
		return "opening"
	case ply < 30:
		return "middle"
	}
	return "late"
}

// Classes are the outcome classes for the side to move.
var Classes = []string{"win", "draw", "loss"}

// Class names an outcome's class.
func Class(r game.Result) string {
	switch r {
	case game.Win:
		return "win"
	case game.Loss:
		return "loss"
	}
	return "draw"
}

// Distances are the buckets of plies to the end with best play
// (Distance); draws have none.
var Distances = []string{"2-9 plies", "10-29 plies", "30+ plies", "drawn"}

// Distance returns the bucket of a value's distance to the end.
func Distance(r tablebase.Result) string {
	switch {
	case r.Outcome == game.Draw:
		return "drawn"
	case r.Plies < 10:
		return "2-9 plies"
	case r.Plies < 30:
		return "10-29 plies"
	}
	return "30+ plies"
}

// Position parses the line's position (the safe try rule, the table's).
func (l Line) Position() (*lion.Position, error) {
	return lion.Parse(l.Text, game.Options{lion.OptTryRule: lion.TrySafe})
}

// Judge scores a move (in the move notation): optimal keeps the exact
// value, kept the outcome.
func (l Line) Judge(move string) (optimal, kept bool) {
	if slices.Contains(l.Optimal, move) {
		return true, true
	}
	return false, l.AllKept || slices.Contains(l.Kept, move)
}

// Open returns the embedded set's lines (Read).
func Open(max int) ([]Line, error) {
	return Read(strings.NewReader(positions), max)
}

// OpenHeldOut returns the embedded held-out set's lines (HeldOutGen):
// positions that Open's set does not hold, to judge what that set chose.
func OpenHeldOut(max int) ([]Line, error) {
	return Read(strings.NewReader(heldOut), max)
}

// Read reads up to max lines (0: all) of the format
//
//	<position>;<source>;<value>;<optimal moves>;<other kept moves>
//
// value is W<plies>, L<plies> or D; the move lists are separated by
// spaces, "-" for none and "*" (losses) for every other legal move. Lines
// starting with # and blank lines are skipped.
func Read(r io.Reader, max int) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() && (max <= 0 || len(out) < max) {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		l, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("liondata: line %d: %w", n, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("liondata: after line %d: %w", n, err)
	}
	return out, nil
}

func parseLine(text string) (Line, error) {
	f := strings.Split(text, ";")
	if len(f) != 5 {
		return Line{}, fmt.Errorf("%d fields, want 5: <position>;<source>;<value>;<optimal moves>;<other kept moves>", len(f))
	}
	l := Line{Text: f[0], Source: f[1]}
	if !slices.Contains(Sources, l.Source) {
		return Line{}, fmt.Errorf("unknown source %q (valid: %s)", l.Source, strings.Join(Sources, ", "))
	}
	v, err := parseValue(f[2])
	if err != nil {
		return Line{}, err
	}
	l.Value = v
	p, err := l.Position()
	if err != nil {
		return Line{}, err
	}
	if p.Status().Over() {
		return Line{}, fmt.Errorf("%s: the game is over", l.Text)
	}
	if l.Optimal, err = moveList(p, f[3]); err != nil {
		return Line{}, err
	}
	if len(l.Optimal) == 0 {
		return Line{}, fmt.Errorf("%s: no optimal move", l.Text)
	}
	if strings.TrimSpace(f[4]) == "*" {
		if v.Outcome != game.Loss {
			return Line{}, fmt.Errorf("%s: every move keeps only a lost position's outcome, not a %v", l.Text, v)
		}
		l.AllKept = true
	} else if l.Kept, err = moveList(p, f[4]); err != nil {
		return Line{}, err
	}
	return l, nil
}

func parseValue(s string) (tablebase.Result, error) {
	if s == "D" {
		return tablebase.Result{Outcome: game.Draw}, nil
	}
	if len(s) > 1 && (s[0] == 'W' || s[0] == 'L') {
		d, err := strconv.Atoi(s[1:])
		if err == nil && d >= 0 {
			if s[0] == 'W' {
				return tablebase.Result{Outcome: game.Win, Plies: d}, nil
			}
			return tablebase.Result{Outcome: game.Loss, Plies: d}, nil
		}
	}
	return tablebase.Result{}, fmt.Errorf("value %q: want W<plies>, L<plies> or D", s)
}

// moveList reads a list of legal moves of p ("-": none).
func moveList(p *lion.Position, s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "-" {
		return nil, nil
	}
	var out []string
	for _, m := range strings.Fields(s) {
		if _, err := p.ParseMove(m); err != nil {
			return nil, fmt.Errorf("%s: move %s: %w", p, m, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// FormatValue writes a value as the set does: W<plies>, L<plies> or D.
func FormatValue(r tablebase.Result) string {
	switch r.Outcome {
	case game.Win:
		return "W" + strconv.Itoa(r.Plies)
	case game.Loss:
		return "L" + strconv.Itoa(r.Plies)
	}
	return "D"
}

// String writes the line in the set's format.
func (l Line) String() string {
	list := func(ms []string) string {
		if len(ms) == 0 {
			return "-"
		}
		return strings.Join(ms, " ")
	}
	kept := list(l.Kept)
	if l.AllKept {
		kept = "*"
	}
	return strings.Join([]string{l.Text, l.Source, FormatValue(l.Value), list(l.Optimal), kept}, ";")
}
