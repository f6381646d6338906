//go:build amd64 && !noasm

package gemm

import "sync"

// bf16Args is what the bf16 tile assembly reads: one call runs every
// tile with one tile configuration, so the tile registers never outlive
// the call.
type bf16Args struct {
	cfg                       *byte
	a                         *uint16
	tiles                     *amxTile
	ntiles                    int
	taps                      *int
	ntaps, ksteps             int
	astride                   int
	b                         *uint16
	bstride, btap, bk, bpanel int
	np                        int
	sum, out                  *float32
	ldc, accumulate           int // direct mode: out's row stride in bytes (0: through sum)
}

// runAsm runs the tiles; ldc > 0 (floats) is the direct mode of RunDirect.
func (t *TileBF16) runAsm(a []BF16, tiles []amxTile, b []BF16, sum, out []float32, ldc int, accumulate bool) {
	args := bf16Args{cfg: &t.cfg[0], a: &a[0], tiles: &tiles[0], ntiles: len(tiles), taps: &t.Taps[0],
		ntaps: len(t.Taps), ksteps: t.KSteps, astride: t.AStride, b: &b[0], bstride: t.BStride,
		btap: t.BTap, bk: t.BK, bpanel: t.BPanel, np: t.Panels, out: &out[0], ldc: 4 * ldc}
	if sum != nil {
		args.sum = &sum[0]
	}
	if accumulate {
		args.accumulate = 1
	}
	amxBF16(&args)
}

// runAVX512 runs the tiles with VDPBF16PS, each kept row written at its
// Coff (RunDirect's rows are the same places).
func (t *TileBF16) runAVX512(a []BF16, tiles []amxTile, b []BF16, out []float32, accumulate bool) {
	args := bf16Args{a: &a[0], tiles: &tiles[0], ntiles: len(tiles), taps: &t.Taps[0],
		ntaps: len(t.Taps), ksteps: t.KSteps, astride: t.AStride, b: &b[0], bstride: t.BStride,
		btap: t.BTap, bk: t.BK, bpanel: t.BPanel, np: t.Panels, out: &out[0]}
	if accumulate {
		args.accumulate = 1
	}
	dotBF16AVX512(&args)
}

// dotBF16AVX512 runs TileBF16.runGo's loops with VDPBF16PS, eight
// output rows and one panel at a time.
//
//go:noescape
func dotBF16AVX512(args *bf16Args)

// amxBF16 runs TileBF16.runGo's loops on the tile registers.
//
//go:noescape
func amxBF16(args *bf16Args)

// convertBF16AVX512 rounds blocks of 16 floats.
//
//go:noescape
func convertBF16AVX512(dst *uint16, src *float32, blocks int)

// bf16Vector: the AVX-512 conversions run here (asked once: CPUID is a
// trap to the hypervisor in a virtual machine).
var bf16Vector = hasAVX512()

func convertBF16(dst []BF16, src []float32) {
	blocks := len(src) / 16
	if blocks == 0 || !bf16Vector {
		convertBF16Go(dst, src)
		return
	}
	convertBF16AVX512(&dst[0], &src[0], blocks)
	convertBF16Go(dst[16*blocks:], src[16*blocks:])
}

// transposeBF16x32AVX512 transposes blocks of 32 pixels by groups of 8
// channels in registers: four 16-byte loads a register (the group's
// channels of pixels i, i+8, i+16, i+24), an 8x8 transpose of words in
// every 128-bit lane (three rounds of unpacks), and one 64-byte store a
// channel. It needs AVX512BW.
//
//go:noescape
func transposeBF16x32AVX512(dst *uint16, dstStride int, src *uint16, srcStride, blocks, groups int)

// bf16Words: AVX512BW's word shuffles run here.
var bf16Words = bf16Vector && hasAVX512BW()

func hasAVX512BW() bool {
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<30) != 0
}

