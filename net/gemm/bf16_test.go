package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Rounding to bfloat16 is to the nearest, ties to even, and widening
// back is exact.
func TestToBF16(t *testing.T) {
	for _, c := range []struct {
		bits uint32
		want BF16
	}{
		{0x3F800000, 0x3F80}, // 1
		{0x3F808000, 0x3F80}, // a tie below an even: down
		{0x3F818000, 0x3F82}, // a tie below an odd: up
		{0x3F808001, 0x3F81}, // past the tie: up
		{0xBF807FFF, 0xBF80}, // below the tie, negative: down in magnitude
		{0x7F7FFFFF, 0x7F80}, // the largest float32 rounds to infinity
		{0x7F800000, 0x7F80}, // infinity stays
		{0x00000001, 0x0000}, // the smallest subnormal rounds to zero
	} {
		if got := ToBF16(math.Float32frombits(c.bits)); got != c.want {
			t.Errorf("ToBF16(%#08x) = %#04x, want %#04x", c.bits, got, c.want)
		}
	}
	for _, f := range []float32{0, 1, -2.5, 0.15625, 3.0e38} {
		if g := FromBF16(ToBF16(f)); g != f && math.Abs(float64(g-f)) > math.Abs(float64(f))/256 {
			t.Errorf("bf16 round trip of %v: %v", f, g)
		}
	}
}

// The vector conversion rounds exactly as ToBF16 at every length (whole
// blocks of 16 and tails), and leaves dst past src alone.
func TestConvertBF16MatchesToBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 15, 16, 17, 48, 70} {
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-20)))
		}
		dst := make([]BF16, n+3)
		for i := range dst {
			dst[i] = 0xABCD
		}
		ConvertBF16(dst, src)
		for i, g := range dst {
			want := BF16(0xABCD)
			if i < n {
				want = ToBF16(src[i])
			}
			if g != want {
				t.Fatalf("n %d entry %d: %#04x, want %#04x", n, i, g, want)
			}
		}
	}
}

// The transposition moves every entry to its place, for channel counts
// odd and even and pixel counts off the blocks of 16 and 32, and leaves the
// rows' other entries alone.
func TestTransposeBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ pixels, chans, cs int }{{16, 2, 2}, {33, 15, 32}, {64, 48, 64}, {5, 4, 4}, {40, 1, 2}, {48, 15, 15}, {100, 48, 48}, {70, 20, 24}} {
		src := randBF16(rng, c.pixels*c.cs)
		ds := c.pixels + 7
		dst := make([]BF16, c.chans*ds)
		for i := range dst {
			dst[i] = 0xABCD
		}
		TransposeBF16(dst, ds, src, c.cs, c.pixels, c.chans)
		for ch := range c.chans {
			for p := range ds {
				want := BF16(0xABCD)
				if p < c.pixels {
					want = src[p*c.cs+ch]
				}
				if g := dst[ch*ds+p]; g != want {
					t.Fatalf("%+v: channel %d pixel %d: %#04x, want %#04x", c, ch, p, g, want)
				}
			}
		}
	}
}

// Pixel pairs and rows come out as ToBF16 rounds each entry, for odd and
// even pixel counts, with and without the rows.
func TestConvertPixelPairsBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct{ n, ch int }{{2, 16}, {7, 32}, {10, 48}, {5, 15}, {1, 16}} {
		src := make([]float32, c.n*c.ch)
		for i := range src {
			src[i] = float32(rng.NormFloat64())
		}
		for _, withRows := range []bool{false, true} {
			np := (c.n + 1) / 2
			pairs := make([]BF16, np*2*c.ch+1)
			for i := range pairs {
				pairs[i] = 0xABCD
			}
			var rows []BF16
			if withRows {
				rows = make([]BF16, c.n*c.ch)
			}
			ConvertPixelPairsBF16(pairs, rows, src, c.n, c.ch)
			for q := range np {
				for o := range c.ch {
					for j := range 2 {
						want := BF16(0)
						if p := 2*q + j; p < c.n {
							want = ToBF16(src[p*c.ch+o])
						}
						if g := pairs[q*2*c.ch+2*o+j]; g != want {
							t.Fatalf("%+v rows %t: pair %d channel %d member %d: %#04x, want %#04x", c, withRows, q, o, j, g, want)
						}
					}
				}
			}
			if pairs[np*2*c.ch] != 0xABCD {
				t.Fatalf("%+v: wrote past the pairs", c)
			}
			for i, v := range rows {
				if v != ToBF16(src[i]) {
					t.Fatalf("%+v: row entry %d: %#04x, want %#04x", c, i, v, ToBF16(src[i]))
				}
			}
		}
	}
}

