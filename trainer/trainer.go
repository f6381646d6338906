// Package trainer is the training loop and its generation cycle: self-play
// -> train -> checkpoint -> gate -> promote, resumable from the run
// directory at any point. tabula train (cmd/tabula/train) wires it.
package trainer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tabula-zero/tabula/arena/measure"
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/internal/jsonl"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/metrics/charts"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/train"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/selfplay"
	"github.com/tabula-zero/tabula/trainer/matches"
)

// Options configure one invocation of the training loop.
type Options struct {
	Run string
	// Config is the configuration to use; nil uses the run's frozen one.
	Config             *configs.Config
	AcceptConfigChange bool
	// SelfPlay plays games in this process; off, the trainer waits for
	// shards that other workers write into RUN/replay.
	SelfPlay bool
	// MaxTime is this invocation's wall time, evaluations included (0:
	// no limit). Training stops early enough for the evaluation that
	// ends the run to finish within it, by the run's last evaluation's
	// duration (at most half of MaxTime); without one yet, that
	// evaluation is let finish past it.
	MaxTime time.Duration
	// MaxTrainTime stops the invocation after this much more training
	// time (the run's train_clock_s: evaluations do not count), the
	// learning benchmark's budget (0: no limit).
	MaxTrainTime time.Duration
	// MaxCPU stops the invocation after this much CPU time of training
	// (the process's, over the clock's training segments: train_cpu_s),
	// so that a budget means the same work on a shared machine (0: no
	// limit).
	MaxCPU time.Duration
	// UntilCPU stops the run once its training CPU time since it began
	// (train_cpu_s, the CPU-hours its curves are plotted against)
	// reaches this total, so that the same command resumes a stopped
	// run to the same budget (0: no limit).
	UntilCPU       time.Duration
	MaxGenerations int // stop after this many new generations (0: no limit)
	// KeepCheckpoints, when set, replaces the config's
	// training.keep_checkpoints for this invocation: the newest
	// checkpoints kept besides the best and the evaluated ones (0: every
	// checkpoint).
	KeepCheckpoints *int
	// Init, when set, names the network (a checkpoint file, a run
	// directory or a shipped model's name) a new run starts from instead
	// of a fresh one: its weights become generation 0, step and optimizer
	// start afresh. A run that exists already must have started from the
	// same network (RUN/init records it).
	Init string
	Out  io.Writer // progress lines
	Log  *slog.Logger
	// Gate decides promotions; nil promotes every candidate.
	Gate matches.Gate
	// NewForwarder builds the self-play network evaluator from parameters
	// (net/infer in production).
	NewForwarder func(p *net.Params, maxBatch int, precision string) (mcts.Forwarder, error)
	// Publisher, when set, hands the frozen config and every best network
	// to workers on other machines (natsrun); Remote reports them.
	Publisher Publisher
	Remote    WorkerStats
	// Live, when set, shows the game the in-process worker is playing
	// (the dashboard); watched games are logged to RUN/selfplay-games.jsonl
	// either way.
	Live *selfplay.Live
	// Progress, when set, follows the phases (self-play samples, training
	// steps, gate and evaluation games) for a terminal bar or a dashboard.
	Progress *progress.Tracker

	// noShardsWarning replaces noShardsWarning in tests.
	noShardsWarning time.Duration
}

// WorkerStats reports the remote workers (remote.Tally).
type WorkerStats interface {
	Workers() []metrics.WorkerStat
}

// Publisher hands a run to remote workers: its sealed config, and each
// network as it becomes the best (its checkpoint file's name and bytes).
type Publisher interface {
	PublishConfig(ctx context.Context, sealed []byte) error
	PublishNetwork(ctx context.Context, name string, generation int, ckpt []byte) error
}

