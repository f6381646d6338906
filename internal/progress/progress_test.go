package progress

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func fixed(t0 time.Time, d *time.Duration) func() time.Time {
	return func() time.Time { return t0.Add(*d) }
}

// A phase six seconds in with 600 of 1000 samples: 100/s, four seconds
// left, the bar 60% full, within the width.
func TestLine(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var d time.Duration
	tr := New()
	tr.now = fixed(t0, &d)
	tr.Begin("self-play", "samples", 1000)
	d = 6 * time.Second
	tr.Add(500)
	tr.Add(100)
	now := tr.now()
	line := tr.Phase().Line(now, 100)
	for _, want := range []string{"self-play [", "600/1000 samples", "| 100/s", "| 0:06", "| ETA 0:04"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
	bar := line[strings.Index(line, "[")+1 : strings.Index(line, "]")]
	if full := strings.Count(bar, "#"); full*10 != len(bar)*6 {
		t.Errorf("bar %q: %d of %d full, want 60%%", bar, full, len(bar))
	}
	if len(line) > 100 {
		t.Errorf("%d columns", len(line))
	}
	if narrow := tr.Phase().Line(now, 40); len(narrow) > 40 || strings.Contains(narrow, "[") {
		t.Errorf("at 40 columns: %q", narrow)
	}
	// No total: a count and a rate, no bar and no ETA.
	tr.Begin("waiting", "shards", 0)
	d += 2 * time.Second
	tr.Set(3)
	if line := tr.Phase().Line(tr.now(), 100); line != "waiting 3 shards | 1.5/s | 0:02" {
		t.Errorf("unknown total: %q", line)
	}
	if left, ok := (Phase{Name: "x", Total: 10, Start: t0, Done: 0}).Left(t0.Add(time.Hour)); ok {
		t.Errorf("nothing done, yet %v left", left)
	}
	if d := clock(3725 * time.Second); d != "1:02:05" {
		t.Errorf("clock %s", d)
	}
	tr.End()
	if tr.Phase().Line(now, 100) != "" {
		t.Error("an idle tracker draws a line")
	}
}

// Lines written through a Terminal come out whole, in order, with the bar
// redrawn below them and erased before the next line and at the end.
func TestTerminal(t *testing.T) {
	var out bytes.Buffer
	tr := New()
	term := NewTerminal(&out, tr, 80)
	fmt.Fprintln(term, "run runs/c4")
	if out.String() != "run runs/c4\n" {
		t.Fatalf("idle: %q", out.String())
	}
	tr.Begin("training", "steps", 100)
	tr.Set(50)
	fmt.Fprintln(term, "gen 1 step 50")
	fmt.Fprintln(term, "gen 1 step 100")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { term.Run(ctx, time.Millisecond); close(done) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	<-done
	s := out.String()
	if !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("the bar is not erased at the end: %q", s[max(0, len(s)-60):])
	}
	// What a terminal shows: each erase takes back the bar drawn before it.
	var shown []string
	for _, l := range strings.Split(s, "\n") {
		parts := strings.Split(l, "\r\x1b[K")
		if last := parts[len(parts)-1]; last != "" {
			shown = append(shown, last)
		}
	}
	want := []string{"run runs/c4", "gen 1 step 50", "gen 1 step 100"}
	if strings.Join(shown, "|") != strings.Join(want, "|") {
		t.Errorf("shown %q, want %q", shown, want)
	}
	if n := strings.Count(s, "training ["); n < 3 {
		t.Errorf("the bar was drawn %d times: %q", n, s)
	}
}

func TestNilTracker(t *testing.T) {
	var tr *Tracker
	tr.Begin("x", "y", 1)
	tr.Add(1)
	tr.Set(2)
	tr.End()
	if tr.Phase() != (Phase{}) || FromContext(context.Background()) != nil {
		t.Fatal("a nil tracker has a phase")
	}
	if got := FromContext(WithTracker(context.Background(), New())); got == nil {
		t.Fatal("the context lost its tracker")
	}
}
