package trainer

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/train"
)

// rngSource fills a batch from the rng alone, so that the batch sequence
// shows the order of draws; fail, if positive, fails that call.
type rngSource struct {
	calls, fail int
}

func (s *rngSource) Batch(rng *rand.Rand, n int, planes, policy, value, _ []float32, _ []bool) error {
	s.calls++
	if s.calls == s.fail {
		return errors.New("bad shard sample")
	}
	for i := range planes {
		planes[i] = rng.Float32()
	}
	for i := range value {
		value[i] = rng.Float32()
	}
	return nil
}

func shape() *train.Batch {
	return &train.Batch{Planes: make([]float32, 6), Policy: make([]float32, 4), Value: make([]float32, 2), N: 2}
}

// The feed hands out exactly the batches in-line preparation would make,
// in order, and stops after count of them.
func TestBatchFeedSameBatches(t *testing.T) {
	const count = 7
	want := make([][]float32, count)
	seq := rand.New(rand.NewPCG(3, 4))
	src := &rngSource{}
	for i := range want {
		b := shape()
		if err := src.Batch(seq, 2, b.Planes, b.Policy, b.Value, nil, nil); err != nil {
			t.Fatal(err)
		}
		want[i] = append(slices.Clone(b.Planes), b.Value...)
	}
	src = &rngSource{}
	f := newBatchFeed(src, rand.New(rand.NewPCG(3, 4)), count, 2, shape)
	for i := range count {
		b, err := f.next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := append(slices.Clone(b.Planes), b.Value...); !slices.Equal(got, want[i]) {
			t.Fatalf("batch %d = %v, want %v", i, got, want[i])
		}
		f.release(b)
	}
	f.close()
	if src.calls != count {
		t.Fatalf("%d batches prepared, want %d", src.calls, count)
	}
}

// A failed batch reaches the trainer; a cancelled step and an early close
// end the feed without a hang.
func TestBatchFeedErrorsAndStops(t *testing.T) {
	f := newBatchFeed(&rngSource{fail: 2}, rand.New(rand.NewPCG(1, 1)), 5, 2, shape)
	b, err := f.next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f.release(b)
	if _, err := f.next(context.Background()); err == nil {
		t.Fatal("the failed batch was not reported")
	}
	f.close()

	f = newBatchFeed(&rngSource{}, rand.New(rand.NewPCG(1, 1)), 100, 2, shape)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Either a prepared batch or the cancellation; then close at once
	// although 98 batches are left.
	if _, err := f.next(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	f.close()
}

// The trainer's batches carry a legal mask exactly when
// training.legal_mask asks for one, and the window fills it: the same
// network's policy loss on the same batch is then lower than without the
// mask (Xiangqi's from-to head: a softmax over the legal moves instead of
// 8,100 actions).
func TestTrainingBatchLegalMask(t *testing.T) {
	cfg, err := configs.Preset("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Training.BatchSize, cfg.Training.LegalMask = 16, false
	g, err := cfg.LookupGame()
	if err != nil {
		t.Fatal(err)
	}
	start, _ := g.New(nil)
	var samples []data.Sample
	for _, p := range gametest.RandomPositions(start, 40, 60, 3) {
		s := data.Sample{Position: p.String()}
		ms := p.GenerateMoves(nil)
		for _, m := range ms {
			s.Policy = append(s.Policy, data.PolicyEntry{Action: g.Encoder.ActionIndex(p, m), Prob: 1 / float32(len(ms))})
		}
		if len(ms) > 0 {
			samples = append(samples, s)
		}
	}
	dir := t.TempDir()
	if _, err := data.Write(dir, data.Header{Game: g.Name, EncoderVersion: g.Encoder.Version(), Worker: "t"}, samples); err != nil {
		t.Fatal(err)
	}
	w, err := data.NewWindow(dir, g, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Refresh(); err != nil {
		t.Fatal(err)
	}
	if b := newTrainingBatch(cfg.Training, g.Encoder, false); b.Legal != nil {
		t.Fatal("a legal mask without training.legal_mask")
	}
	cfg.Training.LegalMask = true
	b := newTrainingBatch(cfg.Training, g.Encoder, false)
	if err := w.Batch(rand.New(rand.NewPCG(1, 2)), b.N, b.Planes, b.Policy, b.Value, b.WDL, b.Legal); err != nil {
		t.Fatal(err)
	}
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := net.NewParams(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	policyLoss := func(legal []bool) float64 {
		m, err := train.NewModel(p, b.N)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := m.NewTrainer(train.Config{Schedule: net.Schedule{LR: 0.01}})
		if err != nil {
			t.Fatal(err)
		}
		c := *b
		c.Legal = legal
		st, err := tr.Step(c)
		if err != nil {
			t.Fatal(err)
		}
		return st.PolicyLoss
	}
	if masked, full := policyLoss(b.Legal), policyLoss(nil); !(masked < full) {
		t.Fatalf("policy loss %v with the legal mask, %v without", masked, full)
	}
}

// A network with the WDL head gets its win/draw/loss targets through the
// batch feed from the window (one-hot outcomes here, no root-value mix)
// and trains on them.
func TestTrainingBatchWDL(t *testing.T) {
	cfg, err := configs.Preset("lion")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.Blocks, cfg.Network.Filters, cfg.Network.ValueHidden = 1, 8, 8
	cfg.Network.ValueHead = net.ValueWDL
	cfg.Training.BatchSize = 16
	g, err := cfg.LookupGame()
	if err != nil {
		t.Fatal(err)
	}
	start, _ := g.New(nil)
	var samples []data.Sample
	for i, p := range gametest.RandomPositions(start, 40, 30, 5) {
		if len(p.GenerateMoves(nil)) == 0 {
			continue
		}
		m := p.GenerateMoves(nil)[0]
		samples = append(samples, data.Sample{Position: p.String(), Result: float32(i%3 - 1),
			Policy: []data.PolicyEntry{{Action: g.Encoder.ActionIndex(p, m), Prob: 1}}})
	}
	dir := t.TempDir()
	if _, err := data.Write(dir, data.Header{Game: g.Name, EncoderVersion: g.Encoder.Version(), Worker: "t"}, samples); err != nil {
		t.Fatal(err)
	}
	w, err := data.NewWindow(dir, g, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Refresh(); err != nil {
		t.Fatal(err)
	}
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := net.NewParams(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := train.NewModel(p, cfg.Training.BatchSize)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.NewTrainer(train.Config{Schedule: net.Schedule{LR: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	feed := newBatchFeed(w, rand.New(rand.NewPCG(1, 2)), 1, cfg.Training.BatchSize, func() *train.Batch {
		return newTrainingBatch(cfg.Training, g.Encoder, m.Spec().WDLHead())
	})
	defer feed.close()
	b, err := feed.next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	classes := [3]int{}
	for i := range b.N {
		row := b.WDL[3*i : 3*i+3]
		k := slices.Index(row, 1)
		if k < 0 || row[0]+row[1]+row[2] != 1 || float32(1-k) != b.Value[i] {
			t.Fatalf("sample %d: result %v, WDL target %v", i, b.Value[i], row)
		}
		classes[k]++
	}
	if _, err := tr.Step(*b); err != nil {
		t.Fatal(err)
	}
	t.Logf("wins, draws, losses in the batch: %v", classes)
}