// Loop is a training run in progress.
type Loop struct {
	opts  Options
	cfg   *configs.Config
	game  game.Game
	rules game.Options
	log   *slog.Logger
	out   io.Writer
	dir   rundir.Dir

	model   *train.Model
	trainer *train.Trainer
	rng     *rand.Rand
	pcg     *rand.PCG // rng's source, saved in checkpoints
	gen     int       // generation of the latest checkpoint
	// savedStep is the optimiser step of the latest checkpoint.
	savedStep int64
	best      *net.Params
	bestGen   int
	bestName  string // the best network's checkpoint file name
	// evaluated names the checkpoints of the networks the run's
	// evaluations measured, which retention keeps; keepLast is how many
	// of the newest checkpoints it keeps besides (0: every one).
	evaluated map[string]bool
	keepLast  int
	// selfPlayBase is the in-process self-play of the run's earlier
	// invocations, which the worker's own counts (this invocation's)
	// add to.
	selfPlayBase selfPlayTotals
	window       *data.Window
	worker       *selfplay.Worker
	// unused counts samples that reached the window since the last
	// training phase (the sample ratio's measure of fresh data).
	unused int

	metrics *jsonl.Log
	games   *jsonl.Log      // sampled self-play games
	history *charts.History // for plots
	// clock is the training time; startClock and startCPU its readings
	// when this invocation began, lastEval at the last evaluation (-1:
	// none yet), which measured the network of step lastEvalStep.
	clock      clock
	startClock time.Duration
	startCPU   time.Duration
	// wallStart is when this invocation began, for -max-time; evalCost
	// (nanoseconds, atomic: the limit's goroutine reads it) the wall time
	// of the run's last evaluation, which the limit keeps back for the
	// final one.
	wallStart time.Time
	evalCost  atomic.Int64
	// cpuLimit is the train_cpu_s at which -max-cpu or -until-cpu stops
	// this invocation, the earlier of the two (0: neither is set).
	cpuLimit     time.Duration
	lastEval     time.Duration
	lastEvalStep int64
	// startStep is the step this invocation began at; scheduleChecked
	// that checkSchedule has looked at the cosine's end.
	startStep       int64
	scheduleChecked bool
	// publishPending: the Publisher lacks the current best network.
	publishPending bool
	// saidUngated: a generation line has said why it was promoted
	// without gate games (once an invocation).
	saidUngated bool
	evaluator   *matches.Evaluator // plays the evaluation section
}

// Run executes the training loop until a limit or ctx stops it; on
// cancellation it saves a checkpoint first. It returns nil when stopped
// by a limit or by ctx.
func Run(ctx context.Context, opts Options) error {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(opts.Out, nil))
	}
	// A given config's players are checked before the run directory
	// exists: a bad spec leaves nothing behind, and the config is never
	// frozen with it.
	if opts.Config != nil {
		if err := CheckConfig(opts.Config, opts.Gate != nil); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(opts.Run, 0o755); err != nil {
		return fmt.Errorf("trainer: %w", err)
	}
	release, err := rundir.Dir(opts.Run).Lock()
	if err != nil {
		return err
	}
	defer release()
	l, err := open(opts)
	if err != nil {
		return err
	}
	l.publishPending = true
	err = l.loop(ctx)
	// A promotion whose publishing the stop cut short reaches the workers
	// now rather than at the next start.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	l.publish(pctx)
	cancel()
	// Close returns the first failed metrics write too, which loop may
	// have returned already.
	if cerr := l.metrics.Close(); err == nil {
		err = cerr
	}
	if cerr := l.games.Close(); err == nil {
		err = cerr
	}
	return err
}

// CheckConfig checks what parsing a config alone cannot: its position-set
// sections against the registered measures (measure.CheckConfig) and the
// players of its matches (matches.CheckPlayers), the evaluation's and the
// gate's when the run is gated.
func CheckConfig(cfg *configs.Config, gated bool) error {
	if err := measure.CheckConfig(cfg); err != nil {
		return err
	}
	var gating configs.Gating
	if gated {
		gating = cfg.Gating
	}
	return matches.CheckPlayers(cfg.Game, cfg.Search, gating, cfg.Evaluation, func() (*net.Params, error) { return rundir.FreshParams(cfg) })
}

