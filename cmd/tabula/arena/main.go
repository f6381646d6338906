// Package arena is `tabula arena`: it plays matches between players, rates
// recorded games and measures Connect Four move accuracy (docs/arena.md).
//
//	tabula arena -variant V -a SPEC -b SPEC -games N [-concurrency K] [-openings FILE]
//	             [-sprt elo0,elo1[,alpha,beta]] [-json] [-seed S] [-ply-cap N] [-out DIR]
//	tabula arena -run RUN -ratings [-anchor NAME] [-json]
//	tabula arena -variant connect4 -a SPEC -pons FILE [-positions N]
//	tabula arena -variant lion -a SPEC -lion-oracle FILE|embedded|heldout [-positions N]
//
// Player specs: random, ab:depth=N|movetime=MS|nodes=N[,algo=A],
// net:FILE[,sims=N,search=puct|gumbel], abzero:net=FILE,m=W,depth=N[,sims=N],
// mcts:sims=N, the rollout family uct:, solver:, mcts-mr:, mcts-ms:,
// mcts-mb:, ppa:, ppap:, ppaf:, ppafp:, mast: (docs/rollout.md),
// uci:COMMAND[,...], tb:FILE (Catch the Lion); any of them with name=NAME.
package arena

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/measure"
	_ "github.com/tabula-zero/tabula/arena/measure/all" // -pons, -lion-oracle, -xiangqi-set
	_ "github.com/tabula-zero/tabula/arena/uciplayer"
	"github.com/tabula-zero/tabula/arena/xqset"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/rundir"
)

// Run is `tabula arena`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(ctx, args, stdout, stderr)
}

