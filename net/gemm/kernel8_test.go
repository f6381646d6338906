package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomTile8 builds a Tile8 with random geometry over fresh buffers for
// panel width nr; with alias the residual is the output buffer itself.
// Activations and weights span their whole ranges (0..maxA, -128..127).
func randomTile8(rng *rand.Rand, nr int, maxA uint8, alias bool) *Tile8 {
	return randomTile8Len(rng, nr, maxA, 4*(1+rng.IntN(40)), alias)
}

// randomTile8Len is randomTile8 with segments of seglen bytes.
func randomTile8Len(rng *rand.Rand, nr int, maxA uint8, seglen int, alias bool) *Tile8 {
	nseg := 1 + rng.IntN(3)
	segstride := rng.IntN(2 * seglen)
	span := (nseg-1)*segstride + seglen
	t := &Tile8{NSeg: nseg, SegLen: seglen, SegStride: segstride, ReLU: rng.IntN(2) == 0,
		Aoff: make([]int, MR), Coff: make([]int, MR)}
	t.A = make([]uint8, span+rng.IntN(100))
	for i := range t.A {
		t.A[i] = uint8(rng.IntN(int(maxA) + 1))
	}
	t.W = make([]int8, nseg*seglen*nr)
	for i := range t.W {
		t.W[i] = int8(rng.IntN(256) - 128)
	}
	t.Scale, t.Bias = make([]float32, nr), randSlice(rng, nr)
	for i := range t.Scale {
		t.Scale[i] = float32(rng.Float64()) * 1e-4
	}
	t.C = randSlice(rng, MR*nr+rng.IntN(64))
	for r := range MR {
		t.Aoff[r] = rng.IntN(len(t.A) - span + 1)
	}
	for _, r := range rng.Perm(MR) {
		t.Coff[r] = r * nr
	}
	shift := rng.IntN(len(t.C) - MR*nr + 1)
	for r := range t.Coff {
		t.Coff[r] += shift
	}
	switch {
	case alias:
		t.Res = t.C
	case rng.IntN(2) == 0:
		t.Res = randSlice(rng, len(t.C))
	}
	return t
}

func cloneTile8(t *Tile8) *Tile8 {
	u := *t
	u.C = append([]float32(nil), t.C...)
	switch {
	case t.Res == nil:
	case &t.Res[0] == &t.C[0]:
		u.Res = u.C
	default:
		u.Res = append([]float32(nil), t.Res...)
	}
	return &u
}

// allKernels8 is every 8-bit kernel this machine runs (the AVX2 one too
// where VNNI hides it from Kernel8For) and the pure-Go ones.
func allKernels8(t *testing.T) []Kernel8 {
	kernels := Kernels8()
	if len(kernels) == 0 {
		t.Log("no AVX2 here (or -tags noasm): only the pure-Go 8-bit kernel is checked")
	}
	return append(kernels, Kernel8Go(16), Kernel8Go(32), Kernel8Go(48))
}

// Every 8-bit kernel this machine runs agrees with the plain loop on
// activations up to its MaxA: the integer sums exactly, the epilogue up
// to the fused multiply-add's one rounding; outputs outside the tile are
// untouched.
func TestKernels8MatchRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, k := range allKernels8(t) {
		for i := range 300 {
			tile := randomTile8(rng, k.NR, k.MaxA, i%5 == 0)
			want := cloneTile8(tile)
			Ref8(want, k.NR)
			got := cloneTile8(tile)
			k.Run(got)
			for j := range got.C {
				if d := math.Abs(float64(got.C[j] - want.C[j])); d > 1e-5*(1+math.Abs(float64(want.C[j]))) {
					t.Fatalf("%s, tile %d: C[%d] = %v, the plain loop %v", k.Name, i, j, got.C[j], want.C[j])
				}
			}
		}
	}
}

// Every kernel's integer sums are the plain loop's bit for bit: with unit
// scales, zero biases and no residual or ReLU, C holds the sums
// themselves (below 2^24, so exact in float32), over random tiles and
// every segment length from one quad to past the unrolled loop's 16 bytes.
func TestKernels8SumsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, k := range allKernels8(t) {
		for i := range 400 {
			seglen := 4 * (1 + rng.IntN(40))
			if i < 40 {
				// Every short segment: the tail loop alone, the 4-quad loop
				// alone, both.
				seglen = 4 * (1 + i%10)
			}
			tile := randomTile8Len(rng, k.NR, k.MaxA, seglen, false)
			for o := range k.NR {
				tile.Scale[o], tile.Bias[o] = 1, 0
			}
			tile.Res, tile.ReLU = nil, false
			want := cloneTile8(tile)
			Ref8(want, k.NR)
			got := cloneTile8(tile)
			k.Run(got)
			for j := range got.C {
				if got.C[j] != want.C[j] {
					t.Fatalf("%s, tile %d (%d segments of %d): C[%d] = %v, the plain loop %v", k.Name, i, tile.NSeg, tile.SegLen, j, got.C[j], want.C[j])
				}
			}
		}
	}
}

