package xqset

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/internal/inputfile"
)

// Options are a report's: the player, the set (a file, or the embedded
// set when File is empty), how many of its positions (0: all).
type Options struct {
	Player      *arena.Spec
	File        string
	Positions   int
	Concurrency int
	JSON        bool
}

// Lines reads the first n positions (0: all) of the set in file, or of
// the embedded set when file is empty; name is what to call it.
func Lines(file string, n int) (lines []Line, name string, err error) {
	if file == "" {
		lines, err = Read(strings.NewReader(Embedded), n)
		return lines, "arena/xqset/positions.txt", err
	}
	f, _, err := inputfile.Open(file, "position set", 256<<20)
	if err != nil {
		return nil, file, fmt.Errorf("xqset: %w", err)
	}
	defer f.Close()
	lines, err = Read(f, n)
	return lines, file, err
}

// Run measures the player and writes the report: its moves; for a
// network player searching also its raw policy's; for a network player
// its value head.
func Run(ctx context.Context, w io.Writer, o Options) error {
	s := o.Player
	if s.Game != "xiangqi" {
		return fmt.Errorf("xqset: the set needs a xiangqi player, %q is for %s", s.Text, s.Game)
	}
	lines, file, err := Lines(o.File, o.Positions)
	if err != nil {
		return err
	}
	players, err := s.MeasuredPlayers()
	if err != nil {
		return err
	}
	type measure struct {
		title string
		rep   Report
	}
	var ms []measure
	for _, p := range players {
		r, err := Measure(ctx, p.Spec, lines, o.Concurrency)
		if err != nil {
			return err
		}
		ms = append(ms, measure{p.Title, r})
	}
	var va *ValueAccuracy
	if s.Kind == arena.KindNet || s.Kind == arena.KindABZero {
		ev, err := s.Evaluator()
		if err != nil {
			return err
		}
		v, err := MeasureValues(ctx, ev, lines)
		if err != nil {
			return err
		}
		va = &v
	}
	if o.JSON {
		out := map[string]any{"player": s.Name(), "file": file, "positions": len(lines)}
		var moves []map[string]any
		for _, m := range ms {
			moves = append(moves, m.rep.JSON(m.title))
		}
		out["moves"] = moves
		if va != nil {
			out["value"] = map[string]any{"decided": va.Decided, "agreed": va.Agree, "agree_rate": va.AgreeRate()}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintf(w, "Xiangqi set on %s: %d positions (good: within %d centipawns of the engine's best; a blunder %d or more below)\n", file, len(lines), Margin, BlunderMargin)
	for _, m := range ms {
		m.rep.Write(w, m.title)
	}
	if va != nil {
		fmt.Fprintf(w, "%s value head: the engine's side on %.1f%% of %d decided positions (|score| >= %d)\n",
			s.Name(), 100*va.AgreeRate(), va.Decided, DecidedScore)
	}
	return nil
}

// JSON returns the report as a JSON-ready map.
func (r Report) JSON(player string) map[string]any {
	one := func(a Accuracy) map[string]any {
		return map[string]any{"positions": a.Positions, "best": a.Best, "good": a.Good, "blunders": a.Blunders,
			"best_rate": a.BestRate(), "good_rate": a.GoodRate(), "blunder_rate": a.BlunderRate()}
	}
	out := one(r.All)
	out["player"] = player
	for name, by := range map[string]map[string]Accuracy{"phase": r.Phase, "class": r.Class, "source": r.Sources} {
		m := map[string]any{}
		for k, a := range by {
			m[k] = one(a)
		}
		out["by_"+name] = m
	}
	return out
}

// Write prints the report: the whole set, then by phase and class.
func (r Report) Write(w io.Writer, title string) {
	fmt.Fprintf(w, "%s: best %.1f%%, good %.1f%%, blunders %.1f%% of %d\n", title, 100*r.All.BestRate(), 100*r.All.GoodRate(), 100*r.All.BlunderRate(), r.All.Positions)
	for _, g := range []struct {
		name string
		keys []string
		by   map[string]Accuracy
	}{{"phase", Phases, r.Phase}, {"class", Classes, r.Class}} {
		var parts []string
		for _, k := range g.keys {
			if a, ok := g.by[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %.1f%% / %.1f%% (%d)", k, 100*a.BestRate(), 100*a.GoodRate(), a.Positions))
			}
		}
		fmt.Fprintf(w, "  by %s: %s\n", g.name, strings.Join(parts, ", "))
	}
}
