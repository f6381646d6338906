package tablebase

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Options tune Build.
type Options struct {
	// Workers is the number of goroutines; 0 means runtime.NumCPU().
	Workers int
	// Progress, when not nil, receives a line per level and, every
	// Every, the rate and an estimate of the time left.
	Progress io.Writer
	Every    time.Duration
}

// builder holds the state of a build: the codes being filled in and, per
// undecided entry, the number of its distinct successor entries not yet
// known to be won by the opponent. Both are byte arrays handled through
// 32-bit words so that workers update them with atomic operations.
type builder struct {
	ix      *indexer
	val     []uint32
	cnt     []uint32
	workers int
	errOnce sync.Once
	err     error
	failed  atomic.Bool

	// progress: entries decided so far, and those whose predecessors
	// have been told (each decided entry is a source once)
	decided, propagated atomic.Uint64
	phase               atomic.Value // string
	done                atomic.Uint64
	total               atomic.Uint64
	phaseFrom           atomic.Int64 // unix nanos
}

// workspace is one worker's scratch, so the inner loops do not allocate.
type workspace struct {
	kids [maxChildren]pos
	par  [maxParents]pos
	idx  []uint64
}

func newWorkspace() *workspace {
	return &workspace{idx: make([]uint64, 0, 2*maxParents)}
}

func loadByte(w []uint32, i uint64) uint8 {
	return uint8(atomic.LoadUint32(&w[i>>2]) >> (i & 3 * 8))
}

// setByte sets byte i to v if it is 0 and reports whether it did.
func setByte(w []uint32, i uint64, v uint8) bool {
	a := &w[i>>2]
	sh := i & 3 * 8
	for {
		old := atomic.LoadUint32(a)
		if old>>sh&0xff != 0 {
			return false
		}
		if atomic.CompareAndSwapUint32(a, old, old|uint32(v)<<sh) {
			return true
		}
	}
}

// decByte decrements byte i and returns the new value; ok is false if it
// was already 0 (the successor counts are wrong).
func decByte(w []uint32, i uint64) (v uint8, ok bool) {
	a := &w[i>>2]
	sh := i & 3 * 8
	for {
		old := atomic.LoadUint32(a)
		b := uint8(old >> sh)
		if b == 0 {
			return 0, false
		}
		if atomic.CompareAndSwapUint32(a, old, old-1<<sh) {
			return b - 1, true
		}
	}
}

// decide sets entry i's code if it is undecided.
func (b *builder) decide(i uint64, code uint8) {
	if setByte(b.val, i, code) {
		b.decided.Add(1)
	}
}

func (b *builder) fail(err error) {
	b.errOnce.Do(func() { b.err = err })
	b.failed.Store(true)
}

// parallel runs fn over [0, n) in chunks taken by the workers in turn.
// The outcome never depends on the order (see Build).
func (b *builder) parallel(ctx context.Context, n uint64, fn func(ws *workspace, lo, hi uint64)) error {
	const chunk = 1 << 14 // a multiple of 4: chunks own whole words
	var next atomic.Uint64
	var wg sync.WaitGroup
	for range b.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := newWorkspace()
			for ctx.Err() == nil && !b.failed.Load() {
				lo := next.Add(chunk) - chunk
				if lo >= n {
					return
				}
				hi := min(lo+chunk, n)
				fn(ws, lo, hi)
				b.done.Add(hi - lo)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tablebase: build cancelled: %w", err)
	}
	return b.err
}

// sortUnique sorts x and drops repeats.
func sortUnique(x []uint64) []uint64 {
	slices.Sort(x)
	return slices.Compact(x)
}

// successors collects the distinct entries reached by one move from entry
// i's positions (the entry and, when it stands for two, its mirror image,
// whose successors are the mirrors of these). win is true when a move
// wins at once (takes the lion, or a try the opponent cannot answer); n is
// the number of legal moves.
func (b *builder) successors(ws *workspace, p *pos, two bool) (idx []uint64, n int, win bool) {
	n, takes := p.children(&ws.kids)
	if takes {
		return nil, n, true
	}
	idx = ws.idx[:0]
	for j := range n {
		c := &ws.kids[j]
		co, ct := c.lions()
		if code, ok := c.trivial(co, ct); ok {
			if code&1 == 0 {
				return nil, n, true // they have lost at once
			}
			continue // they win at once: already decided, not counted
		}
		idx = append(idx, b.ix.index(c, co, ct))
		if two && co%nfiles == 1 && ct%nfiles == 1 {
			m := c.mirror()
			idx = append(idx, b.ix.index(&m, co, ct))
		}
	}
	return sortUnique(idx), n, false
}