// randBF16 is n bfloat16 numbers of about unit size.
func randBF16(rng *rand.Rand, n int) []BF16 {
	v := make([]BF16, n)
	for i := range v {
		v[i] = ToBF16(float32(rng.NormFloat64()))
	}
	return v
}

// A 3x3 convolution laid out on bf16 tiles (activations read in place
// from a padded NHWC buffer, one tap an offset, the weights packed in
// pairs) agrees with its definition and with the Go twin, for channel
// counts that take one or two k-steps and one to three panels; dropped
// rows and padding stay untouched.
func TestTileBF16ConvMatchesDefinition(t *testing.T) {
	eachBF16Kernel(t, testTileBF16ConvMatchesDefinition)
}

func testTileBF16ConvMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const h, w, batch = 10, 9, 2
	wp, pp := w+2, (h+2)*(w+2)
	for _, c := range []struct{ in, out int }{{48, 48}, {32, 32}, {20, 16}, {64, 32}} {
		cs := (c.in + 31) / 32 * 32 // bf16 channel stride: whole k-steps
		np := c.out / 16
		a := make([]BF16, (batch*pp+AMXRows+2*wp+2)*cs)
		for b := range batch {
			for y := range h {
				for x := range w {
					copy(a[(b*pp+(y+1)*wp+x+1)*cs:][:c.in], randBF16(rng, c.in))
				}
			}
		}
		wt := randBF16(rng, c.out*c.in*9) // [o][c][tap]
		ks := cs / 32
		// B: tap, k-step, panel; each tile 16 rows of pairs of input channels.
		bw := make([]BF16, 9*ks*np*512)
		for tap := range 9 {
			for ci := range c.in {
				for o := range c.out {
					tile := (tap*ks+ci/32)*np + o/16
					k := ci % 32
					bw[tile*512+(k/2)*32+(o%16)*2+k%2] = wt[(o*c.in+ci)*9+tap]
				}
			}
		}
		var taps []int
		for tap := range 9 {
			taps = append(taps, ((tap/3)*wp+tap%3)*cs*2)
		}
		tb, err := NewTileBF16(TileBF16{AStride: cs * 2, Taps: taps, KSteps: ks, BStride: 64, BTap: ks * np * 1024, BK: np * 1024, BPanel: 1024, Panels: np})
		if err != nil {
			t.Fatal(err)
		}
		plan := PixelTiles(h, w, wp, pp, batch, cs*2, c.out)
		const untouched = -7
		got, twin := make([]float32, batch*pp*c.out), make([]float32, batch*pp*c.out)
		for i := range got {
			got[i], twin[i] = untouched, untouched
		}
		tb.Run(a, plan, 0, plan.Len(), bw, make([]float32, tb.ScratchLen()), got)
		tb.runGo(a, plan.tiles, bw, twin, false)
		for b := range batch {
			for y := -1; y <= h; y++ {
				for x := -1; x <= w; x++ {
					q := b*pp + (y+1)*wp + x + 1
					inside := y >= 0 && y < h && x >= 0 && x < w
					for o := range c.out {
						g, tw := got[q*c.out+o], twin[q*c.out+o]
						if !inside {
							if g != untouched || tw != untouched {
								t.Fatalf("%+v: padding pixel (%d,%d) channel %d written: %v, twin %v", c, y, x, o, g, tw)
							}
							continue
						}
						var s, abs float64
						for tap := range 9 {
							px := a[(b*pp+(y+tap/3)*wp+x+tap%3)*cs:][:c.in]
							for ci, v := range px {
								p := float64(FromBF16(v)) * float64(FromBF16(wt[(o*c.in+ci)*9+tap]))
								s, abs = s+p, abs+math.Abs(p)
							}
						}
						tol := 1e-5 * (1 + abs)
						if math.Abs(float64(g)-s) > tol || math.Abs(float64(tw)-s) > tol {
							t.Fatalf("%+v: pixel (%d,%d) of image %d channel %d: %v, twin %v, definition %v", c, y, x, b, o, g, tw, s)
						}
					}
				}
			}
		}
	}
}

