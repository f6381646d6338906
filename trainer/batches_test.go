package trainer

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/net"
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

func shape() *net.Batch {
	return &net.Batch{Planes: make([]float32, 6), Policy: make([]float32, 4), Value: make([]float32, 2), N: 2}
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