func open(opts Options) (*Loop, error) {
	// A given config was checked in Run before it is frozen, so that a
	// corrected one starts the run as if the bad one had never been
	// given; without one, the frozen config is checked.
	dir := rundir.Dir(opts.Run)
	cfg, err := dir.Freeze(opts.Config, opts.AcceptConfigChange)
	if err != nil {
		return nil, err
	}
	if opts.Config == nil {
		if err := CheckConfig(cfg, opts.Gate != nil); err != nil {
			return nil, err
		}
	}
	if len(cfg.Retired) > 0 {
		// A run frozen before a switch was retired spells out its key at
		// the off value: it resumes unchanged, and is told why the key
		// no longer means anything.
		fmt.Fprintf(opts.Out, "config: retired keys at their off values ignored: %s (docs/retired.md)\n", strings.Join(cfg.Retired, ", "))
	}
	g, err := cfg.LookupGame()
	if err != nil {
		return nil, err
	}
	rules, err := g.Resolve(game.Options(cfg.Rules))
	if err != nil {
		return nil, err
	}
	l := &Loop{opts: opts, cfg: cfg, game: g, rules: rules, log: opts.Log, out: opts.Out, dir: dir,
		evaluator: matches.NewEvaluator(cfg.Evaluation, cfg.Search, cfg.Seed, g, rules, dir)}
	if err := os.MkdirAll(dir.Replay(), 0o755); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	l.removeStaleTemps()
	if l.metrics, err = jsonl.Open(dir.Metrics()); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if l.games, err = jsonl.Open(dir.Games()); err != nil {
		l.metrics.Close()
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if err := l.restore(); err != nil {
		l.metrics.Close()
		l.games.Close()
		return nil, err
	}
	l.keepLast = cfg.Training.KeepCheckpoints
	if opts.KeepCheckpoints != nil {
		l.keepLast = *opts.KeepCheckpoints
	}
	l.readHistory()
	l.startClock, l.startCPU = l.clock.base, l.clock.cpuBase
	return l, nil
}

// selfPlayTotals are in-process self-play's counts (metrics generation
// lines' selfplay_* fields).
type selfPlayTotals struct{ games, samples, plies, draws, evals int64 }

func totalsOf(m metrics.Metric) selfPlayTotals {
	return selfPlayTotals{m.SelfPlayGames, m.SelfPlaySamples, m.SelfPlayPlies, m.SelfPlayDraws, m.SelfPlayEvals}
}

// into sets m's selfplay_* fields.
func (a selfPlayTotals) into(m *metrics.Metric) {
	m.SelfPlayGames, m.SelfPlaySamples, m.SelfPlayPlies, m.SelfPlayDraws, m.SelfPlayEvals = a.games, a.samples, a.plies, a.draws, a.evals
}

func (a selfPlayTotals) plus(b selfPlayTotals) selfPlayTotals {
	return selfPlayTotals{a.games + b.games, a.samples + b.samples, a.plies + b.plies, a.draws + b.draws, a.evals + b.evals}
}

// readHistory reads what the run's metrics say of where it stands: the
// charts' history, the training clock, the last evaluation and what it
// cost, the checkpoints the evaluations measured, and the self-play so
// far.
func (l *Loop) readHistory() {
	l.history = &charts.History{}
	l.lastEval, l.lastEvalStep = -1, -1
	l.evaluated = map[string]bool{}
	// An evaluation line of an earlier build names the generation it
	// measured, not the file: the promoted checkpoint of that generation.
	promoted := map[int]string{0: checkpoints.Name(0, 0)}
	var unnamed []int
	// Generation and stop lines carry the run's self-play totals since a
	// start line first came before them; earlier generation lines counted
	// each invocation from zero, so there a drop starts another
	// invocation's count (earlier stop lines carry none).
	var totals, legacySum, legacyLast selfPlayTotals
	started, haveTotals := false, false
	metrics.Read(l.dir.Metrics(), func(m metrics.Metric) {
		l.history.Add(m)
		// A killed invocation loses the time since its last metrics line.
		clock, cpu := seconds(m.TrainClock), seconds(m.TrainCPU)
		l.clock.base = max(l.clock.base, clock)
		l.clock.cpuBase = max(l.clock.cpuBase, cpu)
		switch m.Kind {
		case "start":
			started = true
		case "generation", "stop":
			if m.Kind == "generation" && m.Promoted && m.Checkpoint != "" {
				promoted[m.Generation] = m.Checkpoint
			}
			switch t := totalsOf(m); {
			case t.games == 0: // no in-process self-play
			case started:
				totals, haveTotals = t, true
			default:
				if t.games < legacyLast.games {
					legacySum = legacySum.plus(legacyLast)
				}
				legacyLast = t
			}
		case "evaluation":
			l.lastEval, l.lastEvalStep = clock, m.Step
			l.evalCost.Store(int64(seconds(m.EvalSeconds)))
			if m.Checkpoint != "" {
				l.evaluated[m.Checkpoint] = true
			} else {
				unnamed = append(unnamed, m.Best)
			}
		}
	})
	for _, g := range unnamed {
		if name, ok := promoted[g]; ok {
			l.evaluated[name] = true
		}
	}
	l.selfPlayBase = legacySum.plus(legacyLast)
	if haveTotals {
		l.selfPlayBase = totals
	}
}

// staleShardAge is how old a temporary shard file in RUN/replay must be
// to count as left by a killed write: workers in other processes write
// there while the trainer runs, each shard in well under a second.
const staleShardAge = 10 * time.Minute

// removeStaleTemps deletes the temporary files of writes killed midway.
// The trainer holds the run's lock, so its own directories have no write
// under way; the replay directory is shared with other workers.
func (l *Loop) removeStaleTemps() {
	for dir, age := range map[string]time.Duration{
		string(l.dir): 0, l.dir.Checkpoints(): 0, l.dir.Plots(): 0, l.dir.Replay(): staleShardAge,
	} {
		n, err := atomicfile.RemoveStale(dir, age)
		if err != nil {
			l.log.Warn("temporary files", "dir", dir, "err", err)
		} else if n > 0 {
			l.log.Info("removed temporary files of interrupted writes", "dir", dir, "files", n)
		}
	}
}

// pointer resolves one of the run's pointers, repairing a damaged one
// that still records which checkpoint it meant.
func (l *Loop) pointer(which string) (string, error) {
	path, err := l.dir.Pointer(which)
	if !errors.Is(err, rundir.ErrDamagedPointer) {
		return path, err
	}
	name, rerr := l.dir.RepairPointer(which)
	if rerr != nil {
		if newest, _ := l.dir.NewestVerified(l.game); newest != "" {
			return "", fmt.Errorf("%w (repair: %v; the newest checkpoint that loads is %s)", err, rerr, newest)
		}
		return "", fmt.Errorf("%w (repair: %v)", err, rerr)
	}
	l.log.Warn("repaired a damaged pointer", "pointer", which, "checkpoint", name, "damage", err)
	return l.dir.Pointer(which)
}

// restore loads the latest checkpoint, or creates generation 0.
func (l *Loop) restore() error {
	var c *checkpoints.Checkpoint
	latest, err := l.pointer(rundir.Latest)
	switch {
	case errors.Is(err, rundir.ErrNoCheckpoint):
		// A new run, unless checkpoints are there that the pointer
		// would have named: those are refused, never overwritten.
		if err := l.dir.Unpointed(rundir.Latest, l.game); err != nil {
			return err
		}
		p, from, err := l.initialParams()
		if err != nil {
			return err
		}
		c = &checkpoints.Checkpoint{Params: p, Created: time.Now().UTC()}
		name, err := l.dir.Create(c)
		if err != nil {
			return err
		}
		l.log.Info("new run", "run", l.dir, "game", l.cfg.Game, "checkpoint", name, "from", from)
	case err != nil:
		return err
	default:
		if l.opts.Init != "" {
			if err := l.dir.CheckInit(l.opts.Init); err != nil {
				return err
			}
		}
		if c, err = checkpoints.LoadFor(latest, l.game.Name, l.game.Encoder.Version()); err != nil {
			return err
		}
		l.log.Info("resuming", "run", l.dir, "checkpoint", filepath.Base(latest), "generation", c.Generation, "step", c.Step)
		if names, _ := l.dir.List(); len(names) > 0 && names[len(names)-1] > filepath.Base(latest) {
			l.log.Warn("checkpoints newer than latest were never committed (a stop during their save) and will be replaced",
				"newest", names[len(names)-1])
		}
	}
	want, err := configs.NetSpec(l.cfg)
	if err != nil {
		return err
	}
	if c.Params.Spec != want {
		return fmt.Errorf("trainer: the checkpoint's network %+v differs from the config's %+v", c.Params.Spec, want)
	}
	l.gen, l.savedStep = c.Generation, c.Step
	if l.model, err = train.NewModel(c.Params, l.cfg.Training.BatchSize, l.cfg.Training.ModelOptions()...); err != nil {
		return err
	}
	if l.trainer, err = l.model.NewTrainer(trainConfig(l.cfg.Training)); err != nil {
		return err
	}
	if len(c.Optimizer) > 0 || c.OptimizerStep > 0 {
		if err := l.trainer.Restore(train.State{Step: c.OptimizerStep, Momentum: c.Optimizer}); err != nil {
			return err
		}
	}
	pcg := rand.NewPCG(l.cfg.Seed, 0x747261696e)
	if len(c.RNG) > 0 {
		if err := pcg.UnmarshalBinary(c.RNG); err != nil {
			return fmt.Errorf("trainer: checkpoint RNG state: %w", err)
		}
	}
	l.rng = rand.New(pcg)
	l.pcg = pcg
	best, err := l.pointer(rundir.Best)
	if errors.Is(err, rundir.ErrNoCheckpoint) && c.Generation == 0 && c.Step == 0 {
		// A run created before best was written first: generation 0 is
		// the only possible best.
		if err = l.dir.SetPointer(rundir.Best, filepath.Base(latest)); err == nil {
			l.log.Warn("repaired the missing best pointer", "checkpoint", filepath.Base(latest))
			best = latest
		}
	}
	if errors.Is(err, rundir.ErrNoCheckpoint) {
		if uerr := l.dir.Unpointed(rundir.Best, l.game); uerr != nil {
			err = uerr
		}
	}
	if err != nil {
		return err
	}
	bc, err := checkpoints.LoadFor(best, l.game.Name, l.game.Encoder.Version())
	if err != nil {
		return err
	}
	l.best, l.bestGen, l.bestName = bc.Params, bc.Generation, filepath.Base(best)
	if l.window, err = data.NewWindow(l.dir.Replay(), l.game, l.rules, l.cfg.Replay.Window); err != nil {
		return err
	}
	l.window.OnCorrupt = func(path string, err error) { l.log.Warn("skipping shard", "path", path, "err", err) }
	l.window.RootValueWeight = float32(l.cfg.Training.ValueRootWeight)
	n, err := l.window.Refresh()
	if err != nil {
		return err
	}
	if c.Step == 0 {
		// A resumed run has trained on the window already: only a new
		// run counts it as fresh, so sample_ratio holds after a restart.
		l.unused = n
	}
	if l.opts.SelfPlay {
		fwd, err := l.opts.NewForwarder(l.best, l.cfg.SelfPlay.BatchSize, l.cfg.SelfPlay.Precision)
		if err != nil {
			return err
		}
		live := cmp.Or(l.opts.Live, &selfplay.Live{})
		live.OnEnd = func(g selfplay.LiveGame) { l.games.Append(g) } // a failed write shows at Close
		setup, err := selfplay.ConfigSetup(l.cfg)
		if err != nil {
			return err
		}
		l.worker, err = selfplay.New(setup, selfplay.Options{ReplayDir: l.dir.Replay(), Worker: "trainer", Live: live}, fwd, l.bestGen)
		if err != nil {
			return err
		}
	}
	return nil
}

// initialParams is a new run's generation-0 network: the config's fresh
// one, or Options.Init's weights, which RUN/init then records.
func (l *Loop) initialParams() (*net.Params, string, error) {
	if l.opts.Init == "" {
		p, err := rundir.FreshParams(l.cfg)
		return p, "fresh", err
	}
	c, file, err := rundir.LoadNetwork(l.opts.Init, l.game)
	if err != nil {
		return nil, "", fmt.Errorf("trainer: -init: %w", err)
	}
	want, err := configs.NetSpec(l.cfg)
	if err != nil {
		return nil, "", err
	}
	p := c.Params
	if p.Spec != want {
		// A config with more blocks or filters grows the network into it,
		// computing the same function (net.Grow); any other difference
		// is refused.
		if p, err = net.Grow(c.Params, want, l.cfg.Seed); err != nil {
			return nil, "", fmt.Errorf("trainer: -init: %s's network %+v differs from the config's %+v: %w", file, c.Params.Spec, want, err)
		}
		file = fmt.Sprintf("%s grown from %d blocks of %d filters", file, c.Params.Spec.Blocks, c.Params.Spec.Filters)
	}
	if err := l.dir.RecordInit(l.opts.Init); err != nil {
		return nil, "", err
	}
	return p, file, nil
}

// publish hands the frozen config and the best network to the
// Publisher, if there is one and they changed since the last success. A
// failure (the server away) is logged and retried after the next
// generation: remote workers play on with the network they have.
func (l *Loop) publish(ctx context.Context) {
	if l.opts.Publisher == nil || !l.publishPending {
		return
	}
	if err := l.publishOnce(ctx); err != nil {
		l.log.Warn("publishing to workers failed; retrying after the next generation", "err", err)
		return
	}
	l.publishPending = false
}

func (l *Loop) publishOnce(ctx context.Context) error {
	pub := l.opts.Publisher
	cfg, err := configs.ReadFile(l.dir.Config())
	if err != nil {
		return fmt.Errorf("trainer: publish config: %w", err)
	}
	if err := pub.PublishConfig(ctx, cfg); err != nil {
		return err
	}
	path, err := l.pointer(rundir.Best)
	if err != nil {
		return err
	}
	b, err := inputfile.ReadFile(path, "checkpoint", checkpoints.MaxFileBytes)
	if err != nil {
		return fmt.Errorf("trainer: publish network: %w", err)
	}
	return pub.PublishNetwork(ctx, filepath.Base(path), l.bestGen, b)
}

// seconds is a metrics line's seconds as a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
