package mcts

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// Forwarder runs the network on a batch: planes [n][c][h][w] in, logits
// [n][actions] and values [n] out. It is called from one goroutine only
// (the batcher's loop). net/infer's Net satisfies it.
type Forwarder interface {
	Forward(planes []float32, n int, policy, value []float32) error
}

// WDLForwarder is a Forwarder that may have the win/draw/loss value head
// (net/infer's Net and Parallel): HasWDL says whether it has, and
// ForwardWDL is Forward that also writes each position's probabilities
// of a win, a draw and a loss [n][3] (values are then W - L).
type WDLForwarder interface {
	Forwarder
	HasWDL() bool
	ForwardWDL(planes []float32, n int, policy, value, wdl []float32) error
}

// BatchConfig tunes a Batcher.
type BatchConfig struct {
	// MaxBatch is the largest batch sent to the network.
	MaxBatch int
	// FlushAfter is how long the loop waits for more requests once none is
	// pending before running a partial batch; 0 runs at once.
	FlushAfter time.Duration
	// CacheSize is the number of evaluations kept by Zobrist key (0: none).
	CacheSize int
}

// Batcher is an Evaluator for many concurrent games: each Evaluate call
// encodes its position, queues it and waits; one loop (Run) runs the
// network on whole batches and answers. A cache keyed by the position's
// Zobrist key answers repeated positions without the network.
type Batcher struct {
	fwd     atomic.Pointer[forwarderBox]
	enc     game.Encoder
	cfg     BatchConfig
	size    int // c*h*w
	actions int
	reqs    chan *request
	pool    sync.Pool
	cache   *evalCache
	done    chan struct{}
	closed  atomic.Bool

	requests, hits, batches, positions atomic.Int64
	forwardNanos                       atomic.Int64
	start                              time.Time
}

type request struct {
	planes []float32
	idx    []int     // action index of each move
	logits []float32 // the network's logits of the moves
	value  float32
	err    error
	ready  chan struct{}
}

type forwarderBox struct{ f Forwarder }

// SetForwarder replaces the network (a newer best net) and empties the
// cache, whose entries came from the old one. Callers make sure no
// evaluation is in flight, so that no game mixes the two networks.
func (b *Batcher) SetForwarder(f Forwarder) {
	b.fwd.Store(&forwarderBox{f})
	if b.cache != nil {
		b.cache.clear()
	}
}

// ErrClosed is returned by Evaluate after the batcher's loop has stopped.
var ErrClosed = errors.New("mcts: evaluator stopped")

// NewBatcher returns a batcher; start its loop with Run.
func NewBatcher(fwd Forwarder, enc game.Encoder, cfg BatchConfig) (*Batcher, error) {
	if cfg.MaxBatch < 1 {
		return nil, fmt.Errorf("mcts: batch size %d must be positive", cfg.MaxBatch)
	}
	c, h, w := enc.Shape()
	b := &Batcher{enc: enc, cfg: cfg, size: c * h * w, actions: enc.ActionSize(),
		reqs: make(chan *request, 4*cfg.MaxBatch), done: make(chan struct{}), start: time.Now()}
	b.fwd.Store(&forwarderBox{fwd})
	b.pool.New = func() any {
		return &request{planes: make([]float32, b.size), ready: make(chan struct{}, 1)}
	}
	if cfg.CacheSize > 0 {
		b.cache = newEvalCache(cfg.CacheSize)
	}
	return b, nil
}

