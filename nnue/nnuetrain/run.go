package nnuetrain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/internal/cputime"
	"github.com/tabula-zero/tabula/nnue"
)

// RunOptions describe a training run: a trainer over loaded data for a
// number of epochs, its network exported and its state saved as it goes.
type RunOptions struct {
	Config Config
	Data   *Data
	// DataName names the data in the network's notes (the directories).
	DataName string
	// Epochs is the run's total: a resumed run goes on to it.
	Epochs int
	// Out is the quantised network's file, written atomically at every
	// epoch's end with the run's figures in its notes. Best, when not
	// empty, is the file of the epoch whose exported network had the
	// lowest validation loss so far (a small data set is overfitted
	// after a few epochs: docs/nnue.md), written when that improves.
	Out, Best string
	// State is the trainer's state file: a run resumes from it when it
	// exists. It is written atomically at every epoch's end, every
	// SaveEvery within an epoch (0: never), and when ctx ends.
	State     string
	SaveEvery time.Duration
	// Init is a fresh run's network (nil: drawn from the seed), InitName
	// its name; a resumed run must name the same.
	Init     *nnue.FloatNet
	InitName string
	// Resumed, when not nil, is called once a state file is resumed from.
	Resumed func(epoch, step int)
	// Progress, when not nil, is called after every step.
	Progress func(epoch, done, total int)
	// Epoch, when not nil, is called after every epoch with its figures.
	Epoch func(m *Metric)
}

// Metric is one epoch's figures: a line of the run's metrics.
type Metric struct {
	Time   time.Time `json:"time"`
	Epoch  int       `json:"epoch"` // epochs done, this one included
	Epochs int       `json:"epochs"`
	// Losses: the epoch's steps' mean on the training positions, the
	// float network's and the exported network's on the held-out games
	// (absent without validation positions).
	TrainLoss      float64  `json:"train_loss"`
	ValidLoss      *float64 `json:"valid_loss,omitempty"`
	ValidLossQuant *float64 `json:"valid_loss_quantized,omitempty"`
	// QuantEvalDiff is the mean absolute difference of the exported
	// network's evaluations of the held-out positions from the float
	// network's, in centi-units: what quantisation costs.
	QuantEvalDiff *float64 `json:"quant_eval_diff,omitempty"`
	LR            float64  `json:"lr"`
	Positions     int      `json:"train_positions"`
	// PositionsPerSec is the epoch's training speed (this sitting's
	// share of it when resumed mid-epoch).
	PositionsPerSec float64 `json:"positions_per_s"`
	WallSeconds     float64 `json:"wall_s"` // the epoch's, validation and saving included
	// CPUSeconds is the run's CPU time so far, every sitting's training.
	CPUSeconds float64 `json:"cpu_s"`
	Threads    int     `json:"threads"`
	Kernels    string  `json:"kernels"`
	Out        string  `json:"out"`
	// Best says this epoch's network is the best so far (and in Best).
	Best bool `json:"best,omitempty"`
}

// Summary is what a Run did.
type Summary struct {
	// Resumed says the run went on from its state file; Stopped that ctx
	// ended it before Epochs (the state saved); Completed that the state
	// already stood at Epochs.
	Resumed, Stopped, Completed bool
	Epoch, Step                 int
	Last                        *Metric
	CPU                         time.Duration // every sitting's
	// BestEpoch is the epoch of the network in RunOptions.Best (0: none
	// written), BestLoss its quantised validation loss.
	BestEpoch int
	BestLoss  float64
}

// runMeta is what a run keeps in its state file beside the trainer's.
type runMeta struct {
	Data       uint64  `json:"data"` // LoadStats.Fingerprint
	Train      int     `json:"train"`
	Valid      int     `json:"valid"`
	Init       string  `json:"init,omitempty"`
	CPUSeconds float64 `json:"cpu_s"`
	Last       *Metric `json:"last,omitempty"`
	// BestLoss and BestEpoch are the lowest quantised validation loss so
	// far and its epoch.
	BestLoss  *float64 `json:"best_loss,omitempty"`
	BestEpoch int      `json:"best_epoch,omitempty"`
}

