// Package train is `tabula train`, a whole training loop in one
// process: self-play workers, the trainer and gating. The same command on
// an existing run resumes it. With no flags it trains Connect Four into runs/connect4.
//
//	tabula train [-config configs/connect4.yaml] [-set training.learning_rate=0.01] [-run runs/c4] [-max-time 30m] [-max-generations N] [-keep-checkpoints N]
package train

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	_ "github.com/tabula-zero/tabula/arena/measure/all" // the position-set measures whose sections CheckConfig reads
	_ "github.com/tabula-zero/tabula/arena/uciplayer"   // uci: gate opponents
	"github.com/tabula-zero/tabula/dashboard"
	"github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/profile"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/selfplay"
	"github.com/tabula-zero/tabula/trainer"
	"github.com/tabula-zero/tabula/trainer/matches"
)

// Run is `tabula train`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// Ctrl-C in `tabula train | tee log` stops tee too: writing to the
	// closed pipe must fail, not kill the trainer before it saves.
	signal.Ignore(syscall.SIGPIPE)
	return run(ctx, args, stdout)
}

func run(ctx context.Context, args []string, out io.Writer) (err error) {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(out)
	cfgPath := fs.String("config", "", "config file (default: the run's frozen config, else the preset of -game)")
	gameName := fs.String("game", all.FirstRun, "preset (connect4, lion, xiangqi, or xiangqi-zero: Xiangqi from its rules alone) when neither -config nor a frozen config exists")
	runDir := fs.String("run", "", "run directory (default runs/<game>)")
	maxTime := fs.Duration("max-time", 0, "stop after this long by the wall clock, evaluations included, saving a checkpoint; training stops early enough for the closing evaluation to end in time by the run's last evaluation's duration (without one yet, that evaluation may end past it) (0: no limit)")
	maxTrainTime := fs.Duration("max-train-time", 0, "stop after this much more training time (the run's train_clock_s: self-play, training and gating, not evaluations; the learning benchmark's budget), saving a checkpoint (0: no limit)")
	maxCPU := fs.Duration("max-cpu", 0, "stop after this much more CPU time of training in this invocation (counted as the run's train_cpu_s, a budget that a shared machine mostly stretches; a resumed run gets it afresh), saving a checkpoint (0: no limit)")
	untilCPU := fs.Duration("until-cpu", 0, "stop once the run's CPU time of training in all (train_cpu_s since it began, the CPU-hours its curves are plotted against) reaches this, saving a checkpoint; the same command resumes a stopped run to the same total (0: no limit)")
	maxGen := fs.Int("max-generations", 0, "stop after this many new generations (0: no limit)")
	var keep keepFlag
	fs.Var(&keep, "keep-checkpoints", "keep the newest `N` checkpoints besides the best network and the evaluated ones, deleting older ones (0: keep every checkpoint; default: the run config's training.keep_checkpoints, 3 in the presets)")
	selfPlay := fs.Bool("selfplay", true, "play self-play games in this process (false: train only from shards other workers write)")
	initNet := fs.String("init", "", "start a new run from this network's weights instead of a fresh one: a checkpoint `FILE`, a run directory (its best) or a shipped model's name (e.g. xiangqi); the step, schedule and optimizer start afresh, and the run's CPU-hours count from it; a config with more blocks or filters grows the network into them, computing the same function")
	accept := fs.Bool("accept-config-change", false, "continue a run with a config that differs from its frozen copy (the change is logged)")
	var sets []string
	fs.Func("set", "override one config value as `PATH=VALUE` (YAML; e.g. training.learning_rate=0.01, selfplay.surprise_weight=0.5); repeatable", func(s string) error {
		sets = append(sets, s)
		return nil
	})
	cpuProfile := fs.String("cpuprofile", "", "write the run's CPU profile to `FILE` when it stops (go tool pprof FILE)")
	httpAddr := fs.String("http", "", "serve the web dashboard on `ADDR` (host:port, e.g. localhost:8080)")
	lionTB := fs.String("lion-tablebase", "", "with -http: Catch the Lion's tablebase `FILE` (tabula liontb -out FILE), from which the Play page shows each move's exact value")
	var nf natsFlags
	nf.register(fs)
	cliflag.Usage(fs, "tabula train [-config FILE | -game connect4|lion|xiangqi|xiangqi-zero] [-set PATH=VALUE ...] [-run DIR] [-init NET] [-max-time D] [-max-train-time D] [-max-cpu D | -until-cpu D] [-max-generations N] [-keep-checkpoints N] [-serve ADDR | -nats URL]",
		"Runs the training loop (self-play, SGD, checkpoint, gate, promote) into the run directory,\n"+
			"by default runs/<game> with the game's embedded preset. The same command resumes a run;\n"+
			"Ctrl-C saves a checkpoint first.", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *lionTB != "" && *httpAddr == "" {
		return errors.New("-lion-tablebase is for the dashboard's Play page: give -http too")
	}
	var checks cliflag.Checks
	checks.Duration("max-time", *maxTime, 0)
	checks.Duration("max-train-time", *maxTrainTime, 0)
	checks.Duration("max-cpu", *maxCPU, 0)
	checks.Duration("until-cpu", *untilCPU, 0)
	checks.Int("max-generations", *maxGen, 0, math.MaxInt)
	if err := checks.Err(); err != nil {
		return err
	}
	run, cfg, err := rundir.Settle(*runDir, rundir.ConfigSource{Path: *cfgPath, Game: *gameName, Sets: sets})
	if err != nil {
		return err
	}
	*runDir = string(run)
	if nf.printConf {
		return printServerConf(nf, *runDir, out)
	}
	// Before -serve's server or the run creates anything in the run
	// directory: a bad player spec or position-set section must not be
	// frozen with the run.
	if err := trainer.CheckConfig(cfg, true); err != nil {
		return err
	}
	// A run whose latest pointer is gone is refused (the trainer would
	// refuse it too) before a server or the dashboard starts on it.
	if _, err := run.Pointer(rundir.Latest); errors.Is(err, rundir.ErrNoCheckpoint) {
		g, err := cfg.LookupGame()
		if err != nil {
			return err
		}
		if err := run.Unpointed(rundir.Latest, g); err != nil {
			return err
		}
	}
	prog := progress.New()
	if progress.IsTerminal(out) {
		// A bar below the lines shows the current phase with its ETA.
		term := progress.NewTerminal(out, prog, 100)
		barCtx, stopBar := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { term.Run(barCtx, 250*time.Millisecond); close(done) }()
		defer func() { stopBar(); <-done }()
		out = term
	}
	live := &selfplay.Live{}
	opts := trainer.Options{
		Progress: prog, Live: live, Run: *runDir, Init: *initNet, Config: cfg, AcceptConfigChange: *accept, SelfPlay: *selfPlay,
		MaxTime: *maxTime, MaxTrainTime: *maxTrainTime, MaxCPU: *maxCPU, UntilCPU: *untilCPU, MaxGenerations: *maxGen, KeepCheckpoints: keep.n,
		Out: out, Gate: matches.ArenaGate(*runDir),
		NewForwarder: player.NewForwarder,
	}
	if nf.serve != "" || nf.url != "" {
		stop, err := serveRemote(ctx, nf, &opts, out)
		if err != nil {
			return err
		}
		defer stop()
	}
	stopProfile, err := profile.StartCPU(*cpuProfile)
	if err != nil {
		return err
	}
	defer func() {
		if perr := stopProfile(); perr != nil {
			err = errors.Join(err, perr)
		}
	}()
	fmt.Fprintf(out, "run %s (Ctrl-C saves and stops; the same command resumes)\n", *runDir)
	if *httpAddr != "" {
		stop, err := serveDashboard(ctx, *httpAddr, *runDir, *lionTB, prog, live, out)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := trainer.Run(ctx, opts); err != nil {
		return err
	}
	printSummary(out, *runDir, fs)
	return nil
}

// serveDashboard serves the run's dashboard beside the training; stop
// ends it. A port in use fails at once, before any training.
func serveDashboard(ctx context.Context, addr, run, lionTB string, prog *progress.Tracker, live *selfplay.Live, out io.Writer) (stop func(), err error) {
	var opts dashboard.PlayOptions
	if lionTB != "" {
		t, err := dashboard.OpenLionTablebase(lionTB)
		if err != nil {
			return nil, fmt.Errorf("-lion-tablebase: %w", err)
		}
		opts.LionTablebase = t // mapped for the process's life
	}
	ctx, cancel := context.WithCancel(ctx)
	ready, failed := make(chan string, 1), make(chan error, 1)
	srv := dashboard.New(run, prog, live, nil)
	srv.SetPlay(opts)
	go func() { failed <- dashboard.Serve(ctx, addr, srv.Handler(), func(a string) { ready <- a }) }()
	select {
	case a := <-ready:
		fmt.Fprintf(out, "dashboard on http://%s\n", a)
		return cancel, nil
	case err := <-failed:
		cancel()
		return nil, err
	}
}

// keepFlag is -keep-checkpoints: a count of at least 0, nil when not
// given (the config's).
type keepFlag struct{ n *int }

func (k *keepFlag) String() string {
	if k == nil || k.n == nil {
		return ""
	}
	return strconv.Itoa(*k.n)
}

func (k *keepFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("-keep-checkpoints %s: want a count of at least 0", v)
	}
	k.n = &n
	return nil
}
