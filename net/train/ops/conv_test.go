package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tabula-zero/tabula/net/gemm"
)

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

// toPadded lays out NCHW values (n, c, h, w) as padded NHWC.
func toPadded(b Board, c int, x []float32) []float32 {
	out := make([]float32, b.padded(c).TotalSize())
	for n := 0; n < b.N; n++ {
		for ch := 0; ch < c; ch++ {
			for y := 0; y < b.H; y++ {
				for xx := 0; xx < b.W; xx++ {
					out[((n*b.hp()+y+1)*b.wp()+xx+1)*c+ch] = x[((n*c+ch)*b.H+y)*b.W+xx]
				}
			}
		}
	}
	return out
}

// fromPadded is the inverse of toPadded; it also reports a non-zero border.
func fromPadded(b Board, c int, p []float32) (x []float32, borderOK bool) {
	x = make([]float32, b.N*c*b.H*b.W)
	borderOK = true
	for n := 0; n < b.N; n++ {
		for y := 0; y < b.hp(); y++ {
			for xx := 0; xx < b.wp(); xx++ {
				for ch := 0; ch < c; ch++ {
					v := p[((n*b.hp()+y)*b.wp()+xx)*c+ch]
					if y == 0 || xx == 0 || y == b.hp()-1 || xx == b.wp()-1 {
						borderOK = borderOK && v == 0
						continue
					}
					x[((n*c+ch)*b.H+y-1)*b.W+xx-1] = v
				}
			}
		}
	}
	return x, borderOK
}

// The three products of a convolution written out from their definitions
// in NCHW (same padding, stride 1): y[o][p] = sum_{c,ky,kx} x[c][p+d]*w[o][c][ky][kx]
// with d = (ky-k/2, kx-k/2), and its derivatives.
func naiveConv(b Board, k, in, out int, x, w []float32) (y []float32) {
	y = make([]float32, b.N*out*b.H*b.W)
	visit(b, k, func(n, yo, xo, yi, xi, ky, kx int) {
		for o := 0; o < out; o++ {
			var s float64
			for c := 0; c < in; c++ {
				s += float64(x[((n*in+c)*b.H+yi)*b.W+xi]) * float64(w[((o*in+c)*k+ky)*k+kx])
			}
			y[((n*out+o)*b.H+yo)*b.W+xo] += float32(s)
		}
	})
	return y
}

func naiveInputGrad(b Board, k, in, out int, w, dy []float32) (dx []float32) {
	dx = make([]float32, b.N*in*b.H*b.W)
	visit(b, k, func(n, yo, xo, yi, xi, ky, kx int) {
		for c := 0; c < in; c++ {
			var s float64
			for o := 0; o < out; o++ {
				s += float64(dy[((n*out+o)*b.H+yo)*b.W+xo]) * float64(w[((o*in+c)*k+ky)*k+kx])
			}
			dx[((n*in+c)*b.H+yi)*b.W+xi] += float32(s)
		}
	})
	return dx
}

func naiveWeightGrad(b Board, k, in, out int, x, dy []float32) (dw []float32) {
	acc := make([]float64, out*in*k*k)
	visit(b, k, func(n, yo, xo, yi, xi, ky, kx int) {
		for o := 0; o < out; o++ {
			g := float64(dy[((n*out+o)*b.H+yo)*b.W+xo])
			for c := 0; c < in; c++ {
				acc[((o*in+c)*k+ky)*k+kx] += g * float64(x[((n*in+c)*b.H+yi)*b.W+xi])
			}
		}
	})
	dw = make([]float32, len(acc))
	for i, v := range acc {
		dw[i] = float32(v)
	}
	return dw
}

