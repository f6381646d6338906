package remote

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/trainer"
)

// Tally counts what each remote worker contributed (trainer.WorkerStats).
type Tally struct {
	mu sync.Mutex
	ws map[string]*trainer.WorkerStat
}

// Add records a shard taken in with the games it holds samples of and
// the time the trainer spent taking it in.
func (t *Tally) Add(h data.Header, games int, busy time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ws == nil {
		t.ws = map[string]*trainer.WorkerStat{}
	}
	now := time.Now().UTC()
	w := t.ws[h.Worker]
	if w == nil {
		w = &trainer.WorkerStat{Name: h.Worker, First: now}
		t.ws[h.Worker] = w
	}
	w.Shards++
	w.Samples += h.Samples
	w.Games += games
	w.IngestSeconds += busy.Seconds()
	w.LastSeen = now
}

// Workers returns the workers by name.
func (t *Tally) Workers() []trainer.WorkerStat {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]trainer.WorkerStat, 0, len(t.ws))
	for _, w := range t.ws {
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b trainer.WorkerStat) int { return strings.Compare(a.Name, b.Name) })
	return out
}