// Run trains o.Config over o.Data to o.Epochs, or resumes the run in
// o.State; a run resumes only with the same configuration (the threads
// aside), the same data (its fingerprint) and the same initial network,
// and refuses otherwise, naming the difference. When ctx ends it saves
// the state and returns with Summary.Stopped, no error.
func Run(ctx context.Context, o RunOptions) (sum Summary, err error) {
	if o.Data == nil || len(o.Data.Train) == 0 {
		return sum, errors.New("nnuetrain: no training positions")
	}
	if o.Epochs < 1 || o.Out == "" || o.State == "" {
		return sum, fmt.Errorf("nnuetrain: epochs %d, output %q, state %q: want an epoch, an output and a state file", o.Epochs, o.Out, o.State)
	}
	if err := o.Config.check(); err != nil {
		return sum, fmt.Errorf("nnuetrain: %w", err)
	}
	meta := runMeta{Data: o.Data.Stats.Fingerprint, Train: len(o.Data.Train), Valid: len(o.Data.Valid), Init: o.InitName}
	t, prev, err := LoadState(o.State, o.Config.Threads)
	switch {
	case err == nil:
		if err := resumable(t.cfg, o.Config, prev, &meta); err != nil {
			t.Close()
			return sum, fmt.Errorf("nnuetrain: %s holds another run: %w; give another -state, or remove it to start anew", o.State, err)
		}
		sum.Resumed = true
		if o.Resumed != nil {
			o.Resumed(t.epoch, t.step)
		}
	case errors.Is(err, fs.ErrNotExist):
		if t, err = New(o.Config, o.Init); err != nil {
			return sum, err
		}
	default:
		return sum, err
	}
	defer t.Close()
	cpuBefore := time.Duration(meta.CPUSeconds * float64(time.Second))
	cpu0, _ := cputime.Process()
	cpuNow := func() time.Duration {
		c, _ := cputime.Process()
		return cpuBefore + c - cpu0
	}
	save := func() error {
		meta.CPUSeconds = cpuNow().Seconds()
		return t.Save(o.State, &meta)
	}
	defer func() {
		if meta.BestLoss != nil {
			sum.BestEpoch, sum.BestLoss = meta.BestEpoch, *meta.BestLoss
		}
	}()
	if t.epoch >= o.Epochs {
		sum.Completed = true
		sum.Epoch, sum.Last, sum.CPU = t.epoch, meta.Last, cpuBefore
		return sum, nil
	}
	lastSave := time.Now()
	for t.epoch < o.Epochs {
		start := time.Now()
		startSamples := t.step * t.cfg.Batch
		epoch := t.epoch
		trainLoss, err := t.TrainEpoch(ctx, o.Data.Train, func(done, total int) error {
			if o.Progress != nil {
				o.Progress(epoch, done, total)
			}
			if o.SaveEvery > 0 && time.Since(lastSave) >= o.SaveEvery {
				lastSave = time.Now()
				return save()
			}
			return nil
		})
		trainWall := time.Since(start)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				if err := save(); err != nil {
					return sum, err
				}
				sum.Stopped = true
				sum.Epoch, sum.Step, sum.Last, sum.CPU = t.epoch, t.step, meta.Last, cpuNow()
				return sum, nil
			}
			return sum, err
		}
		m := &Metric{Epoch: t.epoch, Epochs: o.Epochs, TrainLoss: trainLoss, LR: o.Config.LR * pow(o.Config.LRDecay, epoch),
			Positions: len(o.Data.Train), Threads: t.cfg.Threads, Kernels: KernelName(), Out: o.Out}
		m.PositionsPerSec = float64(len(o.Data.Train)-startSamples) / trainWall.Seconds()
		n, err := t.Quantized()
		if err != nil {
			return sum, err
		}
		if len(o.Data.Valid) > 0 {
			v := t.Validate(o.Data.Valid)
			q, d, err := t.ValidateQuantized(n, o.Data.Valid)
			if err != nil {
				return sum, err
			}
			m.ValidLoss, m.ValidLossQuant, m.QuantEvalDiff = &v, &q, &d
		}
		m.CPUSeconds = cpuNow().Seconds()
		n.SetNotes(notes(&o, t, m))
		if err := n.Save(o.Out); err != nil {
			return sum, err
		}
		if q := m.ValidLossQuant; o.Best != "" && q != nil && (meta.BestLoss == nil || *q < *meta.BestLoss) {
			if err := n.Save(o.Best); err != nil {
				return sum, err
			}
			meta.BestLoss, meta.BestEpoch, m.Best = q, m.Epoch, true
		}
		meta.Last = m
		if err := save(); err != nil {
			return sum, err
		}
		lastSave = time.Now()
		m.Time = time.Now().UTC()
		m.WallSeconds = time.Since(start).Seconds()
		sum.Last = m
		if o.Epoch != nil {
			o.Epoch(m)
		}
	}
	sum.Epoch, sum.CPU = t.epoch, cpuNow()
	return sum, nil
}