// transposeBF16 takes whole blocks of 32 pixels and groups of 8 channels
// in registers where AVX512BW is (every AVX-512 CPU since Skylake-SP), the
// edges, under 32 pixels or 8 channels a call, in Go.
func transposeBF16(dst []BF16, dstStride int, src []BF16, srcStride, pixels, chans int) {
	n, g := 32*(pixels/32), 8*(chans/8)
	if !bf16Words || n == 0 || g == 0 {
		transposeBF16Go(dst, dstStride, src, srcStride, pixels, chans)
		return
	}
	transposeBF16x32AVX512(&dst[0], dstStride, &src[0], srcStride, n/32, g/8)
	if g < chans {
		transposeBF16Go(dst[g*dstStride:], dstStride, src[g:], srcStride, n, chans-g)
	}
	if n < pixels {
		transposeBF16Go(dst[n:], dstStride, src[n*srcStride:], srcStride, pixels-n, chans)
	}
}

// convertPixelPairsAVX512 is convertPixelPairsBF16Go for npairs whole
// pairs of ch channels (a multiple of 16); rows may be nil.
//
//go:noescape
func convertPixelPairsAVX512(pairs, rows *uint16, src *float32, npairs, ch int)

func convertPixelPairsBF16(pairs, rows []BF16, src []float32, n, ch int) {
	if ch%16 != 0 || n < 2 || !bf16Vector {
		convertPixelPairsBF16Go(pairs, rows, src, n, ch)
		return
	}
	var r *uint16
	if rows != nil {
		r = &rows[0]
	}
	convertPixelPairsAVX512(&pairs[0], r, &src[0], n/2, ch)
	if n%2 == 1 {
		p := n - 1
		var rest []BF16
		if rows != nil {
			rest = rows[p*ch:]
		}
		convertPixelPairsBF16Go(pairs[(p/2)*2*ch:], rest, src[p*ch:], 1, ch)
	}
}

// hasAVX512BF16 reports AVX-512 with its BF16 extension (VDPBF16PS;
// CPUID leaf 7, subleaf 1, EAX bit 5), asked once.
var hasAVX512BF16 = sync.OnceValue(func() bool {
	return hasAVX512() && leaf7Sub1EAX()&(1<<5) != 0
})

var amxBF16Once struct {
	sync.Once
	ok bool
}

// hasAMXBF16 reports AMX-TILE and AMX-BF16 granted to this process
// (amxGranted).
func hasAMXBF16() bool {
	amxBF16Once.Do(func() { amxBF16Once.ok = amxGranted(1 << 22) })
	return amxBF16Once.ok
}

// winogradInputAVX512 is winogradInputGo on vectors of 16 channels.
//
//go:noescape
func winogradInputAVX512(v *uint16, xiStride int, r0, r1, r2, r3 *float32, tiles, ch int)

// winogradOutputAVX512 is winogradOutputGo on vectors of 16 channels
// (y1 nil: the first row only; half 1: the last tile's first column only).
//
//go:noescape
func winogradOutputAVX512(y0, y1 *float32, m *float32, xiStride, tiles, half, ch int)

// dotPairsBF16AVX512 is dotPairsBF16Go for groups of eight rows.
//
//go:noescape
func dotPairsBF16AVX512(c *float32, ldc int, a *uint16, lda, groups int, b *uint16, kp, np, accumulate int)

// winogradDyAVX512 is winogradDyGo on vectors of 16 channels.
//
//go:noescape
func winogradDyAVX512(e *uint16, xiStride int, dy0, dy1 *float32, tiles, ch int)

// winogradGradInputAVX512 is winogradGradInputGo on vectors of 16
// channels.
//
//go:noescape
func winogradGradInputAVX512(r0, r1, r2, r3 *float32, n *float32, xiStride, tiles, ch, fresh int)

// pairRowsAVX512 is pairRowsBF16Go on vectors of 16 channels.
//
//go:noescape
func pairRowsAVX512(pairs, rows *uint16, n, ch int)

func winogradDy(e []BF16, xiStride int, dy [2][]float32, tiles, ch int) {
	if !hasAVX512BF16() {
		winogradDyGo(e, xiStride, dy, tiles, ch)
		return
	}
	winogradDyAVX512(&e[0], xiStride, &dy[0][0], &dy[1][0], tiles, ch)
}