type options struct {
	variant, rules, a, b    string
	games, concurrency      int
	openings                string
	openingPlies            int
	seed                    uint64
	plyCap                  int
	sprt                    string
	json, quiet             bool
	out, label, run, anchor string
	ratings                 bool
	measures                map[string]*string // a position-set measure's file by its name (arena/measure)
	makeXiangqiSet          int
	ponsValues              bool
	positions               int
	set                     map[string]bool // the flags given
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("arena", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.variant, "variant", "", "game: "+strings.Join(game.Names(), ", ")+" (default: the game of -a's or -b's network, else of -run, else xiangqi)")
	fs.StringVar(&o.rules, "rules", "", "rule options as name=value,name=value")
	fs.StringVar(&o.a, "a", "", "player A's spec (results are from A's side)")
	fs.StringVar(&o.b, "b", "", "player B's spec")
	fs.IntVar(&o.games, "games", 100, "number of games (colour-swapped pairs)")
	fs.IntVar(&o.concurrency, "concurrency", runtime.NumCPU(), "games played at once")
	fs.StringVar(&o.openings, "openings", "", "openings `FILE`: a position text, \"moves M1 M2 ...\" or \"TEXT moves ...\" per line, one per pair in turn")
	fs.IntVar(&o.openingPlies, "opening-plies", 4, "without -openings: random plies from the start, per pair")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the random openings and the players' randomness")
	fs.IntVar(&o.plyCap, "ply-cap", 400, "draw a game after this many plies (0: the rules only)")
	fs.StringVar(&o.sprt, "sprt", "", "stop early by SPRT: elo0,elo1[,alpha,beta] (alpha = beta = 0.05 by default)")
	fs.BoolVar(&o.json, "json", false, "print the result as one JSON object (the last line)")
	fs.BoolVar(&o.quiet, "q", false, "no per-game lines")
	fs.StringVar(&o.out, "out", "", "directory for game records (LABEL.jsonl, and LABEL.pgn for Xiangqi); with -run: RUN/arena")
	fs.StringVar(&o.label, "label", "", "records file name (default: time, A and B)")
	fs.StringVar(&o.run, "run", "", "run directory: matches record into RUN/arena; with -ratings, rate its records")
	fs.BoolVar(&o.ratings, "ratings", false, "print a Bradley-Terry ratings table over RUN/arena/*.jsonl (needs -run)")
	fs.StringVar(&o.anchor, "anchor", "", "-ratings: the player held at Elo 0 (default: the first ab: player, else random, else the first by name)")
	o.measures = map[string]*string{}
	for _, m := range measure.All() {
		in := m.Info()
		o.measures[in.Name] = fs.String(in.Name, "", in.Flag)
	}
	fs.IntVar(&o.makeXiangqiSet, "make-xiangqi-set", 0, "write a set of `N` Xiangqi positions judged by Fairy-Stockfish to stdout (with -seed; docs/arena.md)")
	fs.IntVar(&o.positions, "positions", 0, "-pons, -lion-oracle, -xiangqi-set: use the first N positions (0: all)")
	fs.BoolVar(&o.ponsValues, "pons-values", false, "-pons: also judge player A's value head on every move's position (net players)")
	cliflag.Usage(fs, "tabula arena -a SPEC -b SPEC [-variant GAME] [-games N] ... | tabula arena -run RUN -ratings | tabula arena -variant connect4 -a SPEC -pons FILE | tabula arena -variant lion -a SPEC -lion-oracle FILE | tabula arena -variant xiangqi -a SPEC -xiangqi-set FILE",
		"Plays matches between two players and reports W-D-L, Elo with its 95% interval, LOS (and an SPRT\n"+
			"with -sprt); rates a run's recorded games (-ratings); measures a Connect Four player's optimal-move\n"+
			"rate on Pons' positions (-pons, e.g. internal/ponsdata/Test_L2_R1); measures a Catch the Lion player\n"+
			"against perfect play (-lion-oracle internal/liondata/positions.txt); measures a Xiangqi player on\n"+
			"positions judged by Fairy-Stockfish (-xiangqi-set embedded). See docs/arena.md.", arena.SpecUsage)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	var checks cliflag.Checks
	checks.Int("games", o.games, 1, math.MaxInt)
	checks.Int("concurrency", o.concurrency, 1, 4096)
	checks.Int("opening-plies", o.openingPlies, 0, math.MaxInt)
	checks.Int("ply-cap", o.plyCap, 0, math.MaxInt)
	checks.Int("positions", o.positions, 0, math.MaxInt)
	checks.Int("make-xiangqi-set", o.makeXiangqiSet, 0, 1_000_000)
	if err := checks.Err(); err != nil {
		return err
	}
	if o.variant == "" {
		v, err := defaultVariant(o)
		if err != nil {
			return err
		}
		o.variant = v
	}
	switch {
	case o.ratings:
		return runRatings(o, stdout)
	case o.measure() != nil:
		return runMeasure(ctx, o, o.measure(), stdout)
	case o.makeXiangqiSet > 0:
		return makeXiangqiSet(ctx, o, stdout, stderr)
	}
	return runMatch(ctx, o, stdout, stderr)
}

// defaultVariant is the game when -variant is not given: that of the
// first player's network, else of the run, else game.EngineDefault
// (Xiangqi).
func defaultVariant(o options) (string, error) {
	for _, spec := range []string{o.a, o.b} {
		if g, ok, err := arena.NetworkGame(spec); err != nil || ok {
			return g, err
		}
	}
	if o.run != "" {
		if cfg, err := rundir.Dir(o.run).FrozenConfig(); err == nil {
			return cfg.Game, nil
		}
	}
	return game.EngineDefault(), nil
}

