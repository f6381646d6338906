package trainer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/metrics/charts"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/train"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/trainer/matches"
)

// loop runs generations until a limit or cancellation.
func (l *Loop) loop(ctx context.Context) error {
	l.clock.start()
	l.wallStart = time.Now() // after the clock: the wait for workers counts on both
	l.startStep = l.trainer.State().Step
	l.cpuLimit = cpuLimit(l.clock.cpu(), l.opts.MaxCPU, l.opts.UntilCPU)
	if u := l.opts.UntilCPU; u > 0 && l.clock.cpu() >= u {
		fmt.Fprintf(l.out, "the run has trained %s of CPU time, -until-cpu %s: nothing to do (raise -until-cpu to go on)\n",
			l.clock.cpu().Round(time.Second), u)
		return nil
	}
	if err := l.record(metrics.Metric{Kind: "start", Time: time.Now().UTC(), Generation: l.gen, Step: l.trainer.State().Step}); err != nil {
		return err
	}
	parent := ctx
	if l.opts.MaxTime > 0 || l.opts.MaxTrainTime > 0 || l.cpuLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go l.stopAfter(ctx, cancel, l.clock.elapsed()+l.opts.MaxTrainTime, l.cpuLimit)
	}
	for done := 0; l.opts.MaxGenerations == 0 || done < l.opts.MaxGenerations; done++ {
		l.publish(ctx)
		var err error
		if ctx.Err() == nil && l.evaluationDue() {
			// A limit that passes meanwhile lets the evaluation finish
			// (only Ctrl-C cuts it): it measures the network the run
			// stops with, so no final evaluation follows it. Past the
			// limit, the final evaluation is the one that comes.
			err = l.evaluate(parent, false)
		}
		if err == nil && ctx.Err() == nil {
			err = l.generation(ctx)
		}
		if ctx.Err() != nil {
			// Stopped (Ctrl-C or the time limit): keep the training done
			// so far (a metrics write that failed on the way is reported
			// when Run closes the log).
			if err := l.saveInterrupted(); err != nil {
				return err
			}
			if err := l.recordStop(); err != nil || parent.Err() != nil {
				return err
			}
			return l.finalEvaluation(parent)
		}
		if err != nil {
			return err
		}
	}
	if err := l.recordStop(); err != nil {
		return err
	}
	return l.finalEvaluation(parent)
}

// recordStop writes the training clock where the run stops: a resumed
// run reads its clock from the metrics, and time spent after the last
// line (a gather the limit cut short) would otherwise count again; and
// the self-play totals, which the next start goes on from.
func (l *Loop) recordStop() error {
	m := metrics.Metric{Kind: "stop", Time: time.Now().UTC(), Generation: l.gen, Step: l.trainer.State().Step}
	if l.worker != nil {
		l.selfPlay().into(&m) // with the games that ended after the last generation line
	}
	return l.record(m)
}

// cpuLimit is the training CPU time (train_cpu_s) at which an invocation
// that starts at cpu stops: maxCPU more or untilCPU in all, whichever
// comes first (0: no limit).
func cpuLimit(cpu, maxCPU, untilCPU time.Duration) time.Duration {
	var limit time.Duration
	if maxCPU > 0 {
		limit = cpu + maxCPU
	}
	if untilCPU > 0 && (limit == 0 || untilCPU < limit) {
		limit = untilCPU
	}
	return limit
}

// stopAfter cancels the run's training once this invocation's wall time
// reaches -max-time less what the final evaluation is expected to take,
// the training clock trainLimit (-max-train-time) or its CPU time
// cpuLimit (0: none).
func (l *Loop) stopAfter(ctx context.Context, cancel context.CancelFunc, trainLimit, cpuLimit time.Duration) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if l.opts.MaxTime > 0 && time.Since(l.wallStart) >= l.opts.MaxTime-l.evalReserve() ||
				l.opts.MaxTrainTime > 0 && l.clock.elapsed() >= trainLimit || cpuLimit > 0 && l.clock.cpu() >= cpuLimit {
				cancel()
				return
			}
		}
	}
}

