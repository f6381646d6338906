package selfplay

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tabula-zero/tabula/internal/progress"
)

// Progress reports a worker's progress: on a terminal a bar of the games
// with their rate (and ETA toward -games), and every 10 seconds a line
// (games, samples/s, average game length, result split, network batch
// size, cache hits) and a JSON line in the metrics writer.
type Progress struct {
	out     io.Writer // through the terminal's bar when there is one
	metrics MetricsLog
	w       *Worker
	track   *progress.Tracker
	term    *progress.Terminal
	start   time.Time
}

// MetricsLog takes the metrics lines (internal/jsonl's Log). After a
// failed write, Append keeps returning that failure.
type MetricsLog interface {
	Append(v any) error
}

// Metric is one JSON line of self-play metrics.
type Metric struct {
	Time          time.Time `json:"time"`
	Elapsed       float64   `json:"elapsed_s"`
	Generation    int       `json:"generation"`
	Games         int64     `json:"games"`
	Samples       int64     `json:"samples"`
	SamplesPerSec float64   `json:"samples_per_s"`
	MeanPlies     float64   `json:"mean_plies"`
	FirstWins     int64     `json:"first_wins"`
	Draws         int64     `json:"draws"`
	SecondWins    int64     `json:"second_wins"`
	MeanBatch     float64   `json:"mean_batch"`
	CacheHitRate  float64   `json:"cache_hit_rate"`
	NetShare      float64   `json:"net_share"`
	Positions     int64     `json:"net_positions"`
}

// NewProgress prepares progress output for a run of games games (0: open
// ended) or a duration. The bar is drawn only when out is a terminal.
func NewProgress(out io.Writer, metrics MetricsLog, w *Worker, games int, duration time.Duration) *Progress {
	p := &Progress{out: out, metrics: metrics, w: w, track: progress.New(), start: time.Now()}
	p.track.Begin("self-play", "games", int64(games))
	if progress.IsTerminal(out) {
		p.term = progress.NewTerminal(out, p.track, 100)
		p.out = p.term
	}
	return p
}

// Snapshot returns the current metrics.
func (p *Progress) Snapshot() Metric {
	s, b := p.w.Stats(), p.w.BatchStats()
	el := time.Since(p.start).Seconds()
	m := Metric{Time: time.Now().UTC(), Elapsed: el, Generation: p.w.Generation(), Games: s.Games, Samples: s.Samples,
		FirstWins: s.FirstWins, Draws: s.Draws, SecondWins: s.SecondWins,
		MeanBatch: b.MeanBatch(), CacheHitRate: b.HitRate(), NetShare: b.NetShare(), Positions: b.Positions}
	if el > 0 {
		m.SamplesPerSec = float64(s.Samples) / el
	}
	if s.Games > 0 {
		m.MeanPlies = float64(s.Plies) / float64(s.Games)
	}
	return m
}

// Line formats a metric for people.
func (m Metric) Line() string {
	return fmt.Sprintf("gen %d | %d games, %.1f samples/s, %.1f plies/game | 1st %d = %d 2nd %d | batch %.1f, cache %.0f%%, net %.0f%%",
		m.Generation, m.Games, m.SamplesPerSec, m.MeanPlies, m.FirstWins, m.Draws, m.SecondWins, m.MeanBatch, 100*m.CacheHitRate, 100*m.NetShare)
}

// Run updates the output until ctx is done: the bar twice a second, a
// line and a metrics line every 10 seconds.
func (p *Progress) Run(ctx context.Context) {
	if p.term != nil {
		go p.term.Run(ctx, 500*time.Millisecond)
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	lastWrite := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		m := p.Snapshot()
		p.track.Set(m.Games)
		if time.Since(lastWrite) >= 10*time.Second {
			lastWrite = time.Now()
			// A failed write does not stop the games (they are in the
			// shards); the log keeps it for Final to report.
			p.write(m)
		}
	}
}

func (p *Progress) write(m Metric) error {
	var err error
	if p.metrics != nil {
		err = p.metrics.Append(m)
	}
	fmt.Fprintln(p.out, m.Line())
	return err
}

// Final writes the last metrics line and a summary. It returns the first
// failed metrics write of the whole run.
func (p *Progress) Final() error {
	p.track.End()
	return p.write(p.Snapshot())
}