func runMatch(ctx context.Context, o options, stdout, stderr io.Writer) error {
	if o.a == "" || o.b == "" {
		return errors.New("a match needs -a SPEC and -b SPEC (or -ratings, -pons, -lion-oracle or -xiangqi-set)")
	}
	rules, err := game.ParseOptions(o.rules)
	if err != nil {
		return err
	}
	a, err := arena.ParsePlayer(o.a, o.variant)
	if err != nil {
		return err
	}
	b, err := arena.ParsePlayer(o.b, o.variant)
	if err != nil {
		return err
	}
	if a.Interactive() || b.Interactive() {
		// A person plays from the start, one game unless asked for more.
		if !o.set["opening-plies"] {
			o.openingPlies = 0
		}
		if !o.set["games"] {
			o.games = 1
		}
	}
	m := arena.Match{Game: o.variant, Rules: rules, A: a, B: b, Games: o.games, Concurrency: o.concurrency,
		OpeningPlies: o.openingPlies, Seed: o.seed, PlyCap: o.plyCap, RecordDir: o.out, Label: o.label}
	if m.RecordDir == "" && o.run != "" {
		m.RecordDir = rundir.Dir(o.run).Arena()
	}
	if m.Label == "" {
		m.Label = time.Now().UTC().Format("20060102T150405") + "-" + a.Name() + "-vs-" + b.Name()
	}
	if o.openings != "" {
		if m.Openings, err = arena.LoadOpenings(o.openings, o.variant, rules); err != nil {
			return err
		}
	}
	if o.sprt != "" {
		if m.SPRT, err = arena.ParseSPRT(o.sprt); err != nil {
			return err
		}
	}
	if !o.quiet {
		m.OnGame = func(r arena.Record, s arena.Score) {
			fmt.Fprintf(stderr, "game %d: %s - %s %s (%s, %d plies); %s: %d-%d-%d\n",
				r.Index+1, r.First, r.Second, r.Result, r.Reason, r.Plies, a.Name(), s.Wins, s.Draws, s.Losses)
		}
	}
	start := time.Now()
	res, err := arena.RunMatch(ctx, m)
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	sum := res.Score.Summary()
	sum.A, sum.B, sum.Variant, sum.SPRT, sum.Stopped = a.Name(), b.Name(), m.Game, res.SPRT, res.Stopped
	effA, effB := arena.MeanEffort(res.Records)
	sum.EffortA, sum.EffortB = arena.Number(math.Round(effA)), arena.Number(math.Round(effB))
	repeats := ""
	if pairs := (m.Games + 1) / 2; res.DistinctOpenings > 0 && res.DistinctOpenings < pairs {
		repeats = fmt.Sprintf("openings: %d distinct positions after %d random plies for %d pairs: players that choose deterministically repeat games (more -opening-plies, or -openings FILE)\n",
			res.DistinctOpenings, m.OpeningPlies, pairs)
	}
	if o.json {
		fmt.Fprint(stderr, repeats)
		j, jerr := json.Marshal(sum)
		if jerr != nil {
			return jerr
		}
		fmt.Fprintf(stdout, "%s\n", j)
	} else {
		fmt.Fprintf(stdout, "%s vs %s (%s): %d games in %v", a.Name(), b.Name(), m.Game, res.Games(), time.Since(start).Round(time.Millisecond))
		if res.Stopped != "" {
			fmt.Fprintf(stdout, ", stopped (%s)", res.Stopped)
		}
		fmt.Fprintln(stdout)
		fmt.Fprint(stdout, repeats)
		if m.RecordDir != "" {
			fmt.Fprintf(stdout, "records: %s\n", filepath.Join(m.RecordDir, arena.SanitizeLabel(m.Label)+".jsonl"))
		}
		if res.SPRT != nil {
			st := res.SPRT
			d := "continue"
			if st.Decision != "" {
				d = st.Decision + " accepted"
			}
			fmt.Fprintf(stdout, "SPRT elo0 %g elo1 %g alpha %g beta %g: LLR %.3f [%.3f, %.3f], %s\n", st.Elo0, st.Elo1, st.Alpha, st.Beta, st.LLR, st.Lower, st.Upper, d)
		}
		fmt.Fprintln(stdout, res.Score)
		if effA > 0 || effB > 0 {
			fmt.Fprintf(stdout, "search work per move (playouts or nodes): %s %.0f, %s %.0f\n", a.Name(), effA, b.Name(), effB)
		}
	}
	return err
}

