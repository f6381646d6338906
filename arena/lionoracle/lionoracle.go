// Package lionoracle measures a Catch the Lion player against perfect
// play, as package pons does for Connect Four: on the positions of the
// Lion test set (internal/liondata), the share of its moves that keep the
// exact value (optimal) and that keep the outcome, and for a network the
// value head's agreement with the exact outcome; each broken down by
// phase, outcome class, distance to the end and source, so that one can
// say which positions a player gets wrong. The set carries the truth, so
// no table file is needed.
package lionoracle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/pons"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/internal/liondata"
)

// Groups are the breakdowns of a report, in the order they are printed.
var Groups = []struct {
	Name string
	Keys []string
}{
	{"phase", liondata.Phases},
	{"class", liondata.Classes},
	{"distance", liondata.Distances},
	{"source", liondata.Sources},
}

// keys returns the bucket of a line in each group.
func keys(l liondata.Line, ply int) [4]string {
	return [4]string{liondata.Phase(ply), liondata.Class(l.Value.Outcome), liondata.Distance(l.Value), l.Source}
}

// Report is a player's move accuracy on the set: All, and by group and
// bucket (By["class"]["draw"]).
type Report struct {
	All pons.Accuracy
	By  map[string]map[string]pons.Accuracy
}

func (r *Report) add(k [4]string, optimal, kept bool) {
	if r.By == nil {
		r.By = map[string]map[string]pons.Accuracy{}
	}
	count := func(a *pons.Accuracy) {
		a.Positions++
		if optimal {
			a.Optimal++
		}
		if kept {
			a.OutcomeKept++
		}
	}
	count(&r.All)
	for i, g := range Groups {
		if r.By[g.Name] == nil {
			r.By[g.Name] = map[string]pons.Accuracy{}
		}
		a := r.By[g.Name][k[i]]
		count(&a)
		r.By[g.Name][k[i]] = a
	}
}

// Measure asks the player for its move in each position and judges it by
// the line's lists. concurrency workers run at once, each with its own
// player; each position is a new game for the player (seeded by its line
// number), so the result does not depend on the order or the workers.
func Measure(ctx context.Context, s *arena.Spec, lines []liondata.Line, concurrency int) (Report, error) {
	if s.Game != "lion" {
		return Report{}, fmt.Errorf("lionoracle: the Lion oracle needs a lion player, %q is for %s", s.Text, s.Game)
	}
	var (
		mu  sync.Mutex
		rep Report
	)
	err := arena.EachPosition(ctx, s, len(lines), concurrency, func() (func(context.Context, arena.Player, int) error, error) {
		return func(ctx context.Context, pl arena.Player, i int) error {
			k, opt, kept, err := judge(ctx, pl, lines[i], uint64(i))
			if err != nil {
				return fmt.Errorf("lionoracle: position %d (%s): %w", i+1, lines[i].Text, err)
			}
			mu.Lock()
			defer mu.Unlock()
			rep.add(k, opt, kept)
			return nil
		}, nil
	})
	return rep, err
}

// judge plays one position and scores the move.
func judge(ctx context.Context, pl arena.Player, l liondata.Line, seed uint64) (k [4]string, optimal, kept bool, err error) {
	p, err := l.Position()
	if err != nil {
		return k, false, false, err
	}
	if err := pl.NewGame(p.Clone(), rand.NewPCG(seed, 0x6c696f6e).Uint64()); err != nil {
		return k, false, false, err
	}
	mv, err := pl.Move(ctx, p.Clone(), nil)
	if err != nil {
		return k, false, false, err
	}
	if !game.IsLegal(p, mv) {
		return k, false, false, fmt.Errorf("illegal move %s", p.FormatMove(mv))
	}
	optimal, kept = l.Judge(lion.FormatMove(mv))
	return keys(l, p.Ply()), optimal, kept, nil
}

// Evaluator is a network's value of a position for its side to move
// (mcts.Evaluator); priors receives the policy over moves.
type Evaluator interface {
	Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error)
}

// ValueAccuracy counts a value head's judgements of positions.
type ValueAccuracy struct {
	Positions int
	// Agree counts the values whose class is the exact outcome's: a win
	// above 1/3, a loss below -1/3, a draw between.
	Agree int
	// AbsError sums |value - exact| with the exact value 1, 0 or -1.
	AbsError float64
	// GreedyOptimal and GreedyKept count the positions where the move to
	// the child the value likes best (a won game worth 1) is optimal, or
	// keeps the outcome: the value head playing alone.
	GreedyOptimal, GreedyKept int
}

// AgreeRate is Agree / Positions.
func (v ValueAccuracy) AgreeRate() float64 { return ratio(v.Agree, v.Positions) }