func winogradGradInput(rows [4][]float32, n []float32, xiStride, tiles, ch int, fresh bool) {
	f := 0
	if fresh {
		f = 1
	}
	if !bf16Vector {
		if winoAVX2 {
			winogradGradInputAVX2(&rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], &n[0], xiStride, tiles, ch, f)
			return
		}
		winogradGradInputGo(rows, n, xiStride, tiles, ch, fresh)
		return
	}
	winogradGradInputAVX512(&rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], &n[0], xiStride, tiles, ch, f)
}

func pairRowsBF16(pairs, rows []BF16, n, ch int) {
	if !bf16Words || n == 0 {
		pairRowsBF16Go(pairs, rows, n, ch)
		return
	}
	pairRowsAVX512(&pairs[0], &rows[0], n, ch)
}

func winogradInput(v []BF16, xiStride int, rows [4][]float32, tiles, ch int) {
	if !hasAVX512BF16() {
		winogradInputGo(v, xiStride, rows, tiles, ch)
		return
	}
	winogradInputAVX512(&v[0], xiStride, &rows[0][0], &rows[1][0], &rows[2][0], &rows[3][0], tiles, ch)
}

func winogradOutput(y0, y1 []float32, m []float32, xiStride, tiles int, half bool, ch int) {
	var p1 *float32
	if y1 != nil {
		p1 = &y1[0]
	}
	h := 0
	if half {
		h = 1
	}
	if !bf16Vector {
		if winoAVX2 {
			winogradOutputAVX2(&y0[0], p1, &m[0], xiStride, tiles, h, ch)
			return
		}
		winogradOutputGo(y0, y1, m, xiStride, tiles, half, ch)
		return
	}
	winogradOutputAVX512(&y0[0], p1, &m[0], xiStride, tiles, h, ch)
}

func dotPairsBF16(c []float32, ldc int, a []BF16, lda, rows int, b []BF16, kp, np int, accumulate bool) {
	groups := rows / 8
	if !hasAVX512BF16() || groups == 0 {
		dotPairsBF16Go(c, ldc, a, lda, rows, b, kp, np, accumulate)
		return
	}
	acc := 0
	if accumulate {
		acc = 1
	}
	dotPairsBF16AVX512(&c[0], ldc, &a[0], lda, groups, &b[0], kp, np, acc)
	if r := 8 * groups; r < rows {
		dotPairsBF16Go(c[r*ldc:], ldc, a[r*lda:], lda, rows-r, b, kp, np, accumulate)
	}
}

// winogradFiltersAVX512 is winogradFiltersGo, 16 input channels of two
// output channels at a time.
//
//go:noescape
func winogradFiltersAVX512(u, ut *uint16, w *float32, in, out, o0, o1 int)

// winogradFilterGradsAVX512 is winogradFilterGradsGo for one or two
// parts (du1 nil: one), 16 output channels at a time.
//
//go:noescape
func winogradFilterGradsAVX512(dw, du0, du1 *float32, in, out, c0, c1 int)

func winogradFilters(u, ut []BF16, w []float32, in, out, o0, o1 int) {
	if !bf16Vector || o0 == o1 {
		winogradFiltersGo(u, ut, w, in, out, o0, o1)
		return
	}
	winogradFiltersAVX512(&u[0], &ut[0], &w[0], in, out, o0, o1)
}

func winogradFilterGrads(dw []float32, du [][]float32, in, out, c0, c1 int) {
	if !bf16Vector || c0 == c1 {
		winogradFilterGradsGo(dw, du, in, out, c0, c1)
		return
	}
	if len(du) > 2 {
		// Past two parts, the others are added into the first (its
		// entries of these input channels only), in part order.
		for e := range 16 {
			rows := du[0][(e*in+c0)*out : (e*in+c1)*out]
			for _, p := range du[1:] {
				for i, v := range p[(e*in+c0)*out : (e*in+c1)*out] {
					rows[i] += v
				}
			}
		}
		du = du[:1]
	}
	var du1 *float32
	if len(du) == 2 {
		du1 = &du[1][0]
	}
	winogradFilterGradsAVX512(&dw[0], &du[0][0], du1, in, out, c0, c1)
}
