package infer

import (
	"fmt"
	"runtime"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/net"
)

// Parallel evaluates one batch on several cores: each of its clones of
// the network takes a contiguous share of the rows. Self-play feeds the
// network from one batching loop, so a single Net would leave every core
// but one idle while the network is the bottleneck. Rows are computed
// independently, so the results equal a single Net's bit for bit however
// the batch is split.
//
// Forward must not be called concurrently (it is one batching loop's
// evaluator). The helper goroutines stop when Close is called or the
// Parallel becomes unreachable.
type Parallel struct {
	first    *Net
	work     []chan chunk
	done     chan error
	quit     chan struct{}
	minChunk int
}

// chunk is one helper's share of a batch.
type chunk struct {
	planes, policy, value []float32
	n                     int
}

// minChunkRows keeps tiny batches on one core, where handing work to
// another goroutine would cost more than it saves.
const minChunkRows = 4

// NewParallel returns a network for batches up to maxBatch on threads
// cores (threads <= 0: GOMAXPROCS).
func NewParallel(p *net.Params, maxBatch, threads int) (*Parallel, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	first, err := New(p, maxBatch)
	if err != nil {
		return nil, err
	}
	return ParallelOf(first, threads), nil
}

// ParallelOf spreads batches for first (a Net of any precision) over
// threads cores (threads <= 0: GOMAXPROCS); first is its own from then on.
func ParallelOf(first *Net, threads int) *Parallel {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	pl := &Parallel{first: first, done: make(chan error, threads), quit: make(chan struct{}), minChunk: minChunkRows}
	for range threads - 1 {
		in := make(chan chunk)
		pl.work = append(pl.work, in)
		go forwardLoop(first.Clone(), in, pl.done, pl.quit)
	}
	// The helpers hold their own clones and channels, never pl, so an
	// abandoned Parallel is collected and its helpers stopped.
	quit := pl.quit
	runtime.AddCleanup(pl, func(q chan struct{}) { closeOnce(q) }, quit)
	return pl
}

func forwardLoop(n *Net, in <-chan chunk, done chan<- error, quit <-chan struct{}) {
	for {
		select {
		case c := <-in:
			done <- n.Forward(c.planes, c.n, c.policy, c.value)
		case <-quit:
			return
		}
	}
}

func closeOnce(q chan struct{}) {
	select {
	case <-q:
	default:
		close(q)
	}
}

// Close stops the helper goroutines; Forward must not be called after.
func (pl *Parallel) Close() { closeOnce(pl.quit) }

// MaxBatch is the largest batch Forward accepts.
func (pl *Parallel) MaxBatch() int { return pl.first.MaxBatch() }

// Spec is the shape of the network.
func (pl *Parallel) Spec() net.Spec { return pl.first.Spec() }

// Threads is the number of cores a full batch is spread over.
func (pl *Parallel) Threads() int { return len(pl.work) + 1 }

// Forward is Net.Forward spread over the cores. It allocates nothing.
func (pl *Parallel) Forward(planes []float32, batch int, policy, value []float32) error {
	s := pl.first.Spec()
	if batch < 1 || batch > pl.MaxBatch() {
		return fmt.Errorf("infer: batch %d out of range [1, %d]", batch, pl.MaxBatch())
	}
	in := s.Channels * s.Height * s.Width
	if len(planes) != batch*in || len(policy) != batch*s.Actions || len(value) != batch {
		// Net.Forward names the mismatch.
		return pl.first.Forward(planes, batch, policy, value)
	}
	parts := min(pl.Threads(), max(1, batch/pl.minChunk))
	size := (batch + parts - 1) / parts
	sent := 0
	for i := 1; i < parts; i++ {
		lo := i * size
		if lo >= batch {
			break
		}
		hi := min(batch, lo+size)
		pl.work[i-1] <- chunk{planes: planes[lo*in : hi*in], policy: policy[lo*s.Actions : hi*s.Actions], value: value[lo:hi], n: hi - lo}
		sent++
	}
	n0 := min(batch, size)
	err := pl.first.Forward(planes[:n0*in], n0, policy[:n0*s.Actions], value[:n0])
	for range sent {
		if e := <-pl.done; err == nil {
			err = e
		}
	}
	return err
}

// NewParallelPrecision is NewParallel in precision (NewPrecision): an
// 8-bit tower is calibrated on random play of the network's own game,
// which must be registered (game/all).
func NewParallelPrecision(p *net.Params, maxBatch, threads int, precision string) (*Parallel, error) {
	if precision = Resolve(precision); precision == "" || precision == "fp32" {
		return NewParallel(p, maxBatch, threads)
	}
	g, err := game.Lookup(p.Spec.Game)
	if err != nil {
		return nil, fmt.Errorf("infer: %w", err)
	}
	if g, err = g.WithEncoder(p.Spec.EncoderVersion); err != nil {
		return nil, fmt.Errorf("infer: %w", err)
	}
	start, err := g.New(nil)
	if err != nil {
		return nil, fmt.Errorf("infer: %w", err)
	}
	first, err := NewPrecision(p, maxBatch, precision, start, g.Encoder)
	if err != nil {
		return nil, err
	}
	return ParallelOf(first, threads), nil
}
