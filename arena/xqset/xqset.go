// Package xqset measures a Xiangqi player on positions judged by a player
// outside the project: Fairy-Stockfish's multi-PV search at a fixed depth
// (far stronger than any network here, and sharing nothing with the
// project's evaluation or its teacher). For each position the set keeps
// the engine's best moves with their scores; a player's move is "best"
// when it is the engine's first, "good" when its score is within Margin of
// the first, and a blunder when it is known to score BlunderMargin below. It is Xiangqi's counterpart of Pons' sets and the
// Lion oracle: no exact truth exists for Xiangqi, so a much stronger
// engine stands in, and the file says which and how deep.
package xqset

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// Embedded is the set made by docs/repro/xiangqi-set.sh (README beside it).
//
//go:embed positions.txt
var Embedded string

// Margin is how far below the engine's first move, in its centipawns, a
// move still counts as good.
const Margin = 50

// BlunderMargin is how far below the engine's first move a move must be
// known to score to count as a blunder: two soldiers.
const BlunderMargin = 200

// mateScore is a mate in n plies' score: beyond any material score.
const mateScore = 20000

// Scored is one of the engine's moves with its score for the side to
// move (centipawns; a mate in n plies ±(20000-n)).
type Scored struct {
	Move  string
	Score int
}

// Line is one position of the set.
type Line struct {
	FEN    string
	Ply    int    // plies played before it in its game
	Source string // how its game was played
	// Moves are the engine's principal variations' first moves, best
	// first (at most the multi-PV count, fewer when fewer are legal).
	Moves []Scored
}

// Position parses the line's position under the default rules.
func (l Line) Position() (*xiangqi.Position, error) {
	return xiangqi.Parse(l.FEN, xiangqi.DefaultRules)
}

// Verdict is what the set says of one move.
type Verdict struct {
	Best bool // the engine's first move
	Good bool // within Margin of it
	// Blunder: known to score at least BlunderMargin below it (listed so,
	// or not listed while the last listed move already is).
	Blunder bool
}

// Judge gives the verdict on move (UCI, as FormatMove writes it).
func (l Line) Judge(move string) Verdict {
	top := l.Moves[0].Score
	for i, s := range l.Moves {
		if s.Move == move {
			return Verdict{Best: i == 0, Good: s.Score >= top-Margin, Blunder: s.Score <= top-BlunderMargin}
		}
	}
	return Verdict{Blunder: l.Moves[len(l.Moves)-1].Score <= top-BlunderMargin}
}

// Phases, Classes: the breakdowns of a report.
var (
	Phases  = []string{"opening", "middlegame", "endgame"}
	Classes = []string{"even", "ahead", "behind"}
)

// Phase is a position's phase by its ply: before 30, before 80, after.
func Phase(ply int) string {
	switch {
	case ply < 30:
		return "opening"
	case ply < 80:
		return "middlegame"
	}
	return "endgame"
}

// Class is a position's standing for the side to move by the engine's
// best score: within a soldier either way is even.
func (l Line) Class() string {
	switch s := l.Moves[0].Score; {
	case s >= 100:
		return "ahead"
	case s <= -100:
		return "behind"
	}
	return "even"
}

// Read parses a set: one position a line, tab-separated FEN, ply, source
// and the moves as MOVE:SCORE separated by spaces; '#' starts a comment.
// max > 0 keeps the first max positions.
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
			return nil, fmt.Errorf("xqset: line %d: %w", n, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("xqset: after line %d: %w", n, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("xqset: no positions")
	}
	return out, nil
}

func parseLine(text string) (Line, error) {
	f := strings.Split(text, "\t")
	if len(f) != 4 {
		return Line{}, fmt.Errorf("want 4 tab-separated fields (FEN, ply, source, moves), got %d", len(f))
	}
	l := Line{FEN: f[0], Source: f[2]}
	var err error
	if l.Ply, err = strconv.Atoi(f[1]); err != nil || l.Ply < 0 {
		return Line{}, fmt.Errorf("ply %q is not a count", f[1])
	}
	p, err := l.Position()
	if err != nil {
		return Line{}, err
	}
	if p.Status().Over() {
		return Line{}, fmt.Errorf("%s: the game is over", l.FEN)
	}
	seen := map[string]bool{}
	for _, ms := range strings.Fields(f[3]) {
		mv, sc, ok := strings.Cut(ms, ":")
		score, err := strconv.Atoi(sc)
		if !ok || err != nil {
			return Line{}, fmt.Errorf("move %q: want MOVE:SCORE", ms)
		}
		m, err := p.ParseMove(mv)
		if err != nil {
			return Line{}, fmt.Errorf("move %q: %w", mv, err)
		}
		if mv != p.FormatMove(m) || seen[mv] {
			return Line{}, fmt.Errorf("move %q: not in the set's notation, or twice", mv)
		}
		if n := len(l.Moves); n > 0 && score > l.Moves[n-1].Score {
			return Line{}, fmt.Errorf("move %q: scores must not rise (%d after %d)", mv, score, l.Moves[n-1].Score)
		}
		seen[mv] = true
		l.Moves = append(l.Moves, Scored{mv, score})
	}
	if len(l.Moves) == 0 {
		return Line{}, fmt.Errorf("no moves")
	}
	return l, nil
}

