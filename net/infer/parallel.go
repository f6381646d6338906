package infer

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

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
// The helpers take their shares through atomics and wait for the next
// one by yielding for a while (helperSpin) before they sleep: waking a
// sleeping goroutine costs tens of microseconds where a virtual machine
// halts an idle core, as long as a small network's whole batch.
//
// Forward must not be called concurrently (it is one batching loop's
// evaluator). The helper goroutines stop when Close is called or the
// Parallel becomes unreachable.
type Parallel struct {
	first    *Net
	helpers  []*helper
	quit     chan struct{}
	minChunk int
}

// chunk is one helper's share of a batch.
type chunk struct {
	planes, policy, value, wdl []float32
	n                          int
}

// helper is one extra core's clone and its hand-over: the batching loop
// writes c, then bumps seq; the helper runs c and stores seq in done.
type helper struct {
	net       *Net
	c         chunk
	err       error
	seq, done atomic.Uint64
	sleeping  atomic.Bool
	exited    atomic.Bool   // its loop returned (only ever between chunks)
	wake      chan struct{} // one token: a chunk came while it slept
}

// minChunkRows keeps tiny batches on one core, where handing work to
// another goroutine would cost more than it saves.
const minChunkRows = 4

// helperSpin is how long an idle helper yields before it sleeps: about
// the gap between two batches of self-play, so that a helper sleeps only
// when no batch is coming.
const helperSpin = 200 * time.Microsecond

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
	pl := &Parallel{first: first, quit: make(chan struct{}), minChunk: minChunkRows}
	for range threads - 1 {
		h := &helper{net: first.Clone(), wake: make(chan struct{}, 1)}
		pl.helpers = append(pl.helpers, h)
		go h.loop(pl.quit)
	}
	// The helpers hold their own clones and hand-overs, never pl, so an
	// abandoned Parallel is collected and its helpers stopped.
	quit := pl.quit
	runtime.AddCleanup(pl, func(q chan struct{}) { closeOnce(q) }, quit)
	return pl
}

// loop runs the chunks handed to h until quit is closed.
func (h *helper) loop(quit <-chan struct{}) {
	defer h.exited.Store(true)
	var last uint64
	for {
		idle := time.Now()
		for h.seq.Load() == last {
			select {
			case <-quit:
				return
			default:
			}
			if time.Since(idle) < helperSpin {
				runtime.Gosched()
				continue
			}
			// Sleep. The batching loop bumps seq before it reads
			// sleeping, and this reads seq after setting it, so one of the
			// two sees the other: no chunk is left unwoken.
			h.sleeping.Store(true)
			if h.seq.Load() == last {
				select {
				case <-h.wake:
				case <-quit:
					return
				}
			}
			h.sleeping.Store(false)
			idle = time.Now()
		}
		last = h.seq.Load()
		h.err = h.net.ForwardWDL(h.c.planes, h.c.n, h.c.policy, h.c.value, h.c.wdl)
		h.done.Store(last)
	}
}

// hand gives h a chunk, waking it if it sleeps.
func (h *helper) hand(c chunk) {
	h.c = c
	h.seq.Add(1)
	if h.sleeping.Load() {
		select {
		case h.wake <- struct{}{}:
		default: // a token is already there
		}
	}
}

// ErrClosed is Forward's error on a Parallel that was closed: its
// helpers are gone, and waiting for them would spin for ever.
var ErrClosed = errors.New("infer: the network was closed")

// wait yields until h has finished its chunk and returns its error. A
// helper that stopped (Close) stops between chunks, so once it has
// exited the chunk will never run.
func (h *helper) wait() error {
	for seq := h.seq.Load(); h.done.Load() != seq; {
		if h.exited.Load() && h.done.Load() != seq {
			return ErrClosed
		}
		runtime.Gosched()
	}
	return h.err
}

func closeOnce(q chan struct{}) {
	select {
	case <-q:
	default:
		close(q)
	}
}

// Close stops the helper goroutines; Forward fails with ErrClosed after.
func (pl *Parallel) Close() { closeOnce(pl.quit) }

// MaxBatch is the largest batch Forward accepts.
func (pl *Parallel) MaxBatch() int { return pl.first.MaxBatch() }

// Spec is the shape of the network.
func (pl *Parallel) Spec() net.Spec { return pl.first.Spec() }

// Threads is the number of cores a full batch is spread over.
func (pl *Parallel) Threads() int { return len(pl.helpers) + 1 }

// HasWDL is Net.HasWDL.
func (pl *Parallel) HasWDL() bool { return pl.first.HasWDL() }

// Forward is Net.Forward spread over the cores. It allocates nothing.
func (pl *Parallel) Forward(planes []float32, batch int, policy, value []float32) error {
	return pl.ForwardWDL(planes, batch, policy, value, nil)
}

// ForwardWDL is Net.ForwardWDL spread over the cores.
func (pl *Parallel) ForwardWDL(planes []float32, batch int, policy, value, wdl []float32) error {
	select {
	case <-pl.quit:
		return ErrClosed
	default:
	}
	s := pl.first.Spec()
	if batch < 1 || batch > pl.MaxBatch() {
		return fmt.Errorf("infer: batch %d out of range [1, %d]", batch, pl.MaxBatch())
	}
	in := s.Channels * s.Height * s.Width
	if len(planes) != batch*in || len(policy) != batch*s.Actions || len(value) != batch || wdl != nil && (!s.WDLHead() || len(wdl) != 3*batch) {
		// Net.ForwardWDL names the mismatch.
		return pl.first.ForwardWDL(planes, batch, policy, value, wdl)
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
		c := chunk{planes: planes[lo*in : hi*in], policy: policy[lo*s.Actions : hi*s.Actions], value: value[lo:hi], n: hi - lo}
		if wdl != nil {
			c.wdl = wdl[3*lo : 3*hi]
		}
		pl.helpers[i-1].hand(c)
		sent++
	}
	n0 := min(batch, size)
	var w0 []float32
	if wdl != nil {
		w0 = wdl[:3*n0]
	}
	err := pl.first.ForwardWDL(planes[:n0*in], n0, policy[:n0*s.Actions], value[:n0], w0)
	for _, h := range pl.helpers[:sent] {
		if e := h.wait(); err == nil {
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
