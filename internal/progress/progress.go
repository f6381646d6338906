// Package progress tracks the phase a long command is in (self-play
// samples, training steps, gate games) with its count, rate and time
// left, and draws it as a bar on a terminal below the command's lines.
// The same state feeds the dashboard, so the trainer updates it whether
// or not a terminal shows it.
package progress

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Phase is a snapshot of the current phase; a zero Name means idle.
type Phase struct {
	Name  string    `json:"name"`
	Unit  string    `json:"unit"`
	Done  int64     `json:"done"`
	Total int64     `json:"total"` // 0: unknown
	Start time.Time `json:"start"`
}

// Rate is the units done per second since the phase began.
func (p Phase) Rate(now time.Time) float64 {
	if s := now.Sub(p.Start).Seconds(); s > 0 {
		return float64(p.Done) / s
	}
	return 0
}

// Left estimates the time to the phase's end from its rate so far; false
// while there is nothing to estimate from.
func (p Phase) Left(now time.Time) (time.Duration, bool) {
	r := p.Rate(now)
	if p.Total <= 0 || p.Done <= 0 || r <= 0 {
		return 0, false
	}
	return time.Duration(float64(max(p.Total-p.Done, 0)) / r * float64(time.Second)), true
}

// Line draws the phase in at most width columns: name, bar, count, rate,
// elapsed time and time left.
func (p Phase) Line(now time.Time, width int) string {
	if p.Name == "" {
		return ""
	}
	count := fmt.Sprintf("%d %s", p.Done, p.Unit)
	if p.Total > 0 {
		count = fmt.Sprintf("%d/%d %s", p.Done, p.Total, p.Unit)
	}
	tail := fmt.Sprintf(" %s | %s/s | %s", count, rate(p.Rate(now)), clock(now.Sub(p.Start)))
	if left, ok := p.Left(now); ok {
		tail += " | ETA " + clock(left)
	}
	head := p.Name
	if bar := width - len(head) - len(tail) - 3; p.Total > 0 && bar >= 10 {
		bar = min(bar, 30)
		full := int(float64(bar) * min(float64(p.Done)/float64(p.Total), 1))
		head += " [" + strings.Repeat("#", full) + strings.Repeat("-", bar-full) + "]"
	}
	line := head + tail
	if len(line) > width {
		line = line[:width]
	}
	return line
}

func rate(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// clock writes d as m:ss, or h:mm:ss from an hour.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// Tracker holds the current phase. A nil Tracker ignores every call, so
// code that reports progress needs no checks.
type Tracker struct {
	mu    sync.Mutex
	phase Phase
	now   func() time.Time
}

// New returns an idle tracker.
func New() *Tracker { return &Tracker{now: time.Now} }

// Begin starts a phase of total units (0: unknown).
func (t *Tracker) Begin(name, unit string, total int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.phase = Phase{Name: name, Unit: unit, Total: total, Start: t.now()}
	t.mu.Unlock()
}

// Set sets the units done in the current phase.
func (t *Tracker) Set(done int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.phase.Done = done
	t.mu.Unlock()
}

// Add counts n more units done.
func (t *Tracker) Add(n int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.phase.Done += n
	t.mu.Unlock()
}

// End leaves the current phase: the tracker is idle.
func (t *Tracker) End() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.phase = Phase{}
	t.mu.Unlock()
}

// Phase returns the current phase.
func (t *Tracker) Phase() Phase {
	if t == nil {
		return Phase{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.phase
}

type ctxKey struct{}

// WithTracker returns a context that carries t to code deeper in a call
// (the gate's matches count their games into it).
func WithTracker(ctx context.Context, t *Tracker) context.Context {
	return context.WithValue(ctx, ctxKey{}, t)
}

// FromContext returns the context's tracker, or nil.
func FromContext(ctx context.Context) *Tracker {
	t, _ := ctx.Value(ctxKey{}).(*Tracker)
	return t
}

// Terminal writes a command's lines to a terminal and keeps the current
// phase drawn on the line below them: each write clears the bar, writes
// the text and draws the bar again, and Run redraws it as time passes.
type Terminal struct {
	mu    sync.Mutex
	w     io.Writer
	t     *Tracker
	width int
	shown bool
}

// IsTerminal reports whether w is a terminal (a character device), where
// a bar redrawn in place makes sense; a pipe or file gets plain lines.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// NewTerminal returns a Terminal for w showing t in width columns.
func NewTerminal(w io.Writer, t *Tracker, width int) *Terminal {
	return &Terminal{w: w, t: t, width: width}
}

// Write writes b above the bar.
func (c *Terminal) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	n, err := c.w.Write(b)
	if err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
		c.draw()
	}
	return n, err
}

// Run redraws the bar every interval until ctx ends, then clears it.
func (c *Terminal) Run(ctx context.Context, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			c.mu.Lock()
			c.clear()
			c.mu.Unlock()
			return
		case <-tick.C:
			c.mu.Lock()
			c.clear()
			c.draw()
			c.mu.Unlock()
		}
	}
}

// clear erases the bar's line (carriage return, erase to the end).
func (c *Terminal) clear() {
	if c.shown {
		io.WriteString(c.w, "\r\x1b[K")
		c.shown = false
	}
}

func (c *Terminal) draw() {
	if line := c.t.Phase().Line(c.t.now(), c.width); line != "" {
		io.WriteString(c.w, line)
		c.shown = true
	}
}