// Accuracy counts a player's moves on positions.
type Accuracy struct {
	Positions, Best, Good, Blunders int
}

// BestRate is Best / Positions.
func (a Accuracy) BestRate() float64 { return ratio(a.Best, a.Positions) }

// GoodRate is Good / Positions.
func (a Accuracy) GoodRate() float64 { return ratio(a.Good, a.Positions) }

// BlunderRate is Blunders / Positions.
func (a Accuracy) BlunderRate() float64 { return ratio(a.Blunders, a.Positions) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Report is a player's accuracy on the set, All and by phase and class.
type Report struct {
	All     Accuracy
	Phase   map[string]Accuracy
	Class   map[string]Accuracy
	Sources map[string]Accuracy
}

func (a *Accuracy) add(v Verdict) {
	a.Positions++
	if v.Best {
		a.Best++
	}
	if v.Good {
		a.Good++
	}
	if v.Blunder {
		a.Blunders++
	}
}

func (r *Report) add(l Line, v Verdict) {
	if r.Phase == nil {
		r.Phase, r.Class, r.Sources = map[string]Accuracy{}, map[string]Accuracy{}, map[string]Accuracy{}
	}
	r.All.add(v)
	for m, k := range map[*map[string]Accuracy]string{&r.Phase: Phase(l.Ply), &r.Class: l.Class(), &r.Sources: l.Source} {
		a := (*m)[k]
		a.add(v)
		(*m)[k] = a
	}
}

// Measure asks the player for its move in each position, each as a new
// game seeded by its line number, so the result does not depend on the
// order or on concurrency.
func Measure(ctx context.Context, s *arena.Spec, lines []Line, concurrency int) (Report, error) {
	if s.Game != "xiangqi" {
		return Report{}, fmt.Errorf("xqset: the set needs a xiangqi player, %q is for %s", s.Text, s.Game)
	}
	var (
		mu  sync.Mutex
		rep Report
	)
	err := arena.EachPosition(ctx, s, len(lines), concurrency, func() (func(context.Context, arena.Player, int) error, error) {
		return func(ctx context.Context, pl arena.Player, i int) error {
			l := lines[i]
			p, err := l.Position()
			if err != nil {
				return err
			}
			if err := pl.NewGame(p.Clone(), rand.NewPCG(uint64(i), 0x7871736574).Uint64()); err != nil {
				return err
			}
			m, err := pl.Move(ctx, p.Clone(), nil)
			if err != nil {
				return fmt.Errorf("xqset: position %d (%s): %w", i+1, l.FEN, err)
			}
			if !game.IsLegal(p, m) {
				return fmt.Errorf("xqset: position %d (%s): illegal move %s", i+1, l.FEN, p.FormatMove(m))
			}
			v := l.Judge(p.FormatMove(m))
			mu.Lock()
			rep.add(l, v)
			mu.Unlock()
			return nil
		}, nil
	})
	return rep, err
}

// Evaluator is a network's value of a position for its side to move
// (mcts.Evaluator); priors receives the policy over moves.
type Evaluator interface {
	Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error)
}

// ValueAccuracy counts a value head's verdicts on the positions the
// engine calls decided (|best score| at least DecidedScore).
type ValueAccuracy struct {
	Decided int // positions the engine calls decided
	Agree   int // of them, where the value's sign is the engine's
}

// DecidedScore is the engine's score from which a position counts as
// decided for the value check: two soldiers.
const DecidedScore = 200

// MeasureValues evaluates every decided position once with e: the value
// head's sign against the engine's.
func MeasureValues(ctx context.Context, e Evaluator, lines []Line) (ValueAccuracy, error) {
	var out ValueAccuracy
	var priors []float32
	for i, l := range lines {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		s := l.Moves[0].Score
		if s < DecidedScore && s > -DecidedScore {
			continue
		}
		p, err := l.Position()
		if err != nil {
			return out, err
		}
		moves := p.GenerateMoves(nil)
		if cap(priors) < len(moves) {
			priors = make([]float32, len(moves))
		}
		priors = priors[:len(moves)]
		v, err := e.Evaluate(p, moves, priors)
		if err != nil {
			return out, fmt.Errorf("xqset: position %d (%s): %w", i+1, l.FEN, err)
		}
		out.Decided++
		if (v > 0) == (s > 0) {
			out.Agree++
		}
	}
	return out, nil
}

// AgreeRate is Agree / Decided.
func (v ValueAccuracy) AgreeRate() float64 { return ratio(v.Agree, v.Decided) }
