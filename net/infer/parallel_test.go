package infer

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/net"
)

// sameOutputs runs want and got on the same random planes (seed) and
// says whether their outputs (the WDL probabilities too, with the head)
// are equal bit for bit.
func sameOutputs(t *testing.T, s net.Spec, want, got interface {
	ForwardWDL(planes []float32, n int, policy, value, wdl []float32) error
}, batch int, seed uint64) bool {
	t.Helper()
	planes := randomPlanes(s, batch, seed)
	wantP, wantV := make([]float32, batch*s.Actions), make([]float32, batch)
	gotP, gotV := make([]float32, batch*s.Actions), make([]float32, batch)
	var wantW, gotW []float32
	if s.WDLHead() {
		wantW, gotW = make([]float32, 3*batch), make([]float32, 3*batch)
	}
	if err := want.ForwardWDL(planes, batch, wantP, wantV, wantW); err != nil {
		t.Fatal(err)
	}
	if err := got.ForwardWDL(planes, batch, gotP, gotV, gotW); err != nil {
		t.Fatal(err)
	}
	return slices.Equal(gotP, wantP) && slices.Equal(gotV, wantV) && slices.Equal(gotW, wantW)
}

// Spreading a batch over cores changes nothing: Parallel equals one Net
// bit for bit at every batch size, allocates nothing, and rejects what
// Net rejects.
func TestParallelEqualsNet(t *testing.T) {
	for _, s := range append(quickSpecs(t)[:3], oddWDL) {
		p := liveParams(t, s, 4)
		const maxBatch = 19
		single, err := New(p, maxBatch)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 2, 3} {
			pl, err := NewParallel(p, maxBatch, threads)
			if err != nil {
				t.Fatal(err)
			}
			if pl.Threads() != threads {
				t.Fatalf("%d threads, want %d", pl.Threads(), threads)
			}
			for batch := 1; batch <= maxBatch; batch++ {
				if !sameOutputs(t, s, single, pl, batch, uint64(batch)) {
					t.Fatalf("%s, %d threads, batch %d: outputs differ from one Net's", s.Game, threads, batch)
				}
			}
			planes := randomPlanes(s, maxBatch, 1)
			pol, val := make([]float32, maxBatch*s.Actions), make([]float32, maxBatch)
			if a := testing.AllocsPerRun(5, func() { pl.Forward(planes, maxBatch, pol, val) }); a != 0 {
				t.Errorf("%s, %d threads: %v allocations per Forward", s.Game, threads, a)
			}
			if err := pl.Forward(planes, maxBatch+1, pol, val); err == nil {
				t.Error("batch above the maximum accepted")
			}
			if err := pl.Forward(planes[1:], maxBatch, pol, val); err == nil {
				t.Error("short planes accepted")
			}
			pl.Close()
			pl.Close() // idempotent
		}
	}
}

// An abandoned Parallel's helpers stop.
func TestParallelHelpersStop(t *testing.T) {
	s := quickSpecs(t)[0]
	p := randomParams(t, s, 1)
	before := runtime.NumGoroutine()
	for range 20 {
		if _, err := NewParallel(p, 4, 3); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 50 && runtime.NumGoroutine() > before+2; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("%d goroutines after dropping 20 Parallels (%d before)", n, before)
	}
}

// BenchmarkParallel compares one Net with Parallel on every core at the
// self-play batch size (32), in fp32 and in 8 bits, in positions per
// second.
func BenchmarkParallel(b *testing.B) {
	const batch = 32
	for _, name := range presets {
		s := presetSpec(b, name)
		p := randomParams(b, s, 1)
		f32, err := New(p, batch)
		if err != nil {
			b.Fatal(err)
		}
		i8, err := NewInt8(p, batch, realPlanes(b, s, 64, 1), 64)
		if err != nil {
			b.Fatal(err)
		}
		planes := realPlanes(b, s, batch, 2)
		pol, val := make([]float32, batch*s.Actions), make([]float32, batch)
		for _, single := range []*Net{f32, i8} {
			pl := ParallelOf(single.Clone(), 0)
			prec := strings.Fields(single.Precision())[0]
			for _, f := range []struct {
				name string
				fwd  func([]float32, int, []float32, []float32) error
			}{{"net", single.Forward}, {fmt.Sprintf("parallel%d", pl.Threads()), pl.Forward}} {
				b.Run(name+"/"+prec+"/"+f.name, func(b *testing.B) {
					for b.Loop() {
						if err := f.fwd(planes, batch, pol, val); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "pos/s")
				})
			}
			pl.Close()
		}
	}
}

// A helper that has slept (idle past helperSpin) is woken by the next
// batch and computes its share: the outputs equal one Net's after each
// pause, and no batch waits forever.
func TestParallelWakesSleepingHelper(t *testing.T) {
	s := quickSpecs(t)[0]
	p := liveParams(t, s, 2)
	const batch = 16
	single, err := New(p, batch)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := NewParallel(p, batch, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	slept := 0
	for i := range 5 {
		time.Sleep(5 * helperSpin) // long enough for the helper to sleep
		if pl.helpers[0].sleeping.Load() {
			slept++
		}
		if !sameOutputs(t, s, single, pl, batch, uint64(i+1)) {
			t.Fatalf("pause %d: outputs differ from one Net's", i)
		}
	}
	if slept == 0 {
		t.Error("the helper never slept through a pause five times its spin")
	}
}

// A closed Parallel answers ErrClosed instead of handing chunks to
// helpers that are gone (which spun for ever), also when Close comes
// while batches are being evaluated on another goroutine.
func TestParallelForwardAfterClose(t *testing.T) {
	s := quickSpecs(t)[0]
	p := randomParams(t, s, 1)
	const batch = 16
	planes := randomPlanes(s, batch, 3)
	pol, val := make([]float32, batch*s.Actions), make([]float32, batch)
	for round := range 20 {
		pl, err := NewParallel(p, batch, 3)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			for {
				if err := pl.Forward(planes, batch, pol, val); err != nil {
					done <- err
					return
				}
			}
		}()
		time.Sleep(time.Duration(round) * time.Millisecond)
		pl.Close()
		select {
		case err := <-done:
			if err != ErrClosed {
				t.Fatalf("round %d: %v, want ErrClosed", round, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: Forward still running 30 s after Close", round)
		}
	}
}