// A product whose k dimension runs along A's rows in 32-wide chunks
// (one chunk a tap) and whose B rows lie wider than a tile apart, the
// weight gradient's layout, agrees with its definition.
func TestTileBF16ChunkedMatchesDefinition(t *testing.T) {
	eachBF16Kernel(t, testTileBF16ChunkedMatchesDefinition)
}

func testTileBF16ChunkedMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const m, k, n, lda, ldb = 40, 96, 48, 130, 100 // a row of B: n pairs and slack
	a := randBF16(rng, m*lda)
	b := randBF16(rng, (k/2)*ldb)
	var taps []int
	for c := 0; c < k; c += 32 {
		taps = append(taps, c*2)
	}
	tb, err := NewTileBF16(TileBF16{AStride: lda * 2, Taps: taps, KSteps: 1, BStride: ldb * 2, BTap: 16 * ldb * 2, BPanel: 64, Panels: 3})
	if err != nil {
		t.Fatal(err)
	}
	var rows []int
	var coff [][AMXRows]int
	for r0 := 0; r0 < m; r0 += AMXRows {
		var c [AMXRows]int
		for r := range c {
			c[r] = -1
			if r0+r < m {
				c[r] = (r0 + r) * n
			}
		}
		rows, coff = append(rows, r0*lda*2+6), append(coff, c) // A's columns start at 3
	}
	tiles, err := NewAMXTiles(rows, coff)
	if err != nil {
		t.Fatal(err)
	}
	a = append(a, make([]BF16, AMXRows*lda)...) // the last tile's dropped rows read past m
	got := make([]float32, m*n)
	tb.Run(a, tiles, 0, tiles.Len(), b, make([]float32, tb.ScratchLen()), got)
	for i := range m {
		for j := range n {
			var s, abs float64
			for kk := range k {
				p := float64(FromBF16(a[i*lda+3+kk])) * float64(FromBF16(b[(kk/2)*ldb+j*2+kk%2]))
				s, abs = s+p, abs+math.Abs(p)
			}
			if math.Abs(float64(got[i*n+j])-s) > 1e-5*(1+abs) {
				t.Fatalf("entry (%d,%d): %v, definition %v", i, j, got[i*n+j], s)
			}
		}
	}
}

// A long k dimension run in blocks straight into the output rows, each
// block adding to the last (RunDirect), agrees with its definition and
// with the Go twin; rows that are not evenly spaced are refused.
func TestTileBF16DirectBlocks(t *testing.T) { eachBF16Kernel(t, testTileBF16DirectBlocks) }