// evalReserve is the wall time -max-time keeps back for the evaluation
// that ends the run: what the run's last one took, at most half the
// budget (a budget shorter than two evaluations still trains); none
// before the run's first, which is then let finish past the budget.
func (l *Loop) evalReserve() time.Duration {
	if !l.cfg.Evaluation.Enabled() {
		return 0
	}
	return min(time.Duration(l.evalCost.Load()), l.opts.MaxTime/2)
}

// finalEvaluation measures the run where a limit ended it, unless it
// has not trained since the last evaluation.
func (l *Loop) finalEvaluation(ctx context.Context) error {
	l.clock.stop()
	if !l.cfg.Evaluation.Enabled() || l.trainer.State().Step == l.lastEvalStep {
		return nil
	}
	err := l.evaluate(ctx, true)
	if ctx.Err() != nil {
		return nil // Ctrl-C during the last evaluation: the training is saved
	}
	return err
}

// generation is one cycle: gather samples, train, checkpoint, gate.
func (l *Loop) generation(ctx context.Context) error {
	t := l.cfg.Training
	need := l.cfg.Replay.MinSamples - l.window.Len()
	if t.SampleRatio > 0 {
		need = max(need, int(float64(t.StepsPerGeneration*t.BatchSize)/t.SampleRatio)-l.unused)
	}
	t0 := time.Now()
	if err := l.gather(ctx, need); err != nil {
		return err
	}
	l.unused = 0
	t1 := time.Now()
	if err := l.train(ctx, t.StepsPerGeneration); err != nil {
		return err
	}
	t2 := time.Now()
	cand := l.model.Params()
	l.gen++
	name, err := l.save(cand, l.gen)
	if err != nil {
		return err
	}
	res := matches.GateResult{Promote: true}
	t3 := time.Now()
	switch {
	case l.opts.Gate == nil:
	case l.gen < l.cfg.SelfPlay.ABZero.TeacherGenerations:
		// Self-play's teacher does not use the network, so a gate would
		// spend games on a choice nothing depends on yet: the newest
		// candidate, the best imitation so far, is promoted.
		res = matches.GateResult{Promote: true, Teacher: true}
	default:
		games := 0
		for _, gm := range l.cfg.Gating.Matches {
			games += gm.Games
		}
		l.opts.Progress.Begin("gate", "games", int64(games))
		res, err = l.opts.Gate(progress.WithTracker(ctx, l.opts.Progress), l.cfg, cand, l.gen, l.best, l.bestGen)
		l.opts.Progress.End()
		if err != nil {
			return err
		}
	}
	t4 := time.Now()
	if res.Promote {
		if err := l.dir.SetPointer(rundir.Best, name); err != nil {
			return err
		}
		l.best, l.bestGen, l.bestName = cand, l.gen, name
		l.publishPending = true
		l.publish(ctx)
		if l.worker != nil {
			fwd, err := l.opts.NewForwarder(cand, l.cfg.SelfPlay.BatchSize, l.cfg.SelfPlay.Precision)
			if err != nil {
				return err
			}
			l.worker.SetNetwork(fwd, l.gen)
		}
	}
	gate := l.gateText(res)
	m := metrics.Metric{Kind: "generation", Time: time.Now().UTC(), Generation: l.gen, Step: l.trainer.State().Step,
		Checkpoint: name, Promoted: res.Promote, Best: l.bestGen, Matches: res.Matches, Window: l.window.Len(),
		GatherSeconds: t1.Sub(t0).Seconds(), TrainSeconds: t2.Sub(t1).Seconds(), GateSeconds: t4.Sub(t3).Seconds()}
	if l.worker != nil {
		l.selfPlay().into(&m) // the run's totals: a resumed run goes on counting
	}
	if l.opts.Remote != nil {
		m.Workers = l.opts.Remote.Workers()
	}
	if err := l.record(m); err != nil {
		return err
	}
	fmt.Fprintf(l.out, "generation %d %s%s\n", l.gen, gate, workersText(m.Workers, m.Time))
	l.prune()
	l.checkSchedule()
	return l.plot()
}