// MeanError is the mean |value - exact|.
func (v ValueAccuracy) MeanError() float64 {
	if v.Positions == 0 {
		return 0
	}
	return v.AbsError / float64(v.Positions)
}

// GreedyOptimalRate is GreedyOptimal / Positions.
func (v ValueAccuracy) GreedyOptimalRate() float64 { return ratio(v.GreedyOptimal, v.Positions) }

// GreedyKeptRate is GreedyKept / Positions.
func (v ValueAccuracy) GreedyKeptRate() float64 { return ratio(v.GreedyKept, v.Positions) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// ValueReport is a value head's accuracy on the set, All and by group.
type ValueReport struct {
	All ValueAccuracy
	By  map[string]map[string]ValueAccuracy
}

// MeasureValues evaluates every position, and every child of it, with e.
func MeasureValues(ctx context.Context, e Evaluator, lines []liondata.Line) (ValueReport, error) {
	var out ValueReport
	out.By = map[string]map[string]ValueAccuracy{}
	var priors []float32
	eval := func(p game.Position) (float32, error) {
		moves := p.GenerateMoves(nil)
		if cap(priors) < len(moves) {
			priors = make([]float32, len(moves))
		}
		return e.Evaluate(p, moves, priors[:len(moves)])
	}
	for i, l := range lines {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		p, err := l.Position()
		if err != nil {
			return out, err
		}
		v, err := eval(p)
		if err != nil {
			return out, fmt.Errorf("lionoracle: position %d (%s): %w", i+1, l.Text, err)
		}
		// The move to the child the value likes best (from the mover's
		// side: minus the child's value; a finished game its result).
		best, bestV := game.NoMove, float32(math.Inf(-1))
		for _, m := range p.GenerateMoves(nil) {
			p.Make(m)
			var w float32
			if st := p.Status(); st.Over() {
				w = -st.Result.Value()
			} else if w, err = eval(p); err != nil {
				return out, fmt.Errorf("lionoracle: position %d (%s): %w", i+1, l.Text, err)
			} else {
				w = -w
			}
			p.Unmake()
			if w > bestV {
				best, bestV = m, w
			}
		}
		opt, kept := l.Judge(lion.FormatMove(best))
		exact := l.Value.Outcome.Value()
		agree := valueClass(v) == l.Value.Outcome
		errAbs := math.Abs(float64(v - exact))
		count := func(a *ValueAccuracy) {
			a.Positions++
			a.AbsError += errAbs
			if agree {
				a.Agree++
			}
			if opt {
				a.GreedyOptimal++
			}
			if kept {
				a.GreedyKept++
			}
		}
		count(&out.All)
		k := keys(l, p.Ply())
		for gi, g := range Groups {
			if out.By[g.Name] == nil {
				out.By[g.Name] = map[string]ValueAccuracy{}
			}
			a := out.By[g.Name][k[gi]]
			count(&a)
			out.By[g.Name][k[gi]] = a
		}
	}
	return out, nil
}

// valueClass is the outcome a value says: a win above 1/3, a loss below
// -1/3, else a draw.
func valueClass(v float32) game.Result {
	switch {
	case v > 1.0/3:
		return game.Win
	case v < -1.0/3:
		return game.Loss
	}
	return game.Draw
}

// Write prints a move report: the totals, then a row per bucket of each
// group.
func Write(w io.Writer, title string, r Report) {
	fmt.Fprintf(w, "%s: optimal %d/%d (%.1f%%), outcome kept %d/%d (%.1f%%)\n", title,
		r.All.Optimal, r.All.Positions, 100*r.All.OptimalRate(), r.All.OutcomeKept, r.All.Positions, 100*r.All.OutcomeRate())
	fmt.Fprintf(w, "  %-9s %-12s %5s %8s %8s\n", "by", "", "n", "optimal", "kept")
	for _, g := range Groups {
		for _, k := range g.Keys {
			a, ok := r.By[g.Name][k]
			if !ok {
				continue
			}
			fmt.Fprintf(w, "  %-9s %-12s %5d %7.1f%% %7.1f%%\n", g.Name, k, a.Positions, 100*a.OptimalRate(), 100*a.OutcomeRate())
		}
	}
}

// WriteValues prints a value report like Write.
func WriteValues(w io.Writer, title string, r ValueReport) {
	a := r.All
	fmt.Fprintf(w, "%s: outcome agreed %d/%d (%.1f%%), mean |error| %.3f; the move to its best child: optimal %.1f%%, outcome kept %.1f%%\n",
		title, a.Agree, a.Positions, 100*a.AgreeRate(), a.MeanError(), 100*a.GreedyOptimalRate(), 100*a.GreedyKeptRate())
	fmt.Fprintf(w, "  %-9s %-12s %5s %8s %7s %8s %8s\n", "by", "", "n", "agreed", "|error|", "optimal", "kept")
	for _, g := range Groups {
		for _, k := range g.Keys {
			a, ok := r.By[g.Name][k]
			if !ok {
				continue
			}
			fmt.Fprintf(w, "  %-9s %-12s %5d %7.1f%% %7.3f %7.1f%% %7.1f%%\n", g.Name, k, a.Positions, 100*a.AgreeRate(), a.MeanError(), 100*a.GreedyOptimalRate(), 100*a.GreedyKeptRate())
		}
	}
}

// JSON returns a report as a JSON-ready map: totals and rates, and per
// group and bucket its counts.
func (r Report) JSON() map[string]any {
	out := map[string]any{"positions": r.All.Positions, "optimal": r.All.Optimal, "outcome_kept": r.All.OutcomeKept,
		"optimal_rate": r.All.OptimalRate(), "outcome_rate": r.All.OutcomeRate()}
	for g, by := range r.By {
		m := map[string]any{}
		for k, a := range by {
			m[k] = map[string]any{"positions": a.Positions, "optimal": a.Optimal, "outcome_kept": a.OutcomeKept}
		}
		out["by_"+g] = m
	}
	return out
}

// JSON returns a value report as a JSON-ready map.
func (r ValueReport) JSON() map[string]any {
	one := func(a ValueAccuracy) map[string]any {
		return map[string]any{"positions": a.Positions, "agreed": a.Agree, "agree_rate": a.AgreeRate(), "mean_error": a.MeanError(),
			"greedy_optimal": a.GreedyOptimal, "greedy_kept": a.GreedyKept}
	}
	out := one(r.All)
	for g, by := range r.By {
		m := map[string]any{}
		for k, a := range by {
			m[k] = one(a)
		}
		out["by_"+g] = m
	}
	return out
}

// Options are a report's: the player, the set (a file, or the embedded
// set when File is empty), how many of its positions (0: all).
type Options struct {
	Player      *arena.Spec
	File        string
	Positions   int
	Concurrency int
	JSON        bool
}

// Run measures the player and writes the report: its moves; for a
// network player searching (sims > 0) also its raw policy's; for any
// network player its value head.
func Run(ctx context.Context, w io.Writer, o Options) error {
	s := o.Player
	if s.Game != "lion" {
		return fmt.Errorf("lionoracle: the Lion oracle needs a lion player, %q is for %s", s.Text, s.Game)
	}
	lines, file, err := Lines(o.File, o.Positions)
	if err != nil {
		return err
	}
	type measure struct {
		title string
		rep   Report
	}
	var ms []measure
	players, err := s.MeasuredPlayers()
	if err != nil {
		return err
	}
	for _, p := range players {
		r, err := Measure(ctx, p.Spec, lines, o.Concurrency)
		if err != nil {
			return err
		}
		ms = append(ms, measure{p.Title, r})
	}
	var vr *ValueReport
	if s.Kind == arena.KindNet || s.Kind == arena.KindABZero {
		ev, err := s.Evaluator()
		if err != nil {
			return err
		}
		v, err := MeasureValues(ctx, ev, lines)
		if err != nil {
			return err
		}
		vr = &v
	}
	if o.JSON {
		out := map[string]any{"player": s.Name(), "file": file, "positions": len(lines)}
		var moves []map[string]any
		for _, m := range ms {
			j := m.rep.JSON()
			j["player"] = m.title
			moves = append(moves, j)
		}
		out["moves"] = moves
		if vr != nil {
			out["value"] = vr.JSON()
		}
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintf(w, "Lion oracle on %s: %d positions\n", file, len(lines))
	for _, m := range ms {
		Write(w, m.title, m.rep)
	}
	if vr != nil {
		WriteValues(w, s.Name()+" value head", *vr)
	}
	return nil
}

// HeldOut names the embedded held-out set where a set's file is taken.
const HeldOut = "heldout"

// Lines reads the first n positions (0: all) of the set in file, of the
// embedded set when file is empty, or of the embedded held-out set when
// file is HeldOut; name is what to call it.
func Lines(file string, n int) (lines []liondata.Line, name string, err error) {
	switch file {
	case "":
		lines, err = liondata.Open(n)
		return lines, "internal/liondata/" + liondata.Name, err
	case HeldOut:
		lines, err = liondata.OpenHeldOut(n)
		return lines, "internal/liondata/" + liondata.HeldOutName, err
	}
	f, _, err := inputfile.Open(file, "position set", 256<<20)
	if err != nil {
		return nil, file, fmt.Errorf("lionoracle: %w", err)
	}
	defer f.Close()
	lines, err = liondata.Read(f, n)
	return lines, file, err
}