// visit calls f for every output pixel and kernel tap whose input pixel is
// on the board.
func visit(b Board, k int, f func(n, yo, xo, yi, xi, ky, kx int)) {
	for n := 0; n < b.N; n++ {
		for yo := 0; yo < b.H; yo++ {
			for xo := 0; xo < b.W; xo++ {
				for ky := 0; ky < k; ky++ {
					for kx := 0; kx < k; kx++ {
						yi, xi := yo+ky-k/2, xo+kx-k/2
						if yi >= 0 && yi < b.H && xi >= 0 && xi < b.W {
							f(n, yo, xo, yi, xi, ky, kx)
						}
					}
				}
			}
		}
	}
}

func maxRelErr(got, want []float32) float64 {
	var scale, worst float64
	for _, v := range want {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	for i := range want {
		worst = math.Max(worst, math.Abs(float64(got[i]-want[i]))/math.Max(scale, 1e-6))
	}
	return worst
}

// TestConvMatchesDefinition checks the forward pass and both gradients of
// every kernel against the definitions, on shapes that exercise the tail
// rows (pixels not a multiple of 6), channel counts that are not whole
// panels, 1x1 and 3x3, and weight-gradient chunks.
func TestConvMatchesDefinition(t *testing.T) {
	cases := []struct {
		b          Board
		k, in, out int
	}{
		{Board{1, 5, 7}, 3, 3, 5},
		{Board{2, 4, 3}, 3, 8, 16},
		{Board{3, 6, 7}, 1, 16, 2},
		{Board{2, 3, 4}, 3, 33, 40},
		{Board{9, 10, 9}, 3, 32, 64},
	}
	for _, kern := range gemm.Kernels {
		for _, tc := range cases {
			name := fmt.Sprintf("%s/%dx%dx%d/k%d/%d-%d", kern.Name, tc.b.N, tc.b.H, tc.b.W, tc.k, tc.in, tc.out)
			t.Run(name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(tc.in*100+tc.out)))
				b := tc.b
				x := randSlice(rng, b.N*tc.in*b.H*b.W)
				w := randSlice(rng, tc.out*tc.in*tc.k*tc.k)
				dy := randSlice(rng, b.N*tc.out*b.H*b.W)
				s := newConvState(b, tc.k, tc.in, tc.out, kern)
				s.inputGrad = true
				xp, dyp := toPadded(b, tc.in, x), toPadded(b, tc.out, dy)
				// Twice: the second pass reuses every buffer.
				for range 2 {
					y, ok := fromPadded(b, tc.out, s.forward(xp, w).Float32s())
					if e := maxRelErr(y, naiveConv(b, tc.k, tc.in, tc.out, x, w)); e > 1e-5 || !ok {
						t.Fatalf("forward: relative error %.3g, zero border %t", e, ok)
					}
					dx, ok := fromPadded(b, tc.in, s.inputGradient(w, dyp, nil).Float32s())
					if e := maxRelErr(dx, naiveInputGrad(b, tc.k, tc.in, tc.out, w, dy)); e > 1e-5 || !ok {
						t.Fatalf("input gradient: relative error %.3g, zero border %t", e, ok)
					}
					dw := s.weightGradient(xp, dyp).Float32s()
					if e := maxRelErr(dw, naiveWeightGrad(b, tc.k, tc.in, tc.out, x, dy)); e > 1e-5 {
						t.Fatalf("weight gradient: relative error %.3g", e)
					}
				}
			})
		}
	}
}

// roundBF16 is v with every entry rounded to bfloat16 and widened back.
func roundBF16(v []float32) []float32 {
	r := make([]float32, len(v))
	for i, f := range v {
		r[i] = gemm.FromBF16(gemm.ToBF16(f))
	}
	return r
}

