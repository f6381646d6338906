package remote

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/metrics"
)

// RateSpan is the least stretch of a worker's shard creation times its
// samples/s is computed over: shards a worker spooled while the trainer
// was away arrive within milliseconds, and their arrival times say
// nothing of how fast it plays.
const RateSpan = 30 * time.Second

// Tally counts what each remote worker contributed (trainer.Options.Remote).
type Tally struct {
	mu       sync.Mutex
	ws       map[string]*tallied
	rejected map[string]int // shards rejected by worker account
}

// Reject counts a shard rejected from the worker account from and
// returns the account's count so far.
func (t *Tally) Reject(from string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rejected == nil {
		t.rejected = map[string]int{}
	}
	t.rejected[from]++
	return t.rejected[from]
}

// Rejected returns the shards rejected so far by worker account.
func (t *Tally) Rejected() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.rejected)
}

// tallied is a worker's stat with what its rate needs: the creation times
// of its earliest and latest shards (the worker's own clock, so only
// their difference counts), and the samples of the earliest, which were
// played before the stretch began.
type tallied struct {
	metrics.WorkerStat
	earliest, latest time.Time
	earliestSamples  int
}

// Add records a shard taken in with the games it holds samples of and
// the time the trainer spent taking it in.
func (t *Tally) Add(h data.Header, games int, busy time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ws == nil {
		t.ws = map[string]*tallied{}
	}
	now := time.Now().UTC()
	created := h.Created
	if created.IsZero() {
		created = now // a header without a time: its arrival
	}
	w := t.ws[h.Worker]
	if w == nil {
		w = &tallied{WorkerStat: metrics.WorkerStat{Name: h.Worker, First: now}, earliest: created, latest: created, earliestSamples: h.Samples}
		t.ws[h.Worker] = w
	} else {
		// Spooled shards may come in any order.
		if created.Before(w.earliest) {
			w.earliest, w.earliestSamples = created, h.Samples
		}
		if created.After(w.latest) {
			w.latest = created
		}
	}
	w.Shards++
	w.Samples += h.Samples
	w.Games += games
	w.IngestSeconds += busy.Seconds()
	w.LastSeen = now
}

// rate is the worker's samples/s between its earliest and latest shard's
// creation, 0 while they are less than RateSpan apart.
func (w *tallied) rate() float64 {
	d := w.latest.Sub(w.earliest)
	if d < RateSpan {
		return 0
	}
	return float64(w.Samples-w.earliestSamples) / d.Seconds()
}

// Workers returns the workers by name, with the shards refused from each
// account (an account's count goes with the worker of its own name).
func (t *Tally) Workers() []metrics.WorkerStat {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]metrics.WorkerStat, 0, len(t.ws))
	for _, w := range t.ws {
		s := w.WorkerStat
		s.SamplesPerSec = w.rate()
		s.Rejected = t.rejected[s.Name]
		out = append(out, s)
	}
	// An account whose shards were all refused has no stat of its own.
	for from, n := range t.rejected {
		if t.ws[from] == nil {
			out = append(out, metrics.WorkerStat{Name: from, Rejected: n})
		}
	}
	slices.SortFunc(out, func(a, b metrics.WorkerStat) int { return strings.Compare(a.Name, b.Name) })
	return out
}