// Evaluate implements Evaluator; it is safe for concurrent use.
func (b *Batcher) Evaluate(p game.Position, moves []game.Move, priors []float32) (float32, error) {
	b.requests.Add(1)
	key := p.Key()
	if b.cache != nil {
		if v, ok := b.cache.get(key, priors[:len(moves)]); ok {
			b.hits.Add(1)
			return v, nil
		}
	}
	if b.closed.Load() {
		return 0, ErrClosed
	}
	r := b.pool.Get().(*request)
	defer b.pool.Put(r)
	b.enc.Encode(p, r.planes)
	r.idx = r.idx[:0]
	for _, m := range moves {
		r.idx = append(r.idx, b.enc.ActionIndex(p, m))
	}
	if cap(r.logits) < len(moves) {
		r.logits = make([]float32, len(moves))
	}
	r.logits = r.logits[:len(moves)]
	select {
	case b.reqs <- r:
	case <-b.done:
		return 0, ErrClosed
	}
	select {
	case <-r.ready:
	case <-b.done:
		// The loop may still answer a request it took; wait for that.
		select {
		case <-r.ready:
		default:
			return 0, ErrClosed
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	softmax(r.logits, priors[:len(moves)])
	if b.cache != nil {
		b.cache.put(key, r.value, priors[:len(moves)])
	}
	return r.value, nil
}

// Run is the batching loop; it returns when ctx is done, after which
// Evaluate fails with ErrClosed.
func (b *Batcher) Run(ctx context.Context) error {
	defer func() {
		b.closed.Store(true)
		close(b.done)
	}()
	planes := make([]float32, b.cfg.MaxBatch*b.size)
	policy := make([]float32, b.cfg.MaxBatch*b.actions)
	value := make([]float32, b.cfg.MaxBatch)
	batch := make([]*request, 0, b.cfg.MaxBatch)
	var timer *time.Timer
	for {
		batch = batch[:0]
		select {
		case r := <-b.reqs:
			batch = append(batch, r)
		case <-ctx.Done():
			return ctx.Err()
		}
	fill:
		for len(batch) < b.cfg.MaxBatch {
			select {
			case r := <-b.reqs:
				batch = append(batch, r)
				continue
			default:
			}
			if b.cfg.FlushAfter <= 0 {
				break
			}
			if timer == nil {
				timer = time.NewTimer(b.cfg.FlushAfter)
			} else {
				timer.Reset(b.cfg.FlushAfter)
			}
			select {
			case r := <-b.reqs:
				batch = append(batch, r)
				if !timer.Stop() {
					<-timer.C
				}
			case <-timer.C:
				break fill
			case <-ctx.Done():
				timer.Stop()
				break fill
			}
		}
		n := len(batch)
		for i, r := range batch {
			copy(planes[i*b.size:], r.planes)
		}
		t0 := time.Now()
		err := b.fwd.Load().f.Forward(planes[:n*b.size], n, policy[:n*b.actions], value[:n])
		b.forwardNanos.Add(int64(time.Since(t0)))
		b.batches.Add(1)
		b.positions.Add(int64(n))
		for i, r := range batch {
			r.err = err
			if err == nil {
				row := policy[i*b.actions : (i+1)*b.actions]
				for j, a := range r.idx {
					r.logits[j] = row[a]
				}
				r.value = value[i]
			}
			r.ready <- struct{}{}
		}
	}
}

// BatchStats reports the batcher's work so far.
type BatchStats struct {
	Requests, CacheHits, Batches, Positions int64
	Forward, Wall                           time.Duration
}

// Stats returns the counters.
func (b *Batcher) Stats() BatchStats {
	return BatchStats{Requests: b.requests.Load(), CacheHits: b.hits.Load(), Batches: b.batches.Load(),
		Positions: b.positions.Load(), Forward: time.Duration(b.forwardNanos.Load()), Wall: time.Since(b.start)}
}

// MeanBatch is the average number of positions per network call.
func (s BatchStats) MeanBatch() float64 { return ratio(s.Positions, s.Batches) }

// HitRate is the share of requests the cache answered.
func (s BatchStats) HitRate() float64 { return ratio(s.CacheHits, s.Requests) }

// NetShare is the share of wall time spent in the network.
func (s BatchStats) NetShare() float64 { return ratio(int64(s.Forward), int64(s.Wall)) }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// evalCache is a direct-mapped table of evaluations; a colliding entry
// replaces the old one. Priors are stored per move in generation order,
// which is deterministic for a position.
type evalCache struct {
	mu      sync.Mutex
	entries []cacheEntry
}

type cacheEntry struct {
	key    uint64
	value  float32
	priors []float32
}

func newEvalCache(n int) *evalCache { return &evalCache{entries: make([]cacheEntry, n)} }

func (c *evalCache) get(key uint64, priors []float32) (float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &c.entries[key%uint64(len(c.entries))]
	if e.priors == nil || e.key != key || len(e.priors) != len(priors) {
		return 0, false
	}
	copy(priors, e.priors)
	return e.value, true
}

func (c *evalCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
}

func (c *evalCache) put(key uint64, value float32, priors []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &c.entries[key%uint64(len(c.entries))]
	e.key, e.value = key, value
	e.priors = append(e.priors[:0], priors...)
}
