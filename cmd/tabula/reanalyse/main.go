// Package reanalyse is `tabula reanalyse`: a run's stored replay samples
// given new targets by a network, its own policy and value (-sims 0, a
// network distilled into whatever trains on them) or its search's, into
// a directory another run trains from (package reanalyse).
//
//	tabula reanalyse -run RUN [-checkpoint CKPT] [-in DIR] -out DIR [-sims N]
package reanalyse

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/reanalyse"
	"github.com/tabula-zero/tabula/rundir"
)

// Run is `tabula reanalyse`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reanalyse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runDir := fs.String("run", "", "run directory whose config (game, rules, search, batch, precision) applies (required)")
	ckpt := fs.String("checkpoint", "", "the network: a checkpoint FILE, a run directory (its best) or a shipped model's name (default: RUN's best)")
	in := fs.String("in", "", "`DIR` of the shards to reanalyse (default RUN/replay)")
	out := fs.String("out", "", "`DIR` the reanalysed shards go to, under their own names (required; a shard already there is kept, so a stopped command resumes)")
	sims := fs.Int("sims", 0, "simulations a position: 0 takes the network's policy and value as they are, more its search's (the run's search settings)")
	parallel := fs.Int("parallel", 64, "positions in flight (what fills the network's batches)")
	seed := fs.Uint64("seed", 0, "seed of the searches' draws (0: the run's)")
	precision := fs.String("precision", "", "the network's arithmetic: auto, fp32 or int8 (default: the run's self-play precision)")
	cliflag.Usage(fs, "tabula reanalyse -run RUN [-checkpoint CKPT] [-in DIR] -out DIR [-sims N]",
		"Gives a run's stored replay samples new targets from a network: each position's policy and\n"+
			"root value become the network's own (-sims 0: the network distilled into the run that trains on\n"+
			"them) or its search's (MuZero's Reanalyse); the game's result stays. Train from the output with\n"+
			"tabula train -selfplay=false and the shards in the run's replay directory.", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runDir == "" || *out == "" || fs.NArg() > 0 {
		return errors.New("usage: tabula reanalyse -run RUN [-checkpoint CKPT] [-in DIR] -out DIR [-sims N] (see -h)")
	}
	var checks cliflag.Checks
	checks.Int("sims", *sims, 0, math.MaxInt)
	checks.Int("parallel", *parallel, 1, 1<<16)
	if err := checks.Err(); err != nil {
		return err
	}
	dir := rundir.Dir(*runDir)
	cfg, err := dir.FrozenConfig()
	if err != nil {
		return fmt.Errorf("the run's config: %w", err)
	}
	if *seed != 0 {
		cfg.Seed = *seed
	}
	if *precision != "" {
		cfg.SelfPlay.Precision = *precision
		if err := cfg.Validate(); err != nil {
			return fmt.Errorf("-precision: %w", err)
		}
	}
	g, err := cfg.LookupGame()
	if err != nil {
		return err
	}
	rules, err := g.Resolve(game.Options(cfg.Rules))
	if err != nil {
		return err
	}
	path := *ckpt
	if path == "" {
		path = *runDir
	}
	c, file, g, err := rundir.LoadPlayable(path, g)
	if err != nil {
		return err
	}
	fwd, err := player.OpenForwarder(c.Params, cfg.SelfPlay.BatchSize, cfg.SelfPlay.Precision)
	if err != nil {
		return err
	}
	defer fwd.Close()
	// No cache: a stored position's target must be its own evaluation,
	// and the windows rarely repeat a position.
	b, err := mcts.NewBatcher(fwd, g.Encoder, mcts.BatchConfig{MaxBatch: cfg.SelfPlay.BatchSize,
		FlushAfter: time.Duration(cfg.SelfPlay.FlushAfterMicros) * time.Microsecond})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loop := make(chan error, 1)
	go func() { loop <- b.Run(ctx) }()
	src := *in
	if src == "" {
		src = dir.Replay()
	}
	fmt.Fprintf(stderr, "reanalyse: %s with %s (generation %d, %d simulations) into %s\n", src, file, c.Generation, *sims, *out)
	start := time.Now()
	opt := reanalyse.Options{Simulations: *sims, MCTS: player.RunSearch(cfg.Search), Parallel: *parallel, Seed: cfg.Seed}
	// The bar (count, rate, time left) on a terminal; elsewhere, as in a
	// log, a line at every tenth of the shards.
	track := progress.New()
	var bar *progress.Terminal
	if progress.IsTerminal(stderr) {
		bar = progress.NewTerminal(stderr, track, 100)
		go bar.Run(ctx, time.Second)
	}
	shards, samples, err := reanalyse.Dir(ctx, src, *out, g, rules, b, opt, func(done, total, samples int) {
		if done == 0 {
			track.Begin("reanalyse", "shards", int64(total))
			return
		}
		track.Set(int64(done))
		if bar == nil && (done*10/total != (done-1)*10/total || done == total) {
			fmt.Fprintf(stderr, "%s, %d samples\n", track.Phase().Line(time.Now(), 100), samples)
		}
	})
	track.End()
	cancel()
	if lerr := <-loop; err == nil && lerr != nil && !errors.Is(lerr, context.Canceled) {
		err = lerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d shards, %d samples reanalysed into %s in %s\n", shards, samples, *out, time.Since(start).Round(time.Second))
	return nil
}
