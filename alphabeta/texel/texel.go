// Package texel tunes the weights of a linear evaluation by Texel's
// method: the evaluation of quiet positions, through a logistic curve,
// should predict the results of the games they came from. It minimises the
// mean squared difference between results and predictions with gonum's
// L-BFGS, first fitting the curve's slope to the starting weights.
//
// Positions come from recorded games (Positions); a game opts in by
// implementing Evaluator.
package texel

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/optimize"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
)

// Evaluator is a position whose static evaluation is a dot product of
// terms and weights divided by a scale (in centi-units).
type Evaluator interface {
	alphabeta.Position
	// EvalTerms writes the terms, from the side to move's view, into dst.
	EvalTerms(dst []int32) []int32
}

// Sample is one quiet position: its terms and the result of its game for
// the side to move (1 win, 0.5 draw, 0 loss).
type Sample struct {
	Terms  []float64
	Result float64
}

// Game is a finished game: its start and moves in the game's notation and
// the result for the side that moved first (1, 0.5, 0).
type Game struct {
	Start  string // a position text; empty for the game's start
	Moves  []string
	Result float64
}

// SampleOptions choose the positions of a game.
type SampleOptions struct {
	SkipPlies int    // plies at the start not sampled (random openings)
	PerGame   int    // at most this many positions per game (0: all)
	Seed      uint64 // picks the positions when PerGame is exceeded
}

// Positions replays the games and returns their quiet positions (not in
// check, and the quiescence search agrees with the static evaluation),
// labelled with the game's result for the side to move. A game that does
// not replay is an error naming it.
func Positions(g game.Game, opts game.Options, games []Game, opt SampleOptions) ([]Sample, error) {
	s, err := alphabeta.New(alphabeta.Options{Algorithm: alphabeta.AlgPVS, HashMiB: 1, Quiescence: true})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x7e7e1))
	var out []Sample
	for i, gm := range games {
		if gm.Result != 0 && gm.Result != 0.5 && gm.Result != 1 {
			return nil, fmt.Errorf("texel: game %d: result %v is not 0, 0.5 or 1", i, gm.Result)
		}
		gp, err := g.Start(gm.Start, opts)
		if err != nil {
			return nil, fmt.Errorf("texel: game %d: %w", i, err)
		}
		p, ok := gp.(Evaluator)
		if !ok {
			return nil, fmt.Errorf("texel: %s has no linear evaluation to tune (no EvalTerms)", g.Name)
		}
		first := p.SideToMove()
		var found []Sample
		for ply, mv := range gm.Moves {
			if ply >= opt.SkipPlies && !p.InCheck() {
				if v := p.Evaluate(); s.Quiesce(p) == v {
					r := gm.Result
					if p.SideToMove() != first {
						r = 1 - r
					}
					found = append(found, Sample{Terms: toFloat(p.EvalTerms(nil)), Result: r})
				}
			}
			m, err := p.ParseMove(mv)
			if err != nil {
				return nil, fmt.Errorf("texel: game %d, ply %d: %w", i, ply+1, err)
			}
			p.Make(m)
		}
		if opt.PerGame > 0 && len(found) > opt.PerGame {
			rng.Shuffle(len(found), func(a, b int) { found[a], found[b] = found[b], found[a] })
			found = found[:opt.PerGame]
		}
		out = append(out, found...)
	}
	return out, nil
}

func toFloat(x []int32) []float64 {
	f := make([]float64, len(x))
	for i, v := range x {
		f[i] = float64(v)
	}
	return f
}

// Problem is a tuning problem: samples, the evaluation's weight scale, and
// which weights stay fixed.
type Problem struct {
	Samples []Sample
	Scale   float64 // weights are in 1/Scale centi-units
	Fixed   []bool  // per weight; nil: all free
}

// predict is the logistic curve: the expected result of score (centi-
// units) at slope k.
func predict(k, score float64) float64 { return 1 / (1 + math.Exp(-k*score)) }

// Error is the mean squared difference between results and predictions
// under weights w at slope k.
func (pr *Problem) Error(w []float64, k float64) float64 {
	var sum float64
	for _, s := range pr.Samples {
		d := s.Result - predict(k, dot(w, s.Terms)/pr.Scale)
		sum += d * d
	}
	return sum / float64(len(pr.Samples))
}

