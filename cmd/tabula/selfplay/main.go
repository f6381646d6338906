// Package selfplay is `tabula selfplay`, self-play workers only: the
// run's best network (or -checkpoint FILE, or a fresh generation-0
// network for a new run) plays games and writes replay shards to
// RUN/replay/. Several machines can run
// it against one shared run directory, each with its own -worker name.
//
//	tabula selfplay -run runs/c4 [-config FILE] [-games N] [-time D]
package selfplay

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/jsonl"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/selfplay"
)

// Run is `tabula selfplay`: args are the flags after the command's name.
// Everything it prints goes to stderr, as a worker's log.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(ctx, args, stderr)
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("selfplay", flag.ContinueOnError)
	fs.SetOutput(out)
	runDir := fs.String("run", "", "run directory (required)")
	cfgPath := fs.String("config", "", "config file (default: RUN/config.yaml, else the preset of -game)")
	gameName := fs.String("game", all.FirstRun, "game of the preset when the run has no config")
	ckpt := fs.String("checkpoint", "", "play with this checkpoint instead of the run's best")
	games := fs.Int("games", 0, "stop after this many games (0: no limit)")
	limit := fs.Duration("time", 0, "stop after this long (0: no limit)")
	parallel := fs.Int("parallel", 0, "games in parallel (0: from the config)")
	sims := fs.Int("sims", 0, "simulations per move (0: from the config)")
	search := fs.String("search", "", "search kind: puct or gumbel (default: from the config)")
	seed := fs.Uint64("seed", 0, "random seed (0: from the config)")
	worker := fs.String("worker", defaultWorker(), "worker name in shard names (with -nats and a worker account: the account, or ACCOUNT_SUFFIX; default the account)")
	poll := fs.Duration("poll", 30*time.Second, "how often to look for a newer best network")
	natsURL := fs.String("nats", "", "play for the run named by -run on the NATS server at `URL` (a trainer's -serve or -nats) instead of a run directory")
	creds := fs.String("nats-credentials", "", "`FILE` with the worker account's user:password (or a token) for the server")
	ca := fs.String("nats-ca", "", "certificate authority `FILE` (PEM) to trust for a TLS server")
	spool := fs.String("spool", "", "with -nats: `DIR` where finished shards wait for the server (default: the user cache directory)")
	cliflag.Usage(fs, "tabula selfplay -run DIR [-games N] [-time D] [-worker NAME] [-checkpoint FILE|RUN] | tabula selfplay -nats URL -run NAME [-games N] [-time D]",
		"Plays self-play games with the run's best network (following promotions), a given checkpoint,\n"+
			"or a new run's generation-0 network, and writes replay shards into RUN/replay for the trainer.\n"+
			"Several workers, on one machine or sharing the directory, each need their own -worker name.\n"+
			"With -nats it plays for a run that a trainer serves (tabula train -serve or -nats) on another machine.", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *runDir == "" || fs.NArg() > 0 {
		return errors.New("usage: tabula selfplay -run RUN [-config FILE] [-games N] [-time D] (see -h)")
	}
	var checks cliflag.Checks
	checks.Int("games", *games, 0, math.MaxInt)
	checks.Duration("time", *limit, 0)
	checks.Int("parallel", *parallel, 0, math.MaxInt)
	checks.Int("sims", *sims, 0, math.MaxInt)
	checks.Duration("poll", *poll, 10*time.Millisecond)
	if err := checks.Err(); err != nil {
		return err
	}
	if err := data.CheckWorker(*worker); err != nil {
		return fmt.Errorf("-worker: %w", err)
	}
	if *natsURL != "" {
		if *cfgPath != "" || *ckpt != "" {
			return errors.New("-nats takes the config and the network from the server: no -config or -checkpoint")
		}
		workerSet := false
		fs.Visit(func(f *flag.Flag) { workerSet = workerSet || f.Name == "worker" })
		return runRemote(ctx, remoteFlags{url: *natsURL, run: *runDir, creds: *creds, ca: *ca, spool: *spool,
			worker: *worker, workerSet: workerSet, games: *games, limit: *limit, parallel: *parallel, sims: *sims}, out)
	}
	dir := rundir.Dir(*runDir)
	cfg, err := dir.WorkerConfig(*cfgPath, *gameName)
	if err != nil {
		return err
	}
	if *parallel > 0 {
		cfg.SelfPlay.ParallelGames = *parallel
	}
	if *sims > 0 {
		cfg.Search.Simulations = *sims
	}
	if *search != "" {
		cfg.Search.Kind = *search
	}
	if *seed != 0 {
		cfg.Seed = *seed
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	setup, err := selfplay.ConfigSetup(cfg)
	if err != nil {
		return err
	}
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		return err
	}
	params, gen, source, err := dir.Network(spec, cfg.Seed, *ckpt)
	if err != nil {
		return err
	}
	fwd, err := player.NewForwarder(params, cfg.SelfPlay.BatchSize, cfg.SelfPlay.Precision)
	if err != nil {
		return err
	}
	replay := dir.Replay()
	if err := os.MkdirAll(replay, 0o755); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(out, nil))
	w, err := selfplay.New(setup, selfplay.Options{ReplayDir: replay, Worker: *worker}, fwd, gen)
	if err != nil {
		return err
	}
	log.Info("self-play", "game", cfg.Game, "network", source, "generation", gen, "worker", *worker,
		"run_seed", cfg.Seed, "game_seed", w.Seed())
	metrics, err := jsonl.Open(dir.WorkerMetrics(*worker))
	if err != nil {
		return err
	}
	defer metrics.Close()
	prog := selfplay.NewProgress(out, metrics, w, *games, *limit)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go prog.Run(ctx)
	if *ckpt == "" {
		go followBest(ctx, w, dir, setup.Game, gen, cfg.SelfPlay.BatchSize, cfg.SelfPlay.Precision, *poll, log)
	}
	err = w.Run(ctx, *games, *limit)
	cancel()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return errors.Join(err, prog.Final())
}

func defaultWorker() string {
	h, err := os.Hostname()
	if err != nil {
		h = "worker"
	}
	r := strings.NewReplacer("-", "_", "/", "_")
	return fmt.Sprintf("%s_%d", r.Replace(h), os.Getpid())
}

// followBest switches the worker to a newer best network when the run's
// best pointer moves (the trainer promoted one).
func followBest(ctx context.Context, w *selfplay.Worker, run rundir.Dir, g game.Game, gen, batch int, precision string, every time.Duration, log *slog.Logger) {
	w.Follow(ctx, every, gen, func(gen int) (mcts.Forwarder, int, error) {
		c, path, err := run.NewerBest(g, gen)
		if err != nil || c == nil {
			return nil, 0, err
		}
		fwd, err := player.NewForwarder(c.Params, batch, precision)
		if err != nil {
			return nil, 0, fmt.Errorf("new best network %s: %w", path, err)
		}
		log.Info("switching network", "path", path, "generation", c.Generation)
		return fwd, c.Generation, nil
	}, log)
}