func pow(x float64, n int) float64 {
	r := 1.0
	for range n {
		r *= x
	}
	return r
}

// resumable reports how a saved run differs from the one asked for, and
// takes the saved run's CPU time and last figures into meta.
func resumable(saved, want Config, prevJSON json.RawMessage, meta *runMeta) error {
	var prev runMeta
	if err := json.Unmarshal(prevJSON, &prev); err != nil {
		return fmt.Errorf("its run notes: %w", err)
	}
	var diffs []string
	diff := func(name string, a, b any) {
		if a != b {
			diffs = append(diffs, fmt.Sprintf("%s %v (asked: %v)", name, a, b))
		}
	}
	diff("sizes", saved.Sizes, want.Sizes)
	diff("batch", saved.Batch, want.Batch)
	diff("lr", saved.LR, want.LR)
	diff("lr decay", saved.LRDecay, want.LRDecay)
	diff("lambda", saved.Lambda, want.Lambda)
	diff("K", saved.K, want.K)
	diff("factorize", saved.Factorize, want.Factorize)
	diff("quant-aware", saved.QuantAware, want.QuantAware)
	diff("seed", saved.Seed, want.Seed)
	diff("initial network", prev.Init, meta.Init)
	if prev.Data != meta.Data || prev.Train != meta.Train || prev.Valid != meta.Valid {
		diffs = append(diffs, fmt.Sprintf("data of %d+%d positions, fingerprint %016x (given: %d+%d, %016x)",
			prev.Train, prev.Valid, prev.Data, meta.Train, meta.Valid, meta.Data))
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, ", "))
	}
	meta.CPUSeconds, meta.Last, meta.BestLoss, meta.BestEpoch = prev.CPUSeconds, prev.Last, prev.BestLoss, prev.BestEpoch
	return nil
}

// notes is the exported network's header text: how it was made.
func notes(o *RunOptions, t *Trainer, m *Metric) string {
	c := t.cfg
	var b strings.Builder
	fmt.Fprintf(&b, "tabula nnue train: data %s (%d training positions, %d held out); ", o.DataName, len(o.Data.Train), len(o.Data.Valid))
	if o.InitName != "" {
		fmt.Fprintf(&b, "from %s; ", o.InitName)
	}
	fmt.Fprintf(&b, "epoch %d of %d, batch %d, Adam lr %g decay %g, lambda %g, K %g, loss mse", m.Epoch, m.Epochs, c.Batch, c.LR, c.LRDecay, c.Lambda, c.K)
	if c.Factorize {
		b.WriteString(", factorised")
	}
	if c.QuantAware {
		b.WriteString(", quantisation-aware")
	}
	fmt.Fprintf(&b, ", seed %d; train loss %.5f", c.Seed, m.TrainLoss)
	if m.ValidLoss != nil {
		fmt.Fprintf(&b, ", validation loss %.5f (quantised %.5f, its evaluations %.1f centi-units from the float ones)", *m.ValidLoss, *m.ValidLossQuant, *m.QuantEvalDiff)
	}
	fmt.Fprintf(&b, "; CPU time %s", time.Duration(m.CPUSeconds*float64(time.Second)).Round(time.Second))
	return b.String()
}