func dot(w, x []float64) float64 {
	var s float64
	for i, v := range x {
		s += w[i] * v
	}
	return s
}

// FitK returns the slope that best predicts the results under weights w.
func (pr *Problem) FitK(w []float64) (float64, error) {
	if len(pr.Samples) == 0 {
		return 0, errors.New("texel: no samples")
	}
	// Search log k: k is positive and spans decades.
	res, err := optimize.Minimize(optimize.Problem{
		Func: func(x []float64) float64 { return pr.Error(w, math.Exp(x[0])) },
	}, []float64{math.Log(0.005)}, nil, &optimize.NelderMead{})
	if err != nil {
		return 0, fmt.Errorf("texel: fitting the slope: %w", err)
	}
	return math.Exp(res.X[0]), nil
}

// Fit returns the weights minimising the error at slope k, starting from
// w0 (fixed weights keep their value), with the error before and after.
func (pr *Problem) Fit(w0 []float64, k float64) (w []float64, before, after float64, err error) {
	if len(pr.Samples) == 0 {
		return nil, 0, 0, errors.New("texel: no samples")
	}
	for i, s := range pr.Samples {
		if len(s.Terms) != len(w0) {
			return nil, 0, 0, fmt.Errorf("texel: sample %d has %d terms, want %d", i, len(s.Terms), len(w0))
		}
	}
	if pr.Fixed != nil && len(pr.Fixed) != len(w0) {
		return nil, 0, 0, fmt.Errorf("texel: %d fixed flags for %d weights", len(pr.Fixed), len(w0))
	}
	// The optimiser works in centi-units per term so that all weights
	// have comparable sizes; free holds the indexes it moves.
	var free []int
	for i := range w0 {
		if pr.Fixed == nil || !pr.Fixed[i] {
			free = append(free, i)
		}
	}
	full := func(x []float64) []float64 {
		w := append([]float64(nil), w0...)
		for j, i := range free {
			w[i] = x[j] * pr.Scale
		}
		return w
	}
	n := float64(len(pr.Samples))
	problem := optimize.Problem{
		Func: func(x []float64) float64 { return pr.Error(full(x), k) },
		Grad: func(grad, x []float64) {
			w := full(x)
			clear(grad)
			for _, s := range pr.Samples {
				y := predict(k, dot(w, s.Terms)/pr.Scale)
				// d/dx_j of (r-y)^2 with y = σ(k Σ x_j t_j): the x are
				// already in centi-units.
				g := -2 * (s.Result - y) * y * (1 - y) * k / n
				for j, i := range free {
					grad[j] += g * s.Terms[i]
				}
			}
		},
	}
	x0 := make([]float64, len(free))
	for j, i := range free {
		x0[j] = w0[i] / pr.Scale
	}
	before = pr.Error(w0, k)
	settings := &optimize.Settings{GradientThreshold: 1e-9, MajorIterations: 500}
	res, err := optimize.Minimize(problem, x0, settings, &optimize.LBFGS{})
	if err != nil && res == nil {
		return nil, 0, 0, fmt.Errorf("texel: fitting the weights: %w", err)
	}
	w = full(res.X)
	return w, before, pr.Error(w, k), nil
}

// GoSource describes the Go file that ships tuned weights.
type GoSource struct {
	Package, Var, Len string // package name, variable, array length expression
	Comment           string // the variable's doc comment, without "//"
	Names             []string
	Weights           []float64 // rounded to integers
}

// WriteGo writes src as gofmt-formatted Go source: an int32 array with one
// commented line per weight.
func WriteGo(w io.Writer, src GoSource) error {
	if len(src.Names) != len(src.Weights) {
		return fmt.Errorf("texel: %d names for %d weights", len(src.Names), len(src.Weights))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by tabula tune; DO NOT EDIT.\n\npackage %s\n\n", src.Package)
	for _, line := range strings.Split(strings.TrimSpace(src.Comment), "\n") {
		fmt.Fprintf(&b, "// %s\n", line)
	}
	fmt.Fprintf(&b, "var %s = [%s]int32{\n", src.Var, src.Len)
	for i, v := range src.Weights {
		fmt.Fprintf(&b, "%d, // %s\n", int32(math.Round(v)), src.Names[i])
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("texel: formatting the weights: %w", err)
	}
	_, err = w.Write(out)
	return err
}
