package nnue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/nnue/nnuedata"
)

const genSynopsis = "tabula nnue gen -out DIR -positions N [-nodes N | -depth D] [-threads T] [-seed S]"

// runGen is `tabula nnue gen`.
func runGen(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	def := nnuedata.DefaultOptions()
	fs := flag.NewFlagSet("nnue gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "`DIR` of the shards (required; run again to go on to -positions)")
	positions := fs.Int("positions", 0, "the positions DIR is to hold (required): a sitting goes on from what is there")
	nodes := fs.Int("nodes", int(def.Budget.Nodes), "nodes a move (with -depth, whichever comes first; given -depth alone, no node limit)")
	depth := fs.Int("depth", 0, "depth a move (0: none)")
	threads := fs.Int("threads", runtime.NumCPU(), "games at once, one search thread each")
	seed := fs.Uint64("seed", 1, "seed of every random choice: game j of shard s is seeded from it, s and j")
	evalName := fs.String("eval", "classical", "the evaluation searched with: classical; material, fixed textbook piece values alone (nothing fitted to other games); learned, the shipped network (models/xiangqi.nnue); or a network `FILE` of package nnue (./learned or ./material for a file of that name)")
	hash := fs.Int("hash", def.Search.HashMiB, "MiB of transposition table a game")
	randMin := fs.Int("random-min", def.RandomPlies[0], "fewest uniformly random plies a game starts with (not recorded)")
	randMax := fs.Int("random-max", def.RandomPlies[1], "most random plies a game starts with")
	randMove := fs.Float64("random-move", def.RandomMoveProb, "chance of a random move instead of the search's, before -random-until")
	randUntil := fs.Int("random-until", def.RandomMoveUntil, "ply from which -random-move stops")
	openings := fs.String("openings", "", "`FILE` of openings (tabula arena's format: FEN, moves ..., FEN moves ...) games start from, one drawn a game, before the random plies")
	resignScore := fs.Int("resign-score", def.ResignScore, "a game is won once the score stays at least this for one side ...")
	resignPlies := fs.Int("resign-plies", def.ResignPlies, "... for this many plies in a row (0: no resigning)")
	drawScore := fs.Int("draw-score", def.DrawScore, "a game is drawn once the score stays within this of zero ...")
	drawPlies := fs.Int("draw-plies", def.DrawPlies, "... for this many plies in a row (0: no draw adjudication) ...")
	drawAfter := fs.Int("draw-after", def.DrawAfter, "... from this ply on")
	skipMate := fs.Bool("skip-mate", false, "leave out positions whose score is a mate (kept by default, marked)")
	shard := fs.Int("shard-positions", def.ShardRecords, "positions a shard is filled to (what a killed sitting loses at most per thread)")
	maxTime := fs.Duration("max-time", 0, "stop after this long, the shards written kept (0: at -positions)")
	cliflag.Usage(fs, genSynopsis,
		"Plays the project's alpha-beta against itself from random openings at a fixed budget a move,\n"+
			"on every core, and writes the positions with the search's score and the game's result into\n"+
			"compressed shards in DIR (package nnue/nnuedata; docs/nnue.md). Positions in check, those\n"+
			"whose best move captures and the random opening plies are skipped. Run again, the same\n"+
			"command goes on to -positions without replaying a game; DIR/metrics.jsonl has a line a shard\n"+
			"with the CPU time of every sitting. -eval material searches with material alone, at\n"+
			"conventional piece values: a start that owes nothing to games played elsewhere.", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *positions == 0 || fs.NArg() > 0 {
		return errors.New("usage: " + genSynopsis + " (see -h)")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["depth"] && !set["nodes"] {
		*nodes = 0 // the depth alone bounds the search
	}
	var checks cliflag.Checks
	checks.Int("positions", *positions, 1, math.MaxInt)
	checks.Int("nodes", *nodes, 0, math.MaxInt)
	checks.Int("depth", *depth, 0, 63)
	checks.Int("threads", *threads, 1, 1024)
	checks.Int("hash", *hash, 1, 1<<16)
	checks.Int("random-min", *randMin, 0, 200)
	checks.Int("random-max", *randMax, *randMin, 200)
	checks.Int("random-until", *randUntil, 0, math.MaxInt)
	checks.Int("resign-score", *resignScore, 0, alphabeta.Mate)
	checks.Int("resign-plies", *resignPlies, 0, math.MaxInt)
	checks.Int("draw-score", *drawScore, 0, alphabeta.Mate)
	checks.Int("draw-plies", *drawPlies, 0, math.MaxInt)
	checks.Int("draw-after", *drawAfter, 0, math.MaxInt)
	checks.Int("shard-positions", *shard, 1, nnuedata.MaxRecords/2)
	checks.Duration("max-time", *maxTime, 0)
	err := checks.Err()
	if *nodes == 0 && *depth == 0 {
		err = errors.Join(err, errors.New("-nodes 0 and -depth 0: give a budget a move"))
	}
	if !(*randMove >= 0 && *randMove <= 1) {
		err = errors.Join(err, fmt.Errorf("-random-move %v: want 0 to 1", *randMove))
	}
	if err != nil {
		return err
	}

	o := def
	o.Budget = nnuedata.Budget{Depth: *depth, Nodes: uint64(*nodes)}
	o.Search.HashMiB = *hash
	o.RandomPlies = [2]int{*randMin, *randMax}
	o.RandomMoveProb, o.RandomMoveUntil = *randMove, *randUntil
	o.ResignScore, o.ResignPlies = *resignScore, *resignPlies
	o.DrawScore, o.DrawPlies, o.DrawAfter = *drawScore, *drawPlies, *drawAfter
	o.SkipMate = *skipMate
	o.Seed = *seed
	o.Threads = *threads
	o.ShardRecords = *shard
	if o.Eval, err = evalFor(*evalName); err != nil {
		return err
	}
	if *openings != "" {
		if o.Openings, err = loadOpenings(*openings, o.Rules); err != nil {
			return err
		}
		o.OpeningsName = *openings
	}
	if *maxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *maxTime)
		defer cancel()
	}
	return generate(ctx, *out, *positions, o, stdout, stderr)
}

// evalLearned is -eval's name of the shipped network.
const evalLearned = "learned"

// evalFor turns -eval into the evaluation the games are searched with:
// classical, material, the shipped network (learned) or a network file,
// a network named in the shards by its sizes and checksum (the same
// network under another path, or shipped, is the same evaluation;
// another network is not).
func evalFor(spec string) (nnuedata.Eval, error) {
	if spec == nnuedata.Classical.Name {
		return nnuedata.Classical, nil
	}
	if spec == nnuedata.Material.Name {
		return nnuedata.Material, nil
	}
	if spec == evalLearned {
		net, m, err := nnue.Shipped()
		if err != nil {
			return nnuedata.Eval{}, fmt.Errorf("-eval %s: %w", spec, err)
		}
		sum, err := hex.DecodeString(m.SHA256)
		if err != nil {
			return nnuedata.Eval{}, fmt.Errorf("-eval %s: %s: %w", spec, m, err)
		}
		return networkEval(net, sum), nil
	}
	b, err := inputfile.ReadFile(spec, "network file", nnue.MaxFileSize)
	if err != nil {
		return nnuedata.Eval{}, fmt.Errorf("-eval %s: not %s, %s or %s, nor a network file: %w",
			spec, nnuedata.Classical.Name, nnuedata.Material.Name, evalLearned, err)
	}
	net, err := nnue.Decode(b)
	if err != nil {
		return nnuedata.Eval{}, fmt.Errorf("-eval %s: %w", spec, err)
	}
	sum := sha256.Sum256(b)
	return networkEval(net, sum[:]), nil
}

// networkEval is the evaluation of net, whose file's SHA-256 is sum.
func networkEval(net *nnue.Net, sum []byte) nnuedata.Eval {
	return nnuedata.Eval{
		Name: fmt.Sprintf("nnue %s sha256:%x", net.Sizes(), sum[:8]),
		Wrap: func(p *xiangqi.Position) alphabeta.Position { return nnue.New(net, p) },
	}
}

// loadOpenings reads an openings file into the positions it names.
func loadOpenings(path string, rules xiangqi.Rules) ([]*xiangqi.Position, error) {
	ops, err := arena.LoadOpenings(path, xiangqi.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("-openings: %w", err)
	}
	out := make([]*xiangqi.Position, 0, len(ops))
	for i, op := range ops {
		text := op.Text
		if text == "" {
			text = xiangqi.StartFEN
		}
		p, err := xiangqi.Parse(text, rules)
		if err == nil {
			err = game.Play(p, op.Moves...)
		}
		if err != nil {
			return nil, fmt.Errorf("-openings: %s: opening %d: %w", path, i+1, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// generate runs the generator with a progress bar on a terminal, a line
// a shard, and the summary on stdout.
func generate(ctx context.Context, dir string, target int, o nnuedata.Options, stdout, stderr io.Writer) error {
	log := stderr
	track := progress.New()
	barCtx, cancelBar := context.WithCancel(context.Background())
	barDone := make(chan struct{})
	// stopBar clears the bar and waits until it is gone, so that the
	// summary does not share its line.
	stopBar := func() {
		cancelBar()
		<-barDone
	}
	if progress.IsTerminal(stderr) {
		bar := progress.NewTerminal(stderr, track, 100)
		log = bar
		go func() {
			defer close(barDone)
			bar.Run(barCtx, time.Second)
		}()
	} else {
		close(barDone)
	}
	start := time.Now()
	var games, positions, total int
	ev := nnuedata.Events{
		Start: func(before, target int) {
			total = before
			fmt.Fprintf(log, "nnue gen: %s holds %d positions; to %d at %s a move, %s evaluation, %d threads, seed %d\n",
				dir, before, target, o.Budget, o.Eval.Name, o.Threads, o.Seed)
			track.Begin("nnue gen", "positions", int64(max(target-before, 0)))
		},
		Game: func(records int, _ nnuedata.Stats) {
			games++
			positions += records
			track.Set(int64(positions))
		},
		Shard: func(path string, h *nnuedata.Header, m *nnuedata.Metric) {
			total = m.Positions
			wall := time.Since(start).Seconds()
			eta := ""
			if left, ok := track.Phase().Left(time.Now()); ok {
				eta = ", ETA " + round(left).String()
			}
			fmt.Fprintf(log, "shard %d: %d positions of %d games; %d of %d in %s; %.1f positions/s, %.2f games/s%s\n",
				h.Seq, h.Records, h.Games, total, m.Target, dir, float64(positions)/wall, float64(games)/wall, eta)
		},
	}
	sum, err := nnuedata.Generate(ctx, dir, target, o, ev)
	track.End()
	stopBar()
	if err != nil {
		return err
	}
	printSummary(stdout, dir, &sum)
	if sum.Stopped {
		fmt.Fprintf(stdout, "stopped at %d of %d positions: the same command goes on\n", sum.Total, sum.Target)
	}
	return nil
}

func printSummary(w io.Writer, dir string, s *nnuedata.Summary) {
	if s.Completed {
		fmt.Fprintf(w, "%s holds %d positions, at least the %d asked for: nothing to do\n", dir, s.Total, s.Target)
	}
	st := s.DirStats
	g := max(st.Games(), 1)
	pct := func(n int) float64 { return 100 * float64(n) / float64(g) }
	fmt.Fprintf(w, "%s: %d positions of %d games at %s (%s evaluation)\n", dir, s.Total, s.DirGames, s.Budget, s.EvalName)
	fmt.Fprintf(w, "  results for Red: %.1f%% won, %.1f%% drawn, %.1f%% lost (adjudicated: %.1f%% resigned, %.1f%% drawn); %.1f plies a game\n",
		pct(st.RedWins), pct(st.Draws), pct(st.BlackWins), pct(st.Resigned), pct(st.Adjudicated), float64(st.Plies)/float64(g))
	if st.Searched > 0 {
		fmt.Fprintf(w, "  searched positions skipped: %.1f%% in check, %.1f%% a capture as best move, %.1f%% mate scores\n",
			100*float64(st.SkipCheck)/float64(st.Searched), 100*float64(st.SkipCapture)/float64(st.Searched), 100*float64(st.SkipMate)/float64(st.Searched))
	}
	if s.Completed {
		return
	}
	cpu := s.CPU.Seconds()
	fmt.Fprintf(w, "this sitting: %d positions, %d games, %d shards in %s on %d threads; CPU %s (every sitting's: %s)",
		s.Records, s.Games, s.Shards, round(s.Wall), s.Threads, round(s.CPU), round(s.CPUTotal))
	if cpu > 0 && s.Wall > 0 {
		fmt.Fprintf(w, "; %.1f positions/s, %.1f positions and %.0f nodes a CPU-second", float64(s.Records)/s.Wall.Seconds(), float64(s.Records)/cpu, float64(s.Stats.Nodes)/cpu)
	}
	fmt.Fprintln(w)
}

// round keeps a duration's figures that mean something: tenths of a
// second below a minute, seconds above.
func round(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}
