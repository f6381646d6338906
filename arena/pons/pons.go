// Package pons measures a Connect Four player on Pascal Pons' test sets:
// the share of positions where its move keeps the exact score (optimal)
// and where it keeps the game-theoretic outcome, judged by the exact
// solver. It is the Connect Four accuracy mode of the arena.
package pons

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/tabula-zero/tabula/alphabeta/c4solver"
	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/connect4"
)

// Line is one position of Pons' test sets: the columns played (1-7) from
// the empty board and the exact score for the side to move.
type Line struct {
	Moves string
	Score int
}

// Read reads up to max lines (0: all) in Pons' format `<moves> <score>`;
// blank lines are skipped.
func Read(r io.Reader, max int) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() && (max <= 0 || len(out) < max) {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("pons: line %d: want `<moves> <score>`, got %q", line, sc.Text())
		}
		v, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("pons: line %d: score %q is not an integer", line, f[1])
		}
		p, err := connect4.Parse(f[0])
		if err != nil {
			return nil, fmt.Errorf("pons: line %d: %w", line, err)
		}
		if p.Status().Over() {
			return nil, fmt.Errorf("pons: line %d: the game is over", line)
		}
		out = append(out, Line{Moves: f[0], Score: v})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("pons: after line %d: %w", line, err)
	}
	return out, nil
}

// Accuracy counts a player's moves on Pons' positions.
type Accuracy struct {
	Positions int
	// Optimal moves keep the position's exact score (the fastest win, the
	// slowest loss, or a draw in a drawn position).
	Optimal int
	// OutcomeKept moves keep the game-theoretic outcome (a win stays a
	// win, however slow; AlphaZero.jl's measure).
	OutcomeKept int
}

// OptimalRate is Optimal / Positions.
func (a Accuracy) OptimalRate() float64 { return ratio(a.Optimal, a.Positions) }

// OutcomeRate is OutcomeKept / Positions.
func (a Accuracy) OutcomeRate() float64 { return ratio(a.OutcomeKept, a.Positions) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// Measure asks a Connect Four player for its move in each position and
// scores the move with the exact solver: optimal when the position after
// it is worth exactly the line's score (from the mover's view).
// concurrency workers run at once, each with its own player and solver.
// Each position is a new game for the player (seeded by its line number),
// so results do not depend on the order or the number of workers.
func Measure(ctx context.Context, s *arena.Spec, lines []Line, concurrency int) (Accuracy, error) {
	if s.Game != connect4.Name {
		return Accuracy{}, fmt.Errorf("pons: accuracy needs a connect4 player, %q is for %s", s.Text, s.Game)
	}
	var (
		mu  sync.Mutex
		acc Accuracy
	)
	err := arena.EachPosition(ctx, s, len(lines), concurrency, func() (func(context.Context, arena.Player, int) error, error) {
		sv, err := c4solver.New(c4solver.Fastest, 32)
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, pl arena.Player, i int) error {
			opt, kept, err := judge(ctx, pl, sv, lines[i], uint64(i))
			if err != nil {
				return fmt.Errorf("pons: position %d (%s): %w", i+1, lines[i].Moves, err)
			}
			mu.Lock()
			defer mu.Unlock()
			acc.Positions++
			if opt {
				acc.Optimal++
			}
			if kept {
				acc.OutcomeKept++
			}
			return nil
		}, nil
	})
	return acc, err
}

// judge plays one position and scores the move.
func judge(ctx context.Context, pl arena.Player, sv *c4solver.Solver, l Line, seed uint64) (optimal, kept bool, err error) {
	p, err := connect4.Parse(l.Moves)
	if err != nil {
		return false, false, err
	}
	var moves []game.Move
	for _, c := range l.Moves {
		moves = append(moves, connect4.ColumnMove(int(c-'1')))
	}
	if err := pl.NewGame(connect4.New(), rand.NewPCG(seed, 0x706f6e73).Uint64()); err != nil {
		return false, false, err
	}
	mv, err := pl.Move(ctx, p.Clone(), moves)
	if err != nil {
		return false, false, err
	}
	if !game.IsLegal(p, mv) {
		return false, false, fmt.Errorf("illegal move %s", p.FormatMove(mv))
	}
	p.Make(mv)
	v, err := sv.SolveContext(ctx, p)
	if err != nil {
		return false, false, err
	}
	got := -v
	return got == l.Score, sign(got) == sign(l.Score), nil
}

// Evaluator is a network's value of a position for its side to move
// (mcts.Evaluator); priors receives the policy over moves.
type Evaluator interface {
	Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error)
}

// ValueOrder measures a value function on Pons' positions by the exact
// scores of their moves: what it knows beyond the outcome.
type ValueOrder struct {
	Positions int
	// GreedyOptimal and GreedyKept count the positions where the move to
	// the child the value likes best (a win at once worth 1) is optimal,
	// or keeps the outcome.
	GreedyOptimal, GreedyKept int
	// Pairs counts the pairs of moves that both keep the position's
	// outcome but differ in exact score (a quicker and a slower win, a
	// slower and a quicker loss); Ordered those whose children the value
	// orders as the exact scores do (a tie is not ordered).
	Pairs, Ordered int
}

// OrderedRate is Ordered / Pairs (0.5: the value knows nothing of how
// soon the game ends).
func (v ValueOrder) OrderedRate() float64 { return ratio(v.Ordered, v.Pairs) }

// MeasureValues evaluates every child of every position with e and
// judges the values against the exact solver.
func MeasureValues(ctx context.Context, e Evaluator, lines []Line) (ValueOrder, error) {
	sv, err := c4solver.New(c4solver.Fastest, 32)
	if err != nil {
		return ValueOrder{}, err
	}
	var out ValueOrder
	var priors []float32
	for i, l := range lines {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		p, err := connect4.Parse(l.Moves)
		if err != nil {
			return out, err
		}
		moves := p.GenerateMoves(nil)
		exact := make([]int, len(moves))
		value := make([]float32, len(moves))
		for j, m := range moves {
			q := p.Clone().(*connect4.Position)
			q.Make(m)
			if st := q.Status(); st.Over() {
				// A win at once is the quickest; else the board is full.
				exact[j], value[j] = 0, -st.Result.Value()
				if st.Result == game.Loss {
					exact[j] = l.Score
				}
				continue
			}
			v, err := sv.SolveContext(ctx, q)
			if err != nil {
				return out, err
			}
			replies := q.GenerateMoves(nil)
			if cap(priors) < len(replies) {
				priors = make([]float32, len(replies))
			}
			w, err := e.Evaluate(q, replies, priors[:len(replies)])
			if err != nil {
				return out, fmt.Errorf("pons: position %d (%s): %w", i+1, l.Moves, err)
			}
			exact[j], value[j] = -v, -w
		}
		out.Positions++
		best := 0
		for j := range moves {
			if value[j] > value[best] {
				best = j
			}
		}
		if exact[best] == l.Score {
			out.GreedyOptimal++
		}
		if sign(exact[best]) == sign(l.Score) {
			out.GreedyKept++
		}
		for a := range moves {
			for b := a + 1; b < len(moves); b++ {
				if sign(exact[a]) != sign(l.Score) || sign(exact[b]) != sign(l.Score) || exact[a] == exact[b] {
					continue
				}
				out.Pairs++
				if (exact[a] > exact[b]) == (value[a] > value[b]) && value[a] != value[b] {
					out.Ordered++
				}
			}
		}
	}
	return out, nil
}