// predecessors collects the distinct stored entries with a move into
// entry i. When the entry stands for two positions, the parents of the
// mirror image are the mirrors of p's, which index alike unless both
// lions stand on file b.
func (b *builder) predecessors(ws *workspace, p *pos, two bool) []uint64 {
	idx := ws.idx[:0]
	n := p.parents(&ws.par)
	for j := range n {
		q := &ws.par[j]
		qo, qt := q.lions()
		if _, ok := q.trivial(qo, qt); ok {
			continue
		}
		idx = append(idx, b.ix.index(q, qo, qt))
		if two && qo%nfiles == 1 && qt%nfiles == 1 {
			m := q.mirror()
			idx = append(idx, b.ix.index(&m, qo, qt))
		}
	}
	return sortUnique(idx)
}

// Build solves the material by retrograde analysis and returns the table
// in memory.
//
// The analysis counts plies to the end of the game under the safe try
// rule and takes no account of repetition or of the ply cap: a position
// from which neither side can force the end is a draw, as threefold
// repetition makes it in play (the side that can win never needs to
// repeat; the other can always keep repeating or wandering). Wins are
// found level by level: level d's losses make their predecessors wins in
// d+1; level d's wins take one from each predecessor's count of undecided
// successors, and a predecessor whose count reaches zero is a loss in d+1.
// A level only writes level d+1, so the result does not depend on how the
// workers share the work.
func Build(ctx context.Context, mat Material, o Options) (*Table, error) {
	ix, err := newIndexer(mat)
	if err != nil {
		return nil, err
	}
	b := &builder{ix: ix, workers: o.Workers}
	if b.workers <= 0 {
		b.workers = runtime.NumCPU()
	}
	words := (ix.size + 3) / 4
	b.val = make([]uint32, words)
	b.cnt = make([]uint32, words)
	start := time.Now()
	stop := b.report(o, start)
	defer stop()

	// The first pass decides what the moves alone decide (wins in 1,
	// losses in 0 and 2) and counts the other entries' successors.
	b.startPhase("successors", ix.size)
	err = b.parallel(ctx, ix.size, func(ws *workspace, lo, hi uint64) {
		for i := lo; i < hi; i++ {
			p, _, theirs := ix.position(i)
			if p.attacked(0, theirs) {
				b.decide(i, winCode(1))
				continue
			}
			idx, n, win := b.successors(ws, &p, ix.weight(i) == 2)
			switch {
			case win:
				b.decide(i, winCode(1))
			case len(idx) > 255:
				b.fail(fmt.Errorf("tablebase: entry %d has %d successors, more than a byte counts", i, len(idx)))
			case len(idx) > 0:
				b.cnt[i>>2] |= uint32(len(idx)) << (i & 3 * 8) // chunks own their words
			case n == 0:
				b.decide(i, lossCode(0)) // no move at all: the game cannot go on
			default:
				b.decide(i, lossCode(2)) // every move lets them win at once
			}
		}
	})
	if err != nil {
		return nil, err
	}

	for d := 0; ; d++ {
		code := winCode(d) // wins are odd (none stored in 0), losses even
		if d%2 == 0 {
			code = lossCode(d)
		}
		if d+1 > maxDist {
			return nil, fmt.Errorf("tablebase: distances beyond %d plies do not fit a byte", maxDist)
		}
		var sources atomic.Uint64
		b.startPhase(fmt.Sprintf("level %d", d), ix.size)
		err = b.parallel(ctx, ix.size, func(ws *workspace, lo, hi uint64) {
			pat := uint32(code) * 0x01010101
			for w := lo / 4; w < (hi+3)/4; w++ {
				x := atomic.LoadUint32(&b.val[w]) ^ pat
				if (x-0x01010101)&^x&0x80808080 == 0 {
					continue // no byte equals code
				}
				for i := w * 4; i < w*4+4 && i < hi; i++ {
					if uint8(x>>(i&3*8)) != 0 {
						continue
					}
					sources.Add(1)
					b.propagated.Add(1)
					b.propagate(ws, i, d)
				}
			}
		})
		if err != nil {
			return nil, err
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "liontb: %v: level %d: %d entries, %s elapsed\n",
				mat, d, sources.Load(), time.Since(start).Round(time.Second))
		}
		if d >= 2 && sources.Load() == 0 {
			break
		}
	}
	stop()
	b.cnt = nil

	data := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b.val))), len(b.val)*4)[:ix.size]
	t := &Table{ix: ix, data: data}
	t.hdr.counts, err = b.counts(ctx, data)
	if err != nil {
		return nil, err
	}
	t.hdr.mat = mat
	t.hdr.entries = ix.size
	if o.Progress != nil {
		s := t.Stats()
		fmt.Fprintf(o.Progress, "liontb: %v: built in %s: %d entries; %d positions: %d wins, %d losses, %d draws; longest win %d, loss %d plies\n",
			mat, time.Since(start).Round(time.Second), ix.size, s.Positions, s.Wins, s.Losses, s.Draws, s.LongestWin, s.LongestLoss)
	}
	return t, nil
}