// The bf16 tiles compute the three products of the definition on
// operands rounded to bfloat16 (to float32 accuracy), leave every border
// zero, and stay within bfloat16's rounding of the float32 products; on
// a CPU without AMX-BF16 or AVX512_BF16 this checks the Go twin.
func TestConvBF16MatchesDefinition(t *testing.T) {
	if !gemm.HasBF16() {
		t.Log("no AMX-BF16 or AVX512_BF16 here: the tiles' Go twin is checked")
	}
	cases := []struct {
		b          Board
		k, in, out int
		inputGrad  bool
	}{
		{Board{2, 10, 9}, 3, 48, 48, true},
		{Board{3, 6, 7}, 3, 32, 32, true},
		{Board{2, 4, 3}, 3, 16, 48, true},
		{Board{2, 10, 9}, 3, 15, 48, false}, // the input planes' convolution
		{Board{1, 5, 7}, 3, 16, 16, true},   // an odd number of padded pixels
		{Board{3, 5, 6}, 3, 32, 16, true},   // an even width: rows start at odd compact pixels
		{Board{300, 4, 3}, 3, 16, 32, true}, // weight-gradient blocks: more than one a part
	}
	for _, tc := range cases {
		if !bf16Fits(tc.k, tc.in, tc.out, tc.inputGrad) {
			t.Fatalf("%+v does not fit the bf16 tiles", tc)
		}
		name := fmt.Sprintf("%dx%dx%d/%d-%d", tc.b.N, tc.b.H, tc.b.W, tc.in, tc.out)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, uint64(tc.in*100+tc.out)))
			b := tc.b
			x := randSlice(rng, b.N*tc.in*b.H*b.W)
			w := randSlice(rng, tc.out*tc.in*tc.k*tc.k)
			dy := randSlice(rng, b.N*tc.out*b.H*b.W)
			xr, wr, dyr := roundBF16(x), roundBF16(w), roundBF16(dy)
			s := newConvState(b, tc.k, tc.in, tc.out, gemm.Kernels[0])
			s.inputGrad = tc.inputGrad
			s.bf = newBF16Conv(s)
			xp, dyp := toPadded(b, tc.in, x), toPadded(b, tc.out, dy)
			check := func(what string, got, exact, rounded []float32, borderOK bool) {
				t.Helper()
				if e := maxRelErr(got, rounded); e > 1e-5 || !borderOK {
					t.Fatalf("%s: relative error %.3g against the rounded operands' product, zero border %t", what, e, borderOK)
				}
				if e := maxRelErr(got, exact); e > 2e-2 {
					t.Fatalf("%s: relative error %.3g against float32", what, e)
				}
			}
			for range 2 { // the second pass reuses every buffer
				y, ok := fromPadded(b, tc.out, s.forward(xp, w).Float32s())
				check("forward", y, naiveConv(b, tc.k, tc.in, tc.out, x, w), naiveConv(b, tc.k, tc.in, tc.out, xr, wr), ok)
				if tc.inputGrad {
					dx, ok := fromPadded(b, tc.in, s.inputGradient(w, dyp, nil).Float32s())
					check("input gradient", dx, naiveInputGrad(b, tc.k, tc.in, tc.out, w, dy), naiveInputGrad(b, tc.k, tc.in, tc.out, wr, dyr), ok)
				}
				dw := s.weightGradient(xp, dyp).Float32s()
				check("weight gradient", dw, naiveWeightGrad(b, tc.k, tc.in, tc.out, x, dy), naiveWeightGrad(b, tc.k, tc.in, tc.out, xr, dyr), true)
			}
		})
	}
}

// Winograd's three products are the convolution's to within bfloat16's
// rounding of their transformed operands (each a sum of up to four
// inputs or nine weights), leave every border zero, and read no padding
// they should not: odd and even heights and widths, chunks short of the
// others, several chunks a core. On a CPU without AVX512_BF16 this checks
// the Go twins. In float32 (f32) they are the convolution's to within
// float32's rounding.
func TestConvWinograd(t *testing.T) {
	for _, f32 := range []bool{false, true} {
		testConvWinograd(t, f32)
	}
}

