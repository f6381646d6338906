package uci

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/game"
)

// The tests register two tiny counting games, since the real games are
// written elsewhere. A position is a number n and the side to move; a move
// "k" (1 <= k <= steps) adds k; the side that brings n to the goal or
// beyond wins, so the side to move then has lost and has no moves.
//
//   - "count": options Goal (spin 1..40, default 10) and Steps (combo
//     short = moves 1 and 2, long = moves 1, 2 and 3; default short).
//   - "tally": option Goal (spin 1..6, default 5), always moves 1 and 2.
//
// Text format: "<n> <w|b>", for example "0 w".
func init() {
	game.Register(game.Game{
		Name:       "count",
		UCIVariant: "counting",
		Options: []game.Option{
			{Name: "Goal", Default: "10", Min: 1, Max: 40, Help: "the number that wins"},
			{Name: "Steps", Default: "short", Values: []string{"short", "long"}, Help: "short: moves 1-2, long: moves 1-3"},
		},
		New: func(opts game.Options) (game.Position, error) {
			return &countPos{rules: countRulesFrom("count", opts, 10)}, nil
		},
		Parse: func(text string, opts game.Options) (game.Position, error) {
			return parseCount(countRulesFrom("count", opts, 10), text)
		},
	})
	game.Register(game.Game{
		Name: "tally",
		Options: []game.Option{
			{Name: "Goal", Default: "5", Min: 1, Max: 6},
		},
		New: func(opts game.Options) (game.Position, error) {
			return &countPos{rules: countRulesFrom("tally", opts, 5)}, nil
		},
		Parse: func(text string, opts game.Options) (game.Position, error) {
			return parseCount(countRulesFrom("tally", opts, 5), text)
		},
	})
}

type countRules struct {
	name  string
	goal  int
	steps int
}

func countRulesFrom(name string, opts game.Options, goal int) countRules {
	r := countRules{name: name, goal: opts.Int("Goal", goal), steps: 2}
	if opts.Get("Steps", "short") == "long" {
		r.steps = 3
	}
	return r
}

type countPos struct {
	rules countRules
	n     int
	side  game.Color
	hist  []int
}

func parseCount(r countRules, text string) (game.Position, error) {
	f := strings.Fields(text)
	if len(f) != 2 {
		return nil, fmt.Errorf("%s: position %q: want \"<number> <w|b>\"", r.name, text)
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 0 || n > 100 {
		return nil, fmt.Errorf("%s: position %q: bad number", r.name, text)
	}
	p := &countPos{rules: r, n: n}
	switch f[1] {
	case "w":
	case "b":
		p.side = game.Second
	default:
		return nil, fmt.Errorf("%s: position %q: bad side", r.name, text)
	}
	return p, nil
}

func (p *countPos) Game() string                  { return p.rules.name }
func (p *countPos) SideToMove() game.Color        { return p.side }
func (p *countPos) Ply() int                      { return len(p.hist) }
func (p *countPos) FormatMove(m game.Move) string { return strconv.Itoa(int(m)) }

func (p *countPos) Key() uint64 {
	// splitmix64 of (n, side)
	z := (uint64(p.n)<<1 | uint64(p.side)) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (p *countPos) GenerateMoves(dst []game.Move) []game.Move {
	dst = dst[:0]
	if p.n >= p.rules.goal {
		return dst
	}
	for k := 1; k <= p.rules.steps; k++ {
		dst = append(dst, game.Move(k))
	}
	return dst
}

func (p *countPos) Make(m game.Move) {
	p.hist = append(p.hist, p.n)
	p.n += int(m)
	p.side = p.side.Other()
}

func (p *countPos) Unmake() {
	last := len(p.hist) - 1
	p.n = p.hist[last]
	p.hist = p.hist[:last]
	p.side = p.side.Other()
}

func (p *countPos) Status() game.Status {
	if p.n >= p.rules.goal {
		return game.Status{Result: game.Loss, Reason: "goal reached"}
	}
	return game.Status{}
}

func (p *countPos) ParseMove(s string) (game.Move, error) {
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || k > p.rules.steps || p.n >= p.rules.goal {
		return game.NoMove, fmt.Errorf("%s: illegal move %q", p.rules.name, s)
	}
	return game.Move(k), nil
}

func (p *countPos) String() string {
	side := "w"
	if p.side == game.Second {
		side = "b"
	}
	return fmt.Sprintf("%d %s", p.n, side)
}

func (p *countPos) Clone() game.Position {
	q := *p
	q.hist = append([]int(nil), p.hist...)
	return &q
}