func testTileBF16DirectBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const m, k, n, lda, ldb, ldc, blocks = 32, 192, 48, 200, 96, 50, 3
	a := randBF16(rng, m*lda)
	b := randBF16(rng, (k/2)*ldb)
	kb := k / blocks
	var taps []int
	for c := 0; c < kb; c += 32 {
		taps = append(taps, c*2)
	}
	tb, err := NewTileBF16(TileBF16{AStride: lda * 2, Taps: taps, KSteps: 1, BStride: ldb * 2, BTap: 16 * ldb * 2, BPanel: 64, Panels: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, twin := range []bool{false, true} {
		got := make([]float32, m*ldc)
		for blk := range blocks {
			var rows []int
			var coff [][AMXRows]int
			for r0 := 0; r0 < m; r0 += AMXRows {
				var c [AMXRows]int
				for r := range c {
					c[r] = (r0 + r) * ldc
				}
				rows, coff = append(rows, (r0*lda+blk*kb)*2), append(coff, c)
			}
			tiles, err := NewAMXTiles(rows, coff)
			if err != nil {
				t.Fatal(err)
			}
			bb := b[blk*kb/2*ldb:]
			if twin {
				tb.runGo(a, tiles.tiles, bb, got, blk > 0)
			} else {
				tb.RunDirect(a, tiles, 0, tiles.Len(), bb, got, ldc, blk > 0)
			}
		}
		for i := range m {
			for j := range n {
				var s, abs float64
				for kk := range k {
					p := float64(FromBF16(a[i*lda+kk])) * float64(FromBF16(b[(kk/2)*ldb+j*2+kk%2]))
					s, abs = s+p, abs+math.Abs(p)
				}
				if math.Abs(float64(got[i*ldc+j])-s) > 1e-5*(1+abs) {
					t.Fatalf("twin %t: entry (%d,%d): %v, definition %v", twin, i, j, got[i*ldc+j], s)
				}
			}
		}
	}
	uneven, err := NewAMXTiles([]int{0}, [][AMXRows]int{{0, ldc, 5}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("unevenly spaced rows did not panic")
		}
	}()
	tb.RunDirect(a, uneven, 0, 1, b, make([]float32, m*ldc), ldc, false)
}

// Layouts the tiles cannot take are refused with a reason, and reads
// past a buffer panic before the assembly runs.
func TestTileBF16Refuses(t *testing.T) {
	for _, c := range []TileBF16{
		{Taps: []int{0}, KSteps: 1, Panels: 0},
		{Taps: []int{0}, KSteps: 1, Panels: 4},
		{KSteps: 1, Panels: 1},
		{Taps: []int{3}, KSteps: 1, Panels: 1},
		{Taps: []int{0}, KSteps: 1, Panels: 1, BStride: -64},
	} {
		if _, err := NewTileBF16(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	tb, err := NewTileBF16(TileBF16{AStride: 64, Taps: []int{0}, KSteps: 1, BStride: 64, Panels: 1})
	if err != nil {
		t.Fatal(err)
	}
	tiles, err := NewAMXTiles([]int{0}, [][AMXRows]int{{0}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a read past A did not panic")
		}
	}()
	tb.Run(make([]BF16, 16*32-1), tiles, 0, 1, make([]BF16, 512), make([]float32, tb.ScratchLen()), make([]float32, 16))
}

// BenchmarkTileBF16Conv runs one tower convolution of 64 Xiangqi boards
// (48 channels) on bf16 tiles on one thread, laid out as net/train/ops
// lays it out (a row of three taps 144 consecutive entries, five k-steps
// of 32), in GMAC/s of the real pixels and channels; compare with
// BenchmarkConv3AMX's 8-bit tiles and the fp32 tile kernels.
func BenchmarkTileBF16Conv(b *testing.B) {
	if !HasBF16() {
		b.Skip("no bf16 hardware (AMX-BF16 or AVX512_BF16)")
	}
	const h, w, batch, ch, ks = 10, 9, 64, 48, 5
	wp, pp := w+2, (h+2)*(w+2)
	rng := rand.New(rand.NewPCG(1, 2))
	a := randBF16(rng, (batch*pp+AMXRows+2*wp+2)*ch+32)
	bw := randBF16(rng, 3*ks*3*512)
	taps := []int{0, wp * ch * 2, 2 * wp * ch * 2}
	tb, err := NewTileBF16(TileBF16{AStride: ch * 2, Taps: taps, KSteps: ks, BStride: 64, BTap: ks * 3 * 1024, BK: 3 * 1024, BPanel: 1024, Panels: 3})
	if err != nil {
		b.Fatal(err)
	}
	plan := PixelTiles(h, w, wp, pp, batch, ch*2, ch)
	out, sum := make([]float32, batch*pp*ch), make([]float32, tb.ScratchLen())
	for b.Loop() {
		tb.Run(a, plan, 0, plan.Len(), bw, sum, out)
	}
	b.ReportMetric(float64(batch*h*w*9*ch*ch)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
}

// eachBF16Kernel runs check once for every kernel TileBF16 can take on
// this CPU (AMX tiles, VDPBF16PS, the plain loops), as a subtest.
func eachBF16Kernel(t *testing.T, check func(t *testing.T)) {
	t.Helper()
	kernels := []string{"go"}
	if hasAVX512BF16() {
		kernels = append(kernels, "avx512bf16")
	}
	if hasAMXBF16() {
		kernels = append(kernels, "amx")
	}
	if len(kernels) == 1 {
		t.Log("no AMX-BF16 or AVX512_BF16 here (or -tags noasm, or TABULA_ISA below avx512): only the Go twin is checked")
	}
	defer func() { bf16Force = "" }()
	for _, k := range kernels {
		bf16Force = k
		t.Run(k, check)
	}
}

// BenchmarkTransposeBF16 is the bf16 weight gradient's transposition of
// one convolution's input at Xiangqi's batch 256 (28,160 compact pixels
// of 48 channels) into channel rows.
func BenchmarkTransposeBF16(b *testing.B) {
	const pix, ch = 28160, 48
	rowLen := (pix + 64 + 31) / 32 * 32
	src := make([]BF16, pix*ch)
	dst := make([]BF16, ch*rowLen)
	b.SetBytes(int64(pix * ch * 2))
	for b.Loop() {
		TransposeBF16(dst[11:], rowLen, src, ch, pix, ch)
	}
}
