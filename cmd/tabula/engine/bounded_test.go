package engine

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineReader yields n bytes of 'a' and then tail, without holding them.
type lineReader struct {
	n    int64
	tail io.Reader
}

func (r *lineReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return r.tail.Read(p)
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = 'a'
	}
	r.n -= k
	return int(k), nil
}

// The first line is read only as far as needed to tell xboard: a long one
// is UCI's, which skips it with an error line, in bounded memory. Before,
// it was read whole (a 1 GB line took 2 GB).
func TestFirstLineBounded(t *testing.T) {
	const size = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var out syncWriter
	in := &lineReader{n: size, tail: strings.NewReader("\nisready\nquit\n")}
	if err := run(t.Context(), nil, in, &out); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got, want := out.String(), "info string error: line longer than 1048576 bytes ignored\nreadyok\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("a first line of %d MiB allocated %d MiB", size>>20, alloc>>20)
	}
	// xboard is still recognised, with spaces or a CR around it, or
	// without a line break.
	for _, first := range []string{"xboard\n", "  xboard \r\n", "xboard"} {
		out.Reset()
		in := first
		if strings.HasSuffix(first, "\n") {
			in += "ping 7\nquit\n"
		}
		if err := run(t.Context(), nil, strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(first, "\n") && out.String() != "pong 7\n" {
			t.Errorf("%q: got %q", first, out.String())
		}
	}
}

// After SIGTERM (the context's end) the engine returns within a grace,
// whatever its protocol loop is blocked in.
func TestUntilStoppedGivesUp(t *testing.T) {
	old := stopGrace
	stopGrace = 20 * time.Millisecond
	defer func() { stopGrace = old }()
	block := make(chan struct{})
	defer close(block)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- untilStopped(ctx, func(context.Context) error { <-block; return nil })
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("untilStopped = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("untilStopped did not return after the context ended")
	}
	// A loop that returns is waited for.
	if err := untilStopped(t.Context(), func(context.Context) error { return io.ErrClosedPipe }); err != io.ErrClosedPipe {
		t.Errorf("untilStopped = %v", err)
	}
}

// syncWriter collects what the engine writes from its goroutines.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (w *syncWriter) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Reset()
}
