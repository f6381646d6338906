package nnue

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/jsonl"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/nnue/nnuetrain"
)

const trainSynopsis = "tabula nnue train -data DIR[,DIR...] -out FILE.nnue [-init FILE.nnue] [-epochs N] [-batch B] [-lr X] [-lambda L] [-k K] [-sizes 256,16,32] [-seed S] [-threads N] [-state FILE]"

// trainOptions are the flags of `tabula nnue train`.
type trainOptions struct {
	cfg                  nnuetrain.Config
	load                 nnuetrain.LoadOptions
	data, out, init      string
	state, metrics, best string
	epochs               int
	saveEvery, maxTime   time.Duration
	sizesSet             bool
}

func parseTrain(args []string, stderr io.Writer) (trainOptions, error) {
	var o trainOptions
	def := nnuetrain.DefaultConfig()
	fs := flag.NewFlagSet("nnue train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.data, "data", "", "comma-separated `DIRS` of shards (tabula nnue gen's; required)")
	fs.StringVar(&o.out, "out", "", "`FILE` of the trained network (nnue's format, required): written at every epoch's end")
	fs.StringVar(&o.init, "init", "", "start from this network `FILE` instead of a fresh one (its sizes unless -sizes)")
	fs.IntVar(&o.epochs, "epochs", 20, "passes over the training positions; run again with more to go on")
	fs.IntVar(&o.cfg.Batch, "batch", def.Batch, "positions a step")
	fs.Float64Var(&o.cfg.LR, "lr", def.LR, "Adam's learning rate")
	fs.Float64Var(&o.cfg.LRDecay, "lr-decay", def.LRDecay, "the learning rate's factor after every epoch")
	fs.Float64Var(&o.cfg.Lambda, "lambda", def.Lambda, "weight of the search's score in the target, against the game's result")
	fs.Float64Var(&o.cfg.K, "k", def.K, "centi-units of the sigmoid's scale: sigmoid(eval/K) is a score's win probability")
	sizes := fs.String("sizes", sizesString(def.Sizes), "layer widths `L1,L2,L3`: L1 a multiple of 64, L2 of 4")
	fs.BoolVar(&o.cfg.Factorize, "factorize", def.Factorize, "train each feature's row with shared piece-square and piece rows (exported summed)")
	fs.BoolVar(&o.cfg.QuantAware, "quant-aware", def.QuantAware, "run the dense layers with their weights rounded as exported (gradients passed straight through)")
	fs.Uint64Var(&o.cfg.Seed, "seed", def.Seed, "seed of the initial network and every epoch's order")
	fs.IntVar(&o.cfg.Threads, "threads", runtime.NumCPU(), "cores a step runs on (the weights do not depend on it)")
	fs.StringVar(&o.state, "state", "", "the trainer's state `FILE` the run resumes from (default: -out's name with .state)")
	fs.StringVar(&o.metrics, "metrics", "", "JSON-lines `FILE` of a line an epoch (default: -out's name with .jsonl)")
	fs.StringVar(&o.best, "best", "", "`FILE` of the epoch's network of the lowest validation loss so far (default: -out's name with .best.nnue; -best= for none)")
	fs.Float64Var(&o.load.ValidFraction, "valid", nnuetrain.DefaultValidFraction, "share of games held out for validation")
	fs.IntVar(&o.load.MaxScore, "max-score", 3000, "scores capped to +-this (centi-units; 0: no cap)")
	fs.BoolVar(&o.load.KeepMate, "keep-mate", false, "keep positions with a mate score (capped), skipped by default")
	fs.IntVar(&o.load.MaxRecords, "max-positions", 0, "use at most this many positions (0: all)")
	fs.DurationVar(&o.saveEvery, "save-every", 10*time.Minute, "save the state this often within an epoch too (0: at epochs' ends only)")
	fs.DurationVar(&o.maxTime, "max-time", 0, "stop training after this long, the state saved (0: at -epochs)")
	cliflag.Usage(fs, trainSynopsis,
		"Trains Xiangqi's learned evaluation (package nnue) on the positions of tabula nnue gen's shards:\n"+
			"the prediction sigmoid(eval/K) against lambda*sigmoid(score/K) + (1-lambda)*(result+1)/2, Adam,\n"+
			"weights clipped to what the quantised network holds. Whole games are held out for validation.\n"+
			"At every epoch's end it writes the quantised network (its notes say how it was made) and the\n"+
			"state; the same command, run again, resumes (after a kill, from the last save). See docs/nnue.md.", "")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.data == "" || o.out == "" || fs.NArg() > 0 {
		return o, errors.New("usage: " + trainSynopsis + " (see -h)")
	}
	bestSet := false
	fs.Visit(func(f *flag.Flag) {
		o.sizesSet = o.sizesSet || f.Name == "sizes"
		bestSet = bestSet || f.Name == "best"
	})
	var err error
	if o.cfg.Sizes, err = parseSizes(*sizes); err != nil {
		return o, fmt.Errorf("-sizes %q: %w", *sizes, err)
	}
	for _, d := range strings.Split(o.data, ",") {
		if d = strings.TrimSpace(d); d != "" {
			o.load.Dirs = append(o.load.Dirs, d)
		}
	}
	var c cliflag.Checks
	c.Int("epochs", o.epochs, 1, 1<<20)
	c.Int("batch", o.cfg.Batch, 1, nnuetrain.MaxBatch)
	c.Int("threads", o.cfg.Threads, 1, 1024)
	c.Int("max-score", o.load.MaxScore, 0, math.MaxInt16)
	c.Int("max-positions", o.load.MaxRecords, 0, math.MaxInt)
	c.Duration("save-every", o.saveEvery, 0)
	c.Duration("max-time", o.maxTime, 0)
	err = c.Err()
	float := func(name string, v, lo, hi float64, open bool) {
		if !(v >= lo && v <= hi) || (open && v == lo) {
			err = errors.Join(err, fmt.Errorf("-%s %v: want %g to %g", name, v, lo, hi))
		}
	}
	float("lr", o.cfg.LR, 0, 1, true)
	float("lr-decay", o.cfg.LRDecay, 0, 1, true)
	float("lambda", o.cfg.Lambda, 0, 1, false)
	float("k", o.cfg.K, 1, 1e5, false)
	if !(o.load.ValidFraction >= 0 && o.load.ValidFraction < 1) {
		err = errors.Join(err, fmt.Errorf("-valid %v: want 0 <= v < 1", o.load.ValidFraction))
	}
	if len(o.load.Dirs) == 0 {
		err = errors.Join(err, fmt.Errorf("-data %q names no directory", o.data))
	}
	base := strings.TrimSuffix(o.out, ".nnue")
	if o.state == "" {
		o.state = base + ".state"
	}
	if o.metrics == "" {
		o.metrics = base + ".jsonl"
	}
	if !bestSet {
		o.best = base + ".best.nnue"
	}
	files := map[string]bool{o.out: true, o.state: true, o.metrics: true}
	if o.best != "" {
		files[o.best] = true
	}
	if len(files) < 3 || o.best != "" && len(files) < 4 {
		err = errors.Join(err, fmt.Errorf("-out %s, -state %s, -metrics %s and -best %s must be different files", o.out, o.state, o.metrics, o.best))
	}
	return o, err
}

func sizesString(s nnue.Sizes) string { return fmt.Sprintf("%d,%d,%d", s.L1, s.L2, s.L3) }

func parseSizes(s string) (nnue.Sizes, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return nnue.Sizes{}, errors.New("want three widths L1,L2,L3")
	}
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nnue.Sizes{}, fmt.Errorf("%q is not a number", p)
		}
		v[i] = n
	}
	sz := nnue.Sizes{L1: v[0], L2: v[1], L3: v[2]}
	return sz, sz.Check()
}