// selfPlay is the run's in-process self-play so far: the earlier
// invocations' and this one's.
func (l *Loop) selfPlay() selfPlayTotals {
	st := l.worker.Stats()
	return l.selfPlayBase.plus(selfPlayTotals{st.Games, st.Samples, st.Plies, st.Draws, l.worker.BatchStats().Positions})
}

// prune deletes the checkpoints the run no longer needs
// (rundir.Dir.Prune): all but the best, the evaluated ones and the newest
// keepLast. A failure costs disk space only, so it is logged, not fatal.
func (l *Loop) prune() {
	if l.keepLast < 1 {
		return
	}
	removed, err := l.dir.Prune(l.evaluated, l.keepLast)
	if err != nil {
		l.log.Warn("old checkpoints kept", "err", err)
		return
	}
	if len(removed) > 0 {
		l.log.Debug("deleted old checkpoints", "files", removed)
	}
}

// gather waits until need new samples are in the replay window: from the
// in-process worker, or from other workers' shards.
func (l *Loop) gather(ctx context.Context, need int) error {
	if need <= 0 {
		n, err := l.window.Refresh()
		l.unused += n
		return err
	}
	prog := l.opts.Progress
	defer prog.End()
	if l.worker != nil {
		prog.Begin("self-play", "samples", int64(need))
		// Samples of finished games count before their shard is written
		// (counting written shards gathered whole shards: two of 2,000
		// where 3,200 were asked for); Run flushes the rest on return.
		base := l.worker.Stats().Samples
		// Games in flight then wait for the next generation's self-play:
		// cancelling would throw their moves away and keep only the games
		// short enough to end inside one gather.
		l.worker.PauseAfter(int64(need))
		spCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-spCtx.Done():
					return
				case <-tick.C:
					prog.Set(l.worker.Stats().Samples - base)
				}
			}
		}()
		start := time.Now()
		err := l.worker.Run(spCtx, 0, 0)
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		st := l.worker.Stats()
		prog.Set(st.Samples - base)
		fmt.Fprintf(l.out, "self-play: %d samples in %.0fs (%d games in this run so far)\n", st.Samples-base, time.Since(start).Seconds(), l.selfPlay().games)
		n, err := l.window.Refresh()
		l.unused += n
		return err
	}
	// Shards come from other workers: poll the replay directory.
	prog.Begin("waiting for workers", "samples", int64(need))
	warnEvery := cmp.Or(l.opts.noShardsWarning, noShardsWarning)
	poll := min(2*time.Second, warnEvery)
	got, said := 0, false
	// last is when samples last came; quiet the next silence to warn of.
	last, quiet := time.Now(), warnEvery
	for got < need {
		n, err := l.window.Refresh()
		if err != nil {
			return err
		}
		got += n
		l.unused += n
		prog.Set(int64(got))
		if got >= need {
			break
		}
		if n > 0 {
			last, quiet = time.Now(), warnEvery
		}
		if !said {
			// The wait is otherwise silent: say what it waits for and
			// that the time limit's clock runs meanwhile.
			clock := ""
			switch {
			case l.opts.MaxTime > 0:
				clock = fmt.Sprintf("; the wait counts toward -max-time (%s left)", l.timeLeft())
			case l.opts.MaxTrainTime > 0:
				clock = fmt.Sprintf("; the wait counts toward -max-train-time (%s left)", l.trainTimeLeft())
			}
			fmt.Fprintf(l.out, "waiting for %d samples from other workers' shards in %s (this process plays no games)%s\n",
				need-got, l.dir.Replay(), clock)
			said = true
		}
		if time.Since(last) >= quiet {
			l.log.Warn(fmt.Sprintf("no new shards for %s: are workers running (tabula selfplay into the replay directory, or through -serve/-nats)? "+
				"A slow worker can take minutes to fill a shard of selfplay.shard_samples", quiet),
				"replay", l.dir.Replay(), "samples_needed", need-got)
			quiet += warnEvery
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
	return nil
}

// noShardsWarning is how long a trainer without self-play waits for new
// shards before it warns (and again each time as long after).
const noShardsWarning = time.Minute

// newTrainingBatch returns the buffers of one training batch, with a
// legal mask with training.legal_mask and win/draw/loss targets for a
// network with the WDL head.
func newTrainingBatch(t configs.Training, enc game.Encoder, wdl bool) *train.Batch {
	c, h, w := enc.Shape()
	n, a := t.BatchSize, enc.ActionSize()
	b := &train.Batch{Planes: make([]float32, n*c*h*w), Policy: make([]float32, n*a), Value: make([]float32, n), N: n}
	if t.LegalMask {
		b.Legal = make([]bool, n*a)
	}
	if wdl {
		b.WDL = make([]float32, 3*n)
	}
	return b
}

// train takes steps optimisation steps on batches from the window.
func (l *Loop) train(ctx context.Context, steps int) error {
	n := l.cfg.Training.BatchSize
	wdl := l.model.Spec().WDLHead()
	feed := newBatchFeed(l.window, l.rng, steps, n, func() *train.Batch { return newTrainingBatch(l.cfg.Training, l.game.Encoder, wdl) })
	defer feed.close()
	var acc train.Stats
	k := 0
	t0, wait0 := time.Now(), time.Duration(0)
	l.opts.Progress.Begin("training", "steps", int64(steps))
	defer l.opts.Progress.End()
	report := func() error {
		if k == 0 {
			return nil
		}
		f := 1 / float64(k)
		m := metrics.Metric{Kind: "train", Time: time.Now().UTC(), Generation: l.gen, Step: acc.Step,
			Loss: acc.Loss * f, ValueLoss: acc.ValueLoss * f, PolicyLoss: acc.PolicyLoss * f, L2: acc.L2 * f,
			GradNorm: acc.GradNorm * f, LR: acc.LR, Window: l.window.Len(),
			SamplesPerSec:  float64(k*n) / time.Since(t0).Seconds(),
			BatchWaitShare: (feed.wait - wait0).Seconds() / time.Since(t0).Seconds()}
		if err := l.record(m); err != nil {
			return err
		}
		// Under 100 columns (the rest is in the metrics); the gate's result
		// is on the generation line.
		fmt.Fprintf(l.out, "gen %d step %d | loss %.3f v %.3f p %.3f | |g| %.2f | %.0f samples/s%s\n",
			l.gen+1, m.Step, m.Loss, m.ValueLoss, m.PolicyLoss, m.GradNorm, m.SamplesPerSec, l.eta())
		acc, k, t0, wait0 = train.Stats{}, 0, time.Now(), feed.wait
		return nil
	}
	for s := 0; s < steps; s++ {
		if ctx.Err() != nil {
			return errors.Join(ctx.Err(), report())
		}
		b, err := feed.next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return errors.Join(ctx.Err(), report())
			}
			return err
		}
		st, err := l.trainer.Step(*b)
		feed.release(b)
		if err != nil {
			return err
		}
		acc.Loss += st.Loss
		acc.ValueLoss += st.ValueLoss
		acc.PolicyLoss += st.PolicyLoss
		acc.L2 += st.L2
		acc.GradNorm += st.GradNorm
		acc.LR, acc.Step = st.LR, st.Step
		k++
		l.opts.Progress.Set(int64(s + 1))
		if k == 50 {
			if err := report(); err != nil {
				return err
			}
		}
	}
	return report()
}

