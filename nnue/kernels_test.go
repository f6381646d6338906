package nnue

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tabula-zero/tabula/net/gemm"
)

// The kernel sets are those the CPU's features allow under TABULA_ISA's
// cap (none but Go under noasm), the widest the one in use.
func TestKernelSetsFollowCPU(t *testing.T) {
	f := gemm.Features()
	var want []string
	if asmBuild {
		for _, k := range []struct {
			name string
			on   bool
		}{{"vnni", f.AVX512VNNI}, {"avx512", f.AVX512BW}, {"avx2", f.AVX2}} {
			if k.on {
				want = append(want, k.name)
			}
		}
	}
	want = append(want, "go")
	var got []string
	for _, ks := range kernelSets {
		got = append(got, ks.name)
	}
	if !slices.Equal(got, want) || KernelName() != want[0] {
		t.Errorf("kernel sets %v in use %s; the CPU's features %+v call for %v", got, KernelName(), f, want)
	}
}

// Every kernel set this CPU runs (under TABULA_ISA's cap) gives the
// pure-Go twins' results exactly, on random inputs that reach the types'
// edges: int16 sums that wrap, accumulators beyond [0, 127] both ways,
// weights of -128 and 127 against activations of 127.
func TestKernelsMatchGo(t *testing.T) {
	if len(kernelSets) == 1 {
		t.Logf("only the pure-Go kernels run in this build or on this CPU")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ks := range kernelSets {
		t.Run(ks.name, func(t *testing.T) {
			for trial := range 200 {
				n := 64 * (1 + rng.IntN(8))
				rows := 1 + rng.IntN(40)
				w := make([]int16, rows*n)
				for i := range w {
					w[i] = int16(rng.Uint32())
				}
				src := make([]int16, n)
				for i := range src {
					src[i] = int16(rng.Uint32())
				}
				add := make([]uint16, rng.IntN(34))
				for i := range add {
					add[i] = uint16(rng.IntN(rows))
				}
				sub := make([]uint16, rng.IntN(4))
				for i := range sub {
					sub[i] = uint16(rng.IntN(rows))
				}
				want := make([]int16, n)
				updateGo(want, src, w, add, sub)
				got := make([]int16, n)
				ks.update(got, src, w, add, sub)
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d: update of %d with %d adds, %d subs differs from Go", trial, n, len(add), len(sub))
				}
				// In place, as the accumulators are refreshed.
				inPlace := slices.Clone(src)
				ks.update(inPlace, inPlace, w, add, sub)
				if !slices.Equal(inPlace, want) {
					t.Fatalf("trial %d: update in place differs from Go", trial)
				}

				acc := make([]int16, n)
				for i := range acc {
					acc[i] = int16(rng.IntN(600) - 300)
				}
				acc[0], acc[n-1] = -32768, 32767
				wantB := make([]uint8, n)
				creluGo(wantB, acc)
				gotB := make([]uint8, n)
				ks.crelu(gotB, acc)
				if !slices.Equal(gotB, wantB) {
					t.Fatalf("trial %d: crelu of %d differs from Go", trial, n)
				}

				nin, nout := 64*(1+rng.IntN(16)), 4*(1+rng.IntN(8))
				in := make([]uint8, nin)
				for i := range in {
					in[i] = uint8(rng.IntN(128))
				}
				wd := make([]int8, nin*nout)
				for i := range wd {
					wd[i] = int8(rng.Uint32())
				}
				if trial%10 == 0 { // the extremes: every pair at its largest sum
					for i := range in {
						in[i] = 127
					}
					for i := range wd {
						wd[i] = [2]int8{-128, 127}[trial/10%2]
					}
				}
				bias := make([]int32, nout)
				for i := range bias {
					bias[i] = int32(rng.Uint32())
				}
				wantD := make([]int32, nout)
				denseGo(wantD, in, wd, bias)
				gotD := make([]int32, nout)
				ks.dense(gotD, in, wd, bias)
				if !slices.Equal(gotD, wantD) {
					t.Fatalf("trial %d: dense %d -> %d differs from Go: %v, want %v", trial, nin, nout, gotD, wantD)
				}
			}
		})
	}
}

// The Go twins compute what they say, checked by hand on small cases, so
// that agreeing with them means something.
func TestGoKernels(t *testing.T) {
	n := 64
	w := make([]int16, 3*n)
	for i := range n {
		w[i], w[n+i], w[2*n+i] = 1, int16(i), 32767
	}
	src := make([]int16, n)
	src[5] = 7
	dst := make([]int16, n)
	updateGo(dst, src, w, []uint16{0, 1, 1}, []uint16{0})
	if dst[5] != 7+5+5 || dst[0] != 0 || dst[63] != 126 {
		t.Errorf("update: got %v", dst[:8])
	}
	updateGo(dst, dst, w, []uint16{2, 2}, nil) // wraps: 126 + 2*32767 = 124 mod 2^16
	if dst[63] != 124 {
		t.Errorf("update does not wrap as int16: %d", dst[63])
	}
	b := make([]uint8, 4)
	creluGo(b, []int16{-5, 0, 100, 400})
	if !slices.Equal(b, []uint8{0, 0, 100, 127}) {
		t.Errorf("crelu: %v", b)
	}
	out := make([]int32, 4)
	denseGo(out, []uint8{1, 2, 3}, []int8{1, 1, 1, -1, 0, 2, 0, 0, 0, -128, 0, 127}, []int32{10, 20, 30, 40})
	if !slices.Equal(out, []int32{16, 25, 30, 40 - 128 + 381}) {
		t.Errorf("dense: %v", out)
	}
}
