// Package tune is `tabula tune`: it fits the Xiangqi evaluation's
// weights to game results by Texel's method (package alphabeta/texel) and
// writes them as Go source.
//
//	tabula arena -variant xiangqi -a ab:nodes=20000 -b ab:nodes=40000 -games 1000 -opening-plies 8 -out games -q
//	tabula tune -games games -o game/xiangqi/weights.go
//
// The games are arena records (*.jsonl); their quiet positions, labelled
// with the game's result, are the data. Without -o it prints the fit only.
package tune

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tabula-zero/tabula/alphabeta/texel"
	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/kvlist"
)

// Run is `tabula tune`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(args, stdout)
}

// maxFixCentis bounds a -fix value: ten chariots.
const maxFixCentis = 10000

type options struct {
	games     []string
	out       string
	skipPlies int
	perGame   int
	seed      uint64
	fix       []string
	// fixAt holds the values (centi-units) of the fixed terms given as
	// TERM=VALUE; the others keep their current weight.
	fixAt map[string]float64
}

func parseFlags(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("tune", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.Func("games", "arena records `DIR` (its *.jsonl files) of Xiangqi games; repeat for several", func(s string) error {
		o.games = append(o.games, s)
		return nil
	})
	fs.StringVar(&o.out, "o", "", "write the tuned weights as Go source to `FILE` (game/xiangqi/weights.go)")
	fs.IntVar(&o.skipPlies, "skip-plies", 12, "plies at the start of each game not sampled")
	fs.IntVar(&o.perGame, "per-game", 0, "at most `N` positions per game (0: every quiet one)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the choice of positions under -per-game")
	fixed := fs.String("fix", "", "comma-separated `TERMS` that keep their weight, or take VALUE centi-units as TERM=VALUE (names as printed)")
	cliflag.Usage(fs, "tabula tune -games DIR [-games DIR ...] [-o FILE] [-fix TERM[=VALUE],...]",
		"Fits the Xiangqi evaluation's weights to the results of recorded games (arena records) by Texel's\n"+
			"method and writes them as Go source (game/xiangqi/weights.go). See docs/notebook/alphabeta.md.", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fmt.Errorf("tune: %v", err)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("tune: unexpected argument %q", fs.Arg(0))
	}
	if len(o.games) == 0 {
		return o, errors.New("tune: -games DIR is required")
	}
	var c cliflag.Checks
	c.Int("skip-plies", o.skipPlies, 0, math.MaxInt)
	c.Int("per-game", o.perGame, 0, math.MaxInt)
	if err := c.Err(); err != nil {
		return o, fmt.Errorf("tune: %w", err)
	}
	names := xiangqi.EvalTermNames()
	// TERM holds a term at its shipped weight, TERM=VALUE at a value.
	pairs, bare, err := kvlist.Parse(*fixed)
	if err != nil {
		return o, fmt.Errorf("tune: -fix: %w", err)
	}
	for _, name := range append(bare, pairKeys(pairs)...) {
		if !slices.Contains(names, name) {
			return o, fmt.Errorf("tune: -fix: unknown term %q (terms: %s)", name, strings.Join(names, ", "))
		}
		o.fix = append(o.fix, name)
	}
	for _, p := range pairs {
		v, err := strconv.ParseFloat(p.Value, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxFixCentis {
			return o, fmt.Errorf("tune: -fix: %s=%q is not a number of centi-units within +-%d", p.Key, p.Value, maxFixCentis)
		}
		if o.fixAt == nil {
			o.fixAt = map[string]float64{}
		}
		o.fixAt[p.Key] = v
	}
	return o, nil
}

func pairKeys(pairs []kvlist.Pair) []string {
	keys := make([]string, len(pairs))
	for i, p := range pairs {
		keys[i] = p.Key
	}
	return keys
}

func run(args []string, stdout io.Writer) error {
	o, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	games, err := readGames(o.games)
	if err != nil {
		return err
	}
	g, err := game.Lookup(xiangqi.Name)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	samples, err := texel.Positions(g, nil, games, texel.SampleOptions{SkipPlies: o.skipPlies, PerGame: o.perGame, Seed: o.seed})
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	names := xiangqi.EvalTermNames()
	w0 := make([]float64, len(names))
	for i, w := range xiangqi.EvalWeights() {
		w0[i] = float64(w)
	}
	pr := &texel.Problem{Samples: samples, Scale: xiangqi.WeightScale, Fixed: make([]bool, len(names))}
	for i, n := range names {
		pr.Fixed[i] = slices.Contains(o.fix, n)
		if v, ok := o.fixAt[n]; ok {
			w0[i] = v * xiangqi.WeightScale
		}
	}
	k, err := pr.FitK(w0)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	w, before, after, err := pr.Fit(w0, k)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	fmt.Fprintf(stdout, "%d games, %d quiet positions; slope k %.5f per centi-unit; mean squared error %.5f -> %.5f\n",
		len(games), len(samples), k, before, after)
	fmt.Fprintf(stdout, "%-18s %9s %9s   (centi-units)\n", "term", "before", "after")
	for i, n := range names {
		fmt.Fprintf(stdout, "%-18s %9.2f %9.2f\n", n, w0[i]/xiangqi.WeightScale, w[i]/xiangqi.WeightScale)
	}
	if o.out == "" {
		return nil
	}
	src := texel.GoSource{
		Package: "xiangqi", Var: "evalWeights", Len: "NumEvalTerms", Names: names, Weights: w,
		Comment: fmt.Sprintf("evalWeights are the evaluation's weights in 1/WeightScale centi-units, by\n"+
			"term (evalterms.go), fitted by Texel's method (tabula tune) to %d quiet\n"+
			"positions of %d games: slope %.5f, mean squared error %.5f -> %.5f.", len(samples), len(games), k, before, after),
	}
	err = atomicfile.Write(o.out, 0o644, func(w io.Writer) error { return texel.WriteGo(w, src) })
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", o.out)
	return nil
}

// readGames reads the Xiangqi games of the record directories.
func readGames(dirs []string) ([]texel.Game, error) {
	var out []texel.Game
	for _, d := range dirs {
		recs, err := arena.ReadRecords(d)
		if err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
		for _, r := range recs {
			if r.Variant != xiangqi.Name {
				return nil, fmt.Errorf("tune: %s: game %d of match %q is %s, not xiangqi", d, r.Index, r.Match, r.Variant)
			}
			out = append(out, texel.Game{Start: r.Start, Moves: r.Moves, Result: r.FirstScore()})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tune: no games in %s", strings.Join(dirs, ", "))
	}
	return out, nil
}