func (l *Loop) eta() string {
	var s string
	if l.opts.MaxTime > 0 {
		s = fmt.Sprintf(" | %s left", l.timeLeft())
	}
	if l.opts.MaxTrainTime > 0 {
		s += fmt.Sprintf(" | %s training left", l.trainTimeLeft())
	}
	if l.cpuLimit > 0 {
		s += fmt.Sprintf(" | %s CPU left", l.cpuLeft())
	}
	return s
}

// cpuLeft is the training CPU time -max-cpu or -until-cpu leaves this
// invocation.
func (l *Loop) cpuLeft() time.Duration {
	return max(l.cpuLimit-l.clock.cpu(), 0).Round(time.Second)
}

// timeLeft is the wall time -max-time leaves this invocation, the final
// evaluation's included: when the run will have ended.
func (l *Loop) timeLeft() time.Duration {
	return max(l.opts.MaxTime-time.Since(l.wallStart), 0).Round(time.Second)
}

// trainTimeLeft is the training time -max-train-time leaves this
// invocation.
func (l *Loop) trainTimeLeft() time.Duration {
	return max(l.opts.MaxTrainTime-(l.clock.elapsed()-l.startClock), 0).Round(time.Second)
}

// save writes a checkpoint of the model and training state and points
// latest at it.
func (l *Loop) save(p *net.Params, gen int) (string, error) {
	st := l.trainer.State()
	rng, err := l.pcg.MarshalBinary()
	if err != nil {
		return "", err
	}
	c := &checkpoints.Checkpoint{Step: st.Step, Generation: gen, Params: p, OptimizerStep: st.Step,
		Optimizer: st.Momentum, RNG: rng, Created: time.Now().UTC()}
	name, err := l.dir.Save(c)
	if err == nil {
		l.savedStep = st.Step
	}
	return name, err
}