func testConvWinograd(t *testing.T, f32 bool) {
	tol := 1e-2
	if f32 {
		tol = 1e-4
	}
	for _, tc := range []struct {
		b         Board
		in, out   int
		inputGrad bool
	}{
		{Board{7, 10, 9}, 48, 48, true},  // Xiangqi: the last tile column half, a short chunk
		{Board{3, 6, 7}, 32, 32, true},   // Connect Four
		{Board{70, 4, 3}, 16, 48, true},  // Catch the Lion: three chunks
		{Board{2, 5, 6}, 48, 16, true},   // an odd height: the last tile row half
		{Board{1, 1, 1}, 16, 16, true},   // one pixel
		{Board{2, 10, 9}, 32, 48, false}, // no input gradient
	} {
		name := fmt.Sprintf("f32=%t/%dx%dx%d/%d-%d", f32, tc.b.N, tc.b.H, tc.b.W, tc.in, tc.out)
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(4, uint64(tc.in*100+tc.out)))
			b := tc.b
			x := randSlice(rng, b.N*tc.in*b.H*b.W)
			w := randSlice(rng, tc.out*tc.in*9)
			dy := randSlice(rng, b.N*tc.out*b.H*b.W)
			s := newConvState(b, 3, tc.in, tc.out, gemm.Kernels[0])
			s.inputGrad = tc.inputGrad
			c := newWinoConv(s, f32)
			xp, dyp := toPadded(b, tc.in, x), toPadded(b, tc.out, dy)
			y := make([]float32, b.N*b.hp()*b.wp()*tc.out)
			dx := make([]float32, b.N*b.hp()*b.wp()*tc.in)
			dw := make([]float32, tc.out*tc.in*9)
			check := func(what string, got, want []float32, borderOK bool) {
				t.Helper()
				if e := maxRelErr(got, want); e > tol || !borderOK {
					t.Fatalf("%s: relative error %.3g against float32, zero border %t", what, e, borderOK)
				}
			}
			res := randSlice(rng, b.N*tc.in*b.H*b.W)
			for pass := range 3 { // the later passes reuse every buffer
				c.forward(xp, w, y)
				got, ok := fromPadded(b, tc.out, y)
				check("forward", got, naiveConv(b, 3, tc.in, tc.out, x, w), ok)
				if pass == 1 {
					for i := range dx {
						dx[i] = 9 // the pass writes every entry it returns
					}
				}
				want := naiveInputGrad(b, 3, tc.in, tc.out, w, dy)
				if pass == 2 && tc.inputGrad {
					// A batch norm's residual gradient (AddResidualGradient),
					// added to in place.
					s.res = &BN{}
					copy(dx, toPadded(b, tc.in, res))
					for i := range want {
						want[i] += res[i]
					}
				}
				c.backward(dyp, dx, dw)
				if tc.inputGrad {
					got, ok := fromPadded(b, tc.in, dx)
					check("input gradient", got, want, ok)
				}
				check("weight gradient", dw, naiveWeightGrad(b, 3, tc.in, tc.out, x, dy), true)
			}
		})
	}
}

// With VDPBF16PS the bf16 products are taken for the three games'
// boards (in the compact layout Xiangqi computes 1.16 rows a pixel,
// Connect Four 1.14, Catch the Lion 1.33) and not for a 2x2 board (2.0),
// where the padded rows outweigh the instruction's gain; with AMX tiles
// for every board.
func TestBF16PaysByBoard(t *testing.T) {
	boards := map[string]Board{"xiangqi": {N: 1, H: 10, W: 9}, "connect4": {N: 1, H: 6, W: 7}, "lion": {N: 1, H: 4, W: 3}, "2x2": {N: 1, H: 2, W: 2}}
	amx := gemm.BF16Kernel() == "amx"
	for name, b := range boards {
		if want := amx || name != "2x2"; bf16Pays(b) != want {
			t.Errorf("%s (%dx%d): bf16Pays %t on %s", name, b.H, b.W, !want, gemm.BF16Kernel())
		}
	}
}
