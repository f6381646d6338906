package nnuetrain

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/nnue"
)

func smallConfig(threads int) Config {
	return Config{Sizes: nnue.Sizes{L1: 64, L2: 8, L3: 8}, Batch: 700, LR: 3e-3, LRDecay: 0.95,
		Lambda: 0.8, K: 400, Factorize: true, QuantAware: true, Seed: 3, Threads: threads}
}

// The trainer learns a known evaluation: positions of random games
// labelled by material. The validation loss falls far below the start,
// and the exported (quantised) network's evaluations of held-out
// positions correlate with the material (as win probabilities).
func TestLearnsMaterial(t *testing.T) {
	train, valid := testSamples(t, 400, 1), testSamples(t, 12, 2)
	cfg := smallConfig(2)
	cfg.Batch = 1024
	tr, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	before := tr.Validate(valid)
	for range 8 {
		if _, err := tr.TrainEpoch(t.Context(), train, nil); err != nil {
			t.Fatal(err)
		}
	}
	after := tr.Validate(valid)
	n, err := tr.Quantized()
	if err != nil {
		t.Fatal(err)
	}
	quant, diff, err := tr.ValidateQuantized(n, valid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d training, %d validation positions; validation loss %.5f -> %.5f, quantised %.5f (evaluations %.1f centi-units apart)", len(train), len(valid), before, after, quant, diff)
	if diff > 20 {
		t.Errorf("the quantised evaluations are %.1f centi-units from the float ones on average", diff)
	}
	if !(after < before/5) {
		t.Errorf("validation loss %.5f -> %.5f: want a fifth at most", before, after)
	}
	if math.Abs(quant-after) > 0.1*after+1e-4 {
		t.Errorf("quantised loss %.5f, float %.5f", quant, after)
	}
	q := intNetOf(n)
	sc := newIntScratch(n.Sizes())
	var xs, ys []float64
	for i := range valid {
		s := &valid[i]
		us, _ := features(nil, s, game.Color(s.Side))
		them, _ := features(nil, s, game.Color(s.Side^1))
		// Compared as the loss sees them: win probabilities.
		xs = append(xs, sigmoid(float64(q.eval(us, them, &sc))/cfg.K))
		ys = append(ys, sigmoid(float64(material(s))/cfg.K))
	}
	if r := correlation(xs, ys); r < 0.95 {
		t.Errorf("the exported network's evaluations correlate %.3f with material; want 0.95 or more", r)
	} else {
		t.Logf("correlation with material %.3f", r)
	}
}

func correlation(xs, ys []float64) float64 {
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(ys))
	var sxy, sxx, syy float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
		syy += (ys[i] - my) * (ys[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

// weights returns everything a run's future depends on.
func snapshot(tr *Trainer) [][]float32 {
	return [][]float32{slices.Clone(tr.p.w), slices.Clone(tr.m), slices.Clone(tr.v)}
}

func sameBits(t *testing.T, what string, a, b [][]float32) {
	t.Helper()
	for k := range a {
		for i := range a[k] {
			if math.Float32bits(a[k][i]) != math.Float32bits(b[k][i]) {
				t.Fatalf("%s: array %d differs at %d: %v, %v", what, k, i, a[k][i], b[k][i])
			}
		}
	}
}

// A seed gives the same weights bit for bit at any thread count; a run
// stopped mid-epoch, saved and resumed from its state file ends where
// the uninterrupted run ends, bit for bit, losses included.
func TestDeterministicAndResumable(t *testing.T) {
	train := testSamples(t, 20, 4)
	run := func(threads int) (*Trainer, []float64) {
		tr, err := New(smallConfig(threads), nil)
		if err != nil {
			t.Fatal(err)
		}
		var losses []float64
		for range 2 {
			l, err := tr.TrainEpoch(t.Context(), train, nil)
			if err != nil {
				t.Fatal(err)
			}
			losses = append(losses, l)
		}
		return tr, losses
	}
	ref, refLosses := run(1)
	defer ref.Close()
	for _, threads := range []int{2, 5} {
		tr, losses := run(threads)
		sameBits(t, "threads", snapshot(ref), snapshot(tr))
		if !slices.Equal(losses, refLosses) {
			t.Fatalf("losses %v at %d threads, %v at 1", losses, threads, refLosses)
		}
		tr.Close()
	}

	// Stopped in the second epoch after two steps.
	tr, err := New(smallConfig(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := tr.TrainEpoch(t.Context(), train, nil)
	if err != nil || first != refLosses[0] {
		t.Fatalf("first epoch: %v, loss %v (want %v)", err, first, refLosses[0])
	}
	stop := errors.New("stop")
	steps := 0
	_, err = tr.TrainEpoch(t.Context(), train, func(done, total int) error {
		if steps++; steps == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("stopped epoch: %v", err)
	}
	if e, s := tr.Epoch(); e != 1 || s != 2 {
		t.Fatalf("stands at epoch %d step %d, want 1, 2", e, s)
	}
	path := filepath.Join(t.TempDir(), "state")
	if err := tr.Save(path, map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	resumed, meta, err := LoadState(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	if string(meta) != `{"x":1}` {
		t.Errorf("meta %s", meta)
	}
	second, err := resumed.TrainEpoch(t.Context(), train, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "resumed", snapshot(ref), snapshot(resumed))
	if second != refLosses[1] {
		t.Fatalf("resumed epoch's loss %v, uninterrupted %v", second, refLosses[1])
	}
	// A cancelled context stops between steps too.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := resumed.TrainEpoch(ctx, train, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// A step and a validation pass allocate nothing once running.
func TestNoAllocations(t *testing.T) {
	samples := testSamples(t, 4, 6)
	cfg := smallConfig(2)
	cfg.Batch = 300
	tr, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	idx := make([]uint32, cfg.Batch)
	for i := range idx {
		idx[i] = uint32(i)
	}
	tr.trainStep(samples, idx)
	tr.Validate(samples)
	if a := testing.AllocsPerRun(5, func() { tr.trainStep(samples, idx) }); a != 0 {
		t.Errorf("a step allocates %v times", a)
	}
	if a := testing.AllocsPerRun(5, func() { tr.Validate(samples) }); a != 0 {
		t.Errorf("validation allocates %v times", a)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Sizes.L1 = 100 }, "L1 100"},
		{func(c *Config) { c.Batch = 0 }, "batch 0"},
		{func(c *Config) { c.Batch, c.Sizes.L1 = MaxBatch, 2048 }, "GB of accumulators"},
		{func(c *Config) { c.LR = 0 }, "learning rate 0"},
		{func(c *Config) { c.LRDecay = 2 }, "decay 2"},
		{func(c *Config) { c.Lambda = math.NaN() }, "lambda NaN"},
		{func(c *Config) { c.K = 0 }, "K 0"},
		{func(c *Config) { c.Threads = 0 }, "threads 0"},
	} {
		cfg := DefaultConfig()
		c.edit(&cfg)
		if _, err := New(cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error naming %q", err, c.want)
		}
	}
	other, _ := nnue.NewFloat(nnue.Sizes{L1: 64, L2: 4, L3: 4})
	if _, err := New(DefaultConfig(), other); err == nil || !strings.Contains(err.Error(), "64x2-4-4-1") {
		t.Errorf("another network's sizes: %v", err)
	}
}
