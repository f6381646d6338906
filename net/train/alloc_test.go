package train_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tabula-zero/tabula/net"
)

// TestStepAllocatesNoTensors checks that a steady-state training step on
// the fast ops allocates no tensors: what it allocates (gorgonia's tape
// machine keeps a few small objects per instruction) is the same at
// batch 8 and batch 64, and far below the size of one activation tensor;
// with the convolutions in bf16 too (AMX-BF16 tiles or AVX512_BF16 where
// the CPU has them).
func TestStepAllocatesNoTensors(t *testing.T) {
	for _, bf16 := range []bool{false, true} {
		var opts []net.ModelOption
		if bf16 {
			opts = append(opts, net.BF16Convs())
		}
		t.Run(fmt.Sprintf("bf16=%t", bf16), func(t *testing.T) { stepAllocates(t, opts...) })
	}
}

func stepAllocates(t *testing.T, opts ...net.ModelOption) {
	spec := presetSpec(t, "connect4")
	perStep := func(n int) (objects float64, bytes uint64) {
		tr, batch := newBenchTrainer(t, spec, n, opts...)
		step := func() {
			if _, err := tr.Step(batch); err != nil {
				t.Fatal(err)
			}
		}
		step() // the first step allocates the ops' buffers
		step()
		const runs = 10
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			step()
		}
		runtime.ReadMemStats(&after)
		return testing.AllocsPerRun(runs, step), (after.TotalAlloc - before.TotalAlloc) / runs
	}
	small, smallBytes := perStep(8)
	large, largeBytes := perStep(64)
	// One activation of the tower at batch 64: padded 8x9 boards, float32.
	activation := uint64(64 * (spec.Height + 2) * (spec.Width + 2) * spec.Filters * 4)
	t.Logf("per step: batch 8 %v objects, %d bytes; batch 64 %v objects, %d bytes; one activation %d bytes",
		small, smallBytes, large, largeBytes, activation)
	// A few objects of slack: gorgonia's tensor package refills its pools
	// after a garbage collection.
	if large > small+8 {
		t.Errorf("a step allocates %v objects at batch 64 and %v at batch 8: something grows with the batch", large, small)
	}
	if largeBytes > activation/8 || largeBytes > smallBytes+smallBytes/4 {
		t.Errorf("a step allocates %d bytes at batch 64 (%d at batch 8, one activation is %d)", largeBytes, smallBytes, activation)
	}
}