// runTrain is `tabula nnue train`.
func runTrain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseTrain(args, stderr)
	if err != nil {
		return err
	}
	ro := nnuetrain.RunOptions{Config: o.cfg, DataName: strings.Join(o.load.Dirs, ","), Epochs: o.epochs,
		Out: o.out, Best: o.best, State: o.state, SaveEvery: o.saveEvery}
	if o.init != "" {
		n, err := nnue.Load(o.init)
		if err != nil {
			return fmt.Errorf("-init: %w", err)
		}
		if o.sizesSet && n.Sizes() != o.cfg.Sizes {
			return fmt.Errorf("-init %s is %s, -sizes asks for %s", o.init, n.Sizes(), o.cfg.Sizes)
		}
		ro.Config.Sizes = n.Sizes()
		ro.Init = n.Float()
		sum := sha256.Sum256(n.Encode())
		ro.InitName = fmt.Sprintf("%s (sha256 %x)", o.init, sum[:6])
	}
	log := stderr
	track := progress.New()
	barCtx, stopBar := context.WithCancel(context.Background())
	defer stopBar()
	if progress.IsTerminal(stderr) {
		bar := progress.NewTerminal(stderr, track, 100)
		log = bar
		go bar.Run(barCtx, time.Second)
	}

	start := time.Now()
	data, err := nnuetrain.Load(ctx, o.load)
	if err != nil {
		return err
	}
	st := data.Stats
	fmt.Fprintf(log, "nnue train: %d training positions, %d held out (%d of %d games) from %s: %d records of %d shards, %d mate scores skipped, %d scores capped; %.0f MB in memory, loaded in %s\n",
		len(data.Train), len(data.Valid), st.ValidGames, st.Games, ro.DataName, st.Records, st.Shards, st.SkippedMate, st.Capped,
		float64(data.MemoryBytes())/1e6, round(time.Since(start)))
	if len(data.Train) == 0 {
		return fmt.Errorf("no training positions in %s", ro.DataName)
	}
	if k, mse := nnuetrain.FitK(data.Train, 1<<20); k > 0 {
		fmt.Fprintf(log, "nnue train: the data's own K (sigmoid(score/K) fitted to the results): %.0f (squared error %.5f); -k %g\n", k, mse, o.cfg.K)
	}
	ro.Data = data

	metrics, err := jsonl.Open(o.metrics)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	defer metrics.Close()

	c := ro.Config
	steps := (len(data.Train) + c.Batch - 1) / c.Batch
	fmt.Fprintf(log, "nnue train: %s, batch %d (%d steps an epoch), Adam lr %g decay %g, lambda %g, K %g, loss mse, factorize %v, quant-aware %v, seed %d, %d threads (%s kernels); to epoch %d, state %s\n",
		c.Sizes, c.Batch, steps, c.LR, c.LRDecay, c.Lambda, c.K, c.Factorize, c.QuantAware, c.Seed, c.Threads, nnuetrain.KernelName(), o.epochs, o.state)
	// The sitting's rate, for the run's ETA.
	sittingStart := time.Now()
	var sittingDone int64
	lastDone := 0
	ro.Resumed = func(epoch, step int) {
		fmt.Fprintf(log, "nnue train: resuming %s at epoch %d, step %d of %d\n", o.state, epoch+1, step, steps)
		lastDone = step * c.Batch
	}
	ro.Progress = func(epoch, done, total int) {
		if track.Phase().Name == "" {
			track.Begin(fmt.Sprintf("epoch %d/%d", epoch+1, o.epochs), "positions", int64(total))
		}
		sittingDone += int64(done - lastDone)
		lastDone = done
		track.Set(int64(done))
	}
	ro.Epoch = func(m *nnuetrain.Metric) {
		track.End()
		lastDone = 0
		if err := metrics.Append(m); err != nil {
			fmt.Fprintf(log, "nnue train: metrics: %v\n", err)
		}
		line := fmt.Sprintf("epoch %d/%d: train loss %.5f", m.Epoch, m.Epochs, m.TrainLoss)
		if m.ValidLoss != nil {
			line += fmt.Sprintf(", validation %.5f (quantised %.5f, %.1f centi-units apart)", *m.ValidLoss, *m.ValidLossQuant, *m.QuantEvalDiff)
		}
		if m.Best {
			line += " (best so far)"
		}
		line += fmt.Sprintf("; %.0f positions/s; CPU %s", m.PositionsPerSec, round(time.Duration(m.CPUSeconds*float64(time.Second))))
		if rate := float64(sittingDone) / time.Since(sittingStart).Seconds(); m.Epoch < m.Epochs && rate > 0 {
			left := float64((m.Epochs-m.Epoch)*len(data.Train)) / rate
			line += ", ETA " + round(time.Duration(left*float64(time.Second))).String()
		}
		fmt.Fprintln(log, line)
	}
	if o.maxTime > 0 { // the training's time: the loading is not stopped halfway
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.maxTime)
		defer cancel()
	}
	sum, err := nnuetrain.Run(ctx, ro)
	track.End()
	stopBar()
	if err != nil {
		return err
	}
	switch {
	case sum.Completed:
		fmt.Fprintf(stdout, "%s already stands at epoch %d of %d: nothing to do (give more -epochs to go on)\n", o.state, sum.Epoch, o.epochs)
	case sum.Stopped:
		fmt.Fprintf(stdout, "stopped at epoch %d, step %d of %d, the state saved in %s: the same command resumes\n", sum.Epoch+1, sum.Step, steps, o.state)
	}
	if m := sum.Last; m != nil {
		fmt.Fprintf(stdout, "%s: epoch %d of %d, train loss %.5f", m.Out, m.Epoch, o.epochs, m.TrainLoss)
		if m.ValidLoss != nil {
			fmt.Fprintf(stdout, ", validation loss %.5f (quantised %.5f)", *m.ValidLoss, *m.ValidLossQuant)
		}
		fmt.Fprintf(stdout, "; CPU time %s\n", round(sum.CPU))
	}
	if sum.BestEpoch > 0 {
		fmt.Fprintf(stdout, "%s: epoch %d, the lowest validation loss (quantised %.5f)\n", o.best, sum.BestEpoch, sum.BestLoss)
	}
	return nil
}
