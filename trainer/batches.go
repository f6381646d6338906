package trainer

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/tabula-zero/tabula/net/train"
)

// batchSource fills one training batch (data.Window.Batch).
type batchSource interface {
	Batch(rng *rand.Rand, n int, planes, policy, value, wdl []float32, legal []bool) error
}

// batchFeed prepares training batches on a goroutine of its own (shard
// samples parsed, encoded and mirrored) while the trainer steps on the
// previous one: two buffers, so that a step waits for data only when
// preparing a batch takes longer than a step. The batches are drawn with
// rng in order, exactly count of them, so a run draws the same batches
// as one preparing them in line.
type batchFeed struct {
	ready chan fed
	free  chan *train.Batch
	stop  chan struct{}
	done  chan struct{}
	wait  time.Duration // the consumer's time blocked in next
}

type fed struct {
	b   *train.Batch
	err error
}

// newBatchFeed starts preparing count batches of n samples shaped like
// template from src.
func newBatchFeed(src batchSource, rng *rand.Rand, count, n int, shape func() *train.Batch) *batchFeed {
	f := &batchFeed{ready: make(chan fed, 2), free: make(chan *train.Batch, 2), stop: make(chan struct{}), done: make(chan struct{})}
	f.free <- shape()
	f.free <- shape()
	go func() {
		defer close(f.done)
		for range count {
			var b *train.Batch
			select {
			case b = <-f.free:
			case <-f.stop:
				return
			}
			err := src.Batch(rng, n, b.Planes, b.Policy, b.Value, b.WDL, b.Legal)
			select {
			case f.ready <- fed{b, err}:
			case <-f.stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return f
}

// next returns the next batch; give it back with release once the step
// is done with it.
func (f *batchFeed) next(ctx context.Context) (*train.Batch, error) {
	t := time.Now()
	defer func() { f.wait += time.Since(t) }()
	select {
	case r := <-f.ready:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (f *batchFeed) release(b *train.Batch) { f.free <- b }

// close stops the preparation and waits for its goroutine.
func (f *batchFeed) close() {
	close(f.stop)
	<-f.done
}