// propagate hands entry i's result (level d) to its predecessors.
func (b *builder) propagate(ws *workspace, i uint64, d int) {
	p, _, _ := b.ix.position(i)
	for _, j := range b.predecessors(ws, &p, b.ix.weight(i) == 2) {
		if d%2 == 0 {
			b.decide(j, winCode(d+1))
			continue
		}
		if loadByte(b.val, j) != 0 {
			continue
		}
		left, ok := decByte(b.cnt, j)
		if !ok {
			b.fail(fmt.Errorf("tablebase: entry %d: more won successors than counted (from entry %d)", j, i))
			return
		}
		if left == 0 {
			b.decide(j, lossCode(d+1))
		}
	}
}

// counts tallies every position of the material (side to move fixed,
// mirror images and the positions decided without the table included) by
// code.
func (b *builder) counts(ctx context.Context, data []byte) ([256]uint64, error) {
	ix := b.ix
	var mu sync.Mutex
	var total [256]uint64
	b.startPhase("counting entries", ix.size)
	err := b.parallel(ctx, ix.size, func(ws *workspace, lo, hi uint64) {
		var c [256]uint64
		for i := lo; i < hi; i++ {
			c[data[i]] += ix.weight(i)
		}
		mu.Lock()
		for k := range c {
			total[k] += c[k]
		}
		mu.Unlock()
	})
	if err != nil {
		return total, err
	}
	// Lion pairs the table does not store are decided by trivial: our
	// lion on our far rank or the lions side by side decide every
	// placement alike; their lion on their far rank needs the other pieces
	// (do we attack it?).
	var pairs [][2]int
	for o := range nsq {
		for t := range nsq {
			if o == t || storedPair(o, t) {
				continue
			}
			var p pos
			p.put(o, lionT, 0)
			p.put(t, lionT, 1)
			if topRank&(1<<o) == 0 && steps[0][lionT][o]&(1<<t) == 0 {
				pairs = append(pairs, [2]int{o, t})
				continue
			}
			code, _ := p.trivial(o, t)
			total[code] += ix.perPair
		}
	}
	b.startPhase("counting the rest", uint64(len(pairs))*ix.perPair)
	err = b.parallel(ctx, uint64(len(pairs))*ix.perPair, func(ws *workspace, lo, hi uint64) {
		var c [256]uint64
		for i := lo; i < hi; i++ {
			pr := pairs[i/ix.perPair]
			p := ix.placement(pr[0], pr[1], i%ix.perPair)
			code, ok := p.trivial(pr[0], pr[1])
			if !ok {
				b.fail(fmt.Errorf("tablebase: lion pair %v is neither stored nor decided", pr))
				return
			}
			c[code]++
		}
		mu.Lock()
		for k := range c {
			total[k] += c[k]
		}
		mu.Unlock()
	})
	return total, err
}

func (b *builder) startPhase(name string, total uint64) {
	b.phase.Store(name)
	b.done.Store(0)
	b.total.Store(total)
	b.phaseFrom.Store(time.Now().UnixNano())
}

// report writes the progress every o.Every until stop is called.
func (b *builder) report(o Options, start time.Time) (stop func()) {
	if o.Progress == nil {
		return func() {}
	}
	every := o.Every
	if every <= 0 {
		every = 10 * time.Second
	}
	quit := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tk.C:
			}
			name, _ := b.phase.Load().(string)
			done, total := b.done.Load(), b.total.Load()
			el := time.Since(time.Unix(0, b.phaseFrom.Load()))
			rate := float64(done) / el.Seconds()
			eta := "?"
			if rate > 0 && total >= done {
				eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
			}
			fmt.Fprintf(o.Progress, "liontb: %s: %.1f%% of %d entries, %.2fM/s, ETA %s of this pass; %.1f%% of all entries decided, %.1f%% passed on; %s elapsed\n",
				name, 100*float64(done)/float64(max(total, 1)), total, rate/1e6, eta,
				100*float64(b.decided.Load())/float64(b.ix.size), 100*float64(b.propagated.Load())/float64(b.ix.size),
				time.Since(start).Round(time.Second))
		}
	}()
	return func() {
		once.Do(func() { close(quit); wg.Wait() })
	}
}