func runRatings(o options, stdout io.Writer) error {
	if o.run == "" {
		return errors.New("-ratings needs -run RUN")
	}
	dir := rundir.Dir(o.run).Arena()
	recs, err := arena.ReadRecords(dir)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return fmt.Errorf("no game records in %s", dir)
	}
	anchor := o.anchor
	if anchor == "" {
		anchor = arena.DefaultAnchor(recs)
	}
	rows, err := arena.Ratings(arena.Outcomes(recs), arena.RatingOptions{Anchor: anchor})
	if err != nil {
		return err
	}
	if o.json {
		type row struct {
			Name      string       `json:"name"`
			Elo       arena.Number `json:"elo"`
			Err95     arena.Number `json:"elo_ci95"`
			Games     int          `json:"games"`
			Score     arena.Number `json:"score"`
			Wins      int          `json:"wins"`
			Draws     int          `json:"draws"`
			Losses    int          `json:"losses"`
			Connected bool         `json:"connected"`
		}
		out := struct {
			Anchor  string `json:"anchor"`
			Games   int    `json:"games"`
			Ratings []row  `json:"ratings"`
		}{Anchor: anchor, Games: len(recs)}
		for _, r := range rows {
			out.Ratings = append(out.Ratings, row{r.Name, arena.Number(r.Elo), arena.Number(r.Err95), r.Games, arena.Number(r.Score), r.Wins, r.Draws, r.Losses, r.Connected})
		}
		j, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", j)
		return err
	}
	fmt.Fprintf(stdout, "%d games in %s, anchor %s at 0\n", len(recs), dir, anchor)
	return arena.WriteRatings(stdout, rows, anchor)
}

// measure is the position-set measure whose flag is given (nil: none).
func (o options) measure() measure.Measure {
	for _, m := range measure.All() {
		if *o.measures[m.Info().Name] != "" {
			return m
		}
	}
	return nil
}

// runMeasure measures player A on the positions of the measure's flag.
func runMeasure(ctx context.Context, o options, m measure.Measure, stdout io.Writer) error {
	in := m.Info()
	if o.variant != in.Game {
		return fmt.Errorf("-%s needs -variant %s", in.Name, in.Game)
	}
	if o.a == "" {
		return fmt.Errorf("-%s needs the player as -a SPEC", in.Name)
	}
	p, err := arena.ParsePlayer(o.a, o.variant)
	if err != nil {
		return err
	}
	return m.Run(ctx, stdout, measure.Options{Player: p, File: *o.measures[in.Name], Positions: o.positions,
		Concurrency: o.concurrency, JSON: o.json, Values: o.ponsValues})
}

// makeXiangqiSet writes a set of positions judged by Fairy-Stockfish
// (xqset.DefaultGen with -make-xiangqi-set's count and -seed), with
// progress on stderr.
func makeXiangqiSet(ctx context.Context, o options, stdout, stderr io.Writer) error {
	cfg := xqset.DefaultGen
	cfg.Positions, cfg.Seed = o.makeXiangqiSet, o.seed
	if _, err := exec.LookPath(cfg.Engine); err != nil {
		return fmt.Errorf("-make-xiangqi-set needs Fairy-Stockfish at %s (Debian: apt install fairy-stockfish): %w", cfg.Engine, err)
	}
	start := time.Now()
	return xqset.Generate(ctx, cfg, stdout, func(n int) {
		if n%50 == 0 || n == cfg.Positions {
			el := time.Since(start)
			eta := time.Duration(float64(el) / float64(n) * float64(cfg.Positions-n))
			fmt.Fprintf(stderr, "%d/%d positions, %.1f a second, ETA %v\n", n, cfg.Positions, float64(n)/el.Seconds(), eta.Round(time.Second))
		}
	})
}