// saveInterrupted checkpoints the current (part-trained) generation on a
// clean stop, so no training is lost.
func (l *Loop) saveInterrupted() error {
	if l.trainer.State().Step == l.savedStep {
		// Stopped before a step of the new generation: the latest
		// checkpoint holds this state already (writing it again under
		// the same name would change a file the best pointer checks).
		return nil
	}
	name, err := l.save(l.model.Params(), l.gen)
	if err != nil {
		return err
	}
	fmt.Fprintf(l.out, "stopped: saved %s\n", l.dir.Checkpoint(name))
	l.prune()
	return nil
}

// record appends m to RUN/metrics.jsonl; a failed write (a full disk)
// stops the run rather than losing the record silently.
func (l *Loop) record(m metrics.Metric) error {
	if m.TrainClock == 0 {
		m.TrainClock = l.clock.elapsed().Seconds()
	}
	if m.TrainCPU == 0 {
		m.TrainCPU = l.clock.cpu().Seconds()
	}
	if err := l.metrics.Append(m); err != nil {
		return fmt.Errorf("trainer: metrics: %w", err)
	}
	l.history.Add(m)
	return nil
}

// plot writes the run's charts as RUN/plots/NAME.png.
func (l *Loop) plot() error { return charts.WritePNGs(l.dir, l.cfg.Game, l.history) }

// workersText summarises the remote workers for a progress line.
func workersText(ws []metrics.WorkerStat, now time.Time) string {
	if len(ws) == 0 {
		return ""
	}
	s := "; workers:"
	for _, w := range ws {
		rate := "- samples/s" // too few shards yet to say
		if w.SamplesPerSec > 0 {
			rate = fmt.Sprintf("%.0f samples/s", w.SamplesPerSec)
		}
		s += fmt.Sprintf(" %s %d games %s (%s ago)", w.Name, w.Games, rate, now.Sub(w.LastSeen).Round(time.Second))
	}
	return s
}

// gateText says what became of a generation, after "generation N": the
// gate's games, if it played any, and which network is the best now; why
// there were no gate games is said the first time in an invocation.
func (l *Loop) gateText(r matches.GateResult) string {
	why := func(reason string) string {
		if l.saidUngated {
			return "becomes the best network"
		}
		l.saidUngated = true
		return "becomes the best network (" + reason + ")"
	}
	if r.Teacher {
		return why(fmt.Sprintf("no gate games while alpha-beta plays self-play's moves, up to generation %d: selfplay.abzero.teacher_generations",
			l.cfg.SelfPlay.ABZero.TeacherGenerations))
	}
	if len(r.Matches) == 0 {
		if !r.Promote {
			return fmt.Sprintf("is not promoted: the best network stays generation %d", l.bestGen)
		}
		return why("this run has no gate: every new generation does")
	}
	s := ""
	for i, m := range r.Matches {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("vs %s won %d, drew %d, lost %d (score %.2f)", m.Opponent, m.Wins, m.Draws, m.Losses, m.Score)
	}
	if r.Promote {
		return s + ": it becomes the best network"
	}
	return fmt.Sprintf("%s: not good enough, the best network stays generation %d", s, l.bestGen)
}