// The kernels' sums are exact at the extremes: every product at
// MaxA * -128 (255 or 127) over the longest segments a layer has.
func TestKernels8Extremes(t *testing.T) {
	for _, k := range allKernels8(t) {
		seglen := 3 * 3 * 64 // a 3x3 patch row of 64 channels... times three segments
		tile := &Tile8{NSeg: 3, SegLen: seglen, SegStride: seglen, A: make([]uint8, 3*seglen+MR), W: make([]int8, 3*seglen*k.NR),
			Scale: make([]float32, k.NR), Bias: make([]float32, k.NR), C: make([]float32, MR*k.NR), Aoff: make([]int, MR), Coff: make([]int, MR)}
		for i := range tile.A {
			tile.A[i] = k.MaxA
		}
		for i := range tile.W {
			tile.W[i] = -128
		}
		for i := range tile.Scale {
			tile.Scale[i] = 1
		}
		for r := range MR {
			tile.Coff[r] = r * k.NR
		}
		k.Run(tile)
		want := float32(3 * seglen * int(k.MaxA) * -128)
		for j, v := range tile.C {
			if v != want {
				t.Fatalf("%s: C[%d] = %v, want %v", k.Name, j, v, want)
			}
		}
	}
}

// Pack8 puts row k's weight of column o at byte 4 of quad k/4, column o.
func TestPack8(t *testing.T) {
	const kdim, nr = 8, 3
	w := make([]int8, kdim*nr)
	for i := range w {
		w[i] = int8(i)
	}
	p := Pack8(w, kdim, nr)
	for k := range kdim {
		for o := range nr {
			if got := p[((k/4)*nr+o)*4+k%4]; got != w[k*nr+o] {
				t.Fatalf("w[%d][%d] = %d packed as %d", k, o, w[k*nr+o], got)
			}
		}
	}
}

// A tile that would read or write out of bounds is refused before the
// assembly runs.
func TestCheckTile8(t *testing.T) {
	k := Kernel8For(48)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, breakIt := range []func(*Tile8){
		func(t *Tile8) { t.SegLen = 6 },
		func(t *Tile8) { t.Aoff[3] = len(t.A) },
		func(t *Tile8) { t.Coff[5] = len(t.C) - 1 },
		func(t *Tile8) { t.W = t.W[:len(t.W)-1] },
	} {
		tile := randomTile8(rng, k.NR, k.MaxA, false)
		breakIt(tile)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s ran a bad tile", k.Name)
				}
			}()
			k.Run(tile)
		}()
	}
}

// BenchmarkTile8 compares the 8-bit kernel with the fp32 kernel of the
// same width on a 3x3 convolution's tile of 48 channels (Xiangqi's tower),
// in multiply-adds a second.
func BenchmarkTile8(b *testing.B) {
	const c = 48
	rng := rand.New(rand.NewPCG(3, 4))
	seglen := 3 * c
	k8, k32 := Kernel8For(c), For(c)
	t8 := &Tile8{NSeg: 3, SegLen: seglen, SegStride: seglen, A: make([]uint8, 3*seglen), W: make([]int8, 3*seglen*k8.NR),
		Scale: make([]float32, k8.NR), Bias: make([]float32, k8.NR), C: make([]float32, MR*k8.NR), Aoff: make([]int, MR), Coff: make([]int, MR), ReLU: true}
	t32 := &Tile{NSeg: 3, SegLen: seglen, SegStride: seglen, A: randSlice(rng, 3*seglen), W: randSlice(rng, 3*seglen*k32.NR),
		Bias: make([]float32, k32.NR), C: make([]float32, MR*k32.NR), Aoff: make([]int, MR), Coff: make([]int, MR), ReLU: true}
	for r := range MR {
		t8.Coff[r], t32.Coff[r] = r*k8.NR, r*k32.NR
	}
	macs := float64(MR * 3 * seglen * c)
	b.Run(k8.Name, func(b *testing.B) {
		for b.Loop() {
			k8.Run(t8)
		}
		b.ReportMetric(macs*float64(b.N)/1e9/b.Elapsed().Seconds(), "GMAC/s")
	})
	b.Run(k32.Name, func(b *testing.B) {
		for b.Loop() {
			k32.Run(t32)
		}
		b.ReportMetric(macs*float64(b.N)/1e9/b.Elapsed().Seconds(), "GMAC/s")
	})
}

// Kernel8For picks a VNNI kernel (8-bit activations) where the CPU has
// one, else the AVX2 kernel (7-bit) where it has AVX2 (also under
// TABULA_ISA=avx2 on a VNNI machine), else the pure-Go twin.
func TestKernel8ForDispatch(t *testing.T) {
	for _, n := range []int{16, 32, 48, 64, 96, 128} {
		k := Kernel8For(n)
		switch {
		case HasVNNI():
			if k.MaxA != 255 || k.Name == "avx2x8x16" || k.Name == "go8x16" {
				t.Errorf("VNNI CPU: Kernel8For(%d) = %s (MaxA %d)", n, k.Name, k.MaxA)
			}
		case Features().AVX2:
			if k.Name != "avx2x8x16" || k.MaxA != 127 || k.NR != 16 {
				t.Errorf("AVX2 CPU without VNNI: Kernel8For(%d) = %s (MaxA %d)", n, k.Name, k.MaxA)
			}
		default:
			if k.Name != "go8x16" || k.MaxA != 255 {
				t.Errorf("no assembly: Kernel8For(%d) = %s (MaxA %d)", n, k.Name, k.MaxA)
			}
		}
	}
	t.Logf("Kernel8For(48) = %s", Kernel8For(48).Name)
}
