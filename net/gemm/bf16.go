package gemm

import (
	"cmp"
	"fmt"
	"math"
)

// BF16 is a bfloat16 number: the upper half of a float32.
type BF16 = uint16

// ToBF16 rounds f to the nearest bfloat16 (ties to even), as
// VCVTNEPS2BF16 does for finite numbers.
func ToBF16(f float32) BF16 {
	u := math.Float32bits(f)
	return BF16((u + 0x7FFF + (u>>16)&1) >> 16)
}

// FromBF16 is b widened to float32 (exact).
func FromBF16(b BF16) float32 { return math.Float32frombits(uint32(b) << 16) }

// ConvertBF16 rounds src into dst[:len(src)].
func ConvertBF16(dst []BF16, src []float32) {
	if len(dst) < len(src) {
		panic(fmt.Sprintf("gemm: %d floats into %d bfloat16s", len(src), len(dst)))
	}
	convertBF16(dst, src)
}

func convertBF16Go(dst []BF16, src []float32) {
	for i, v := range src {
		dst[i] = ToBF16(v)
	}
}

// TransposeBF16 writes the first chans channels of pixels bfloat16
// pixels (src's rows srcStride apart) as rows of dst (dstStride apart):
// dst[c*dstStride+p] = src[p*srcStride+c].
func TransposeBF16(dst []BF16, dstStride int, src []BF16, srcStride, pixels, chans int) {
	if pixels == 0 || chans == 0 {
		return
	}
	if chans > srcStride || pixels > dstStride || (pixels-1)*srcStride+chans > len(src) || (chans-1)*dstStride+pixels > len(dst) {
		panic(fmt.Sprintf("gemm: transposing %d pixels of %d channels (strides %d, %d) from %d into %d", pixels, chans, srcStride, dstStride, len(src), len(dst)))
	}
	transposeBF16(dst, dstStride, src, srcStride, pixels, chans)
}

func transposeBF16Go(dst []BF16, dstStride int, src []BF16, srcStride, pixels, chans int) {
	for c := range chans {
		row := dst[c*dstStride:][:pixels]
		for p := range row {
			row[p] = src[p*srcStride+c]
		}
	}
}

// ConvertPixelPairsBF16 rounds n pixels of ch channels (src, NHWC) into
// pairs of pixels, pairs[q*2*ch + 2*o + j] from pixel 2q+j's channel o
// (an odd last pixel paired with zeros), and, when rows is not nil, into
// rows, the same NHWC layout in bfloat16: one pass over src for both of
// the bf16 convolution gradients' copies of dy.
func ConvertPixelPairsBF16(pairs, rows []BF16, src []float32, n, ch int) {
	np := (n + 1) / 2
	if len(src) < n*ch || len(pairs) < np*2*ch || (rows != nil && len(rows) < n*ch) {
		panic(fmt.Sprintf("gemm: %d pixels of %d channels from %d floats into %d pairs and %d rows", n, ch, len(src), len(pairs), len(rows)))
	}
	convertPixelPairsBF16(pairs, rows, src, n, ch)
}

func convertPixelPairsBF16Go(pairs, rows []BF16, src []float32, n, ch int) {
	for p := range n {
		for o, v := range src[p*ch : (p+1)*ch] {
			b := ToBF16(v)
			pairs[(p/2)*2*ch+2*o+p%2] = b
			if rows != nil {
				rows[p*ch+o] = b
			}
		}
	}
	if n%2 == 1 {
		last := pairs[(n/2)*2*ch:][:2*ch]
		for o := range ch {
			last[2*o+1] = 0
		}
	}
}

// HasBF16 reports whether TileBF16 runs in bfloat16 hardware here: on
// AMX tiles (AMX-BF16, granted by the OS) or with AVX512_BF16's
// VDPBF16PS; elsewhere it runs its plain-loop twin, far slower than the
// fp32 kernels.
func HasBF16() bool { return hasAMXBF16() || hasAVX512BF16() }

// BF16Kernel names the hardware TileBF16 runs on: "amx", "avx512bf16",
// or "go" (the plain loops).
func BF16Kernel() string {
	switch {
	case hasAMXBF16():
		return "amx"
	case hasAVX512BF16():
		return "avx512bf16"
	}
	return "go"
}

// TileBF16 is a sum of products of bfloat16 matrices on AMX tiles
// (TDPBF16PS: a 16-row tile of A, 32 bfloat16 a row, times a tile of B
// holding 32 rows in pairs, into 16x16 float32 sums). Each tile of
// output rows reads its A rows AStride bytes apart from the tile's Row
// (AMXTiles) plus, for every tap, that tap's byte offset plus 64 bytes a
// k-step; its B tile for tap t, k-step s and panel j of 16 columns
// starts at byte t*BTap + s*BK + j*BPanel, with rows (pairs of k) BStride
// bytes apart and the two members of a pair next to each other. The
// Panels*16 sums of each output row kept are stored at its Coff.
//
// Convolutions read their activations in place (a tap is an offset in a
// padded image, as in Conv3AMX), and a weight gradient reads dy's pixels
// as the k dimension (a tap is then a chunk of 32 pixels).
type TileBF16 struct {
	AStride            int
	Taps               []int
	KSteps             int
	BStride, BTap, BK  int
	BPanel             int
	Panels             int // 1 to 3
	cfg                [64]byte
	maxTap, bEnd, sumN int
}

// NewTileBF16 checks the layout and prepares the tile configuration.
func NewTileBF16(t TileBF16) (*TileBF16, error) {
	if t.Panels < 1 || t.Panels > 3 {
		return nil, fmt.Errorf("gemm: a bf16 tile product of %d panels (1 to 3)", t.Panels)
	}
	if len(t.Taps) == 0 || t.KSteps < 1 {
		return nil, fmt.Errorf("gemm: a bf16 tile product of %d taps and %d k-steps", len(t.Taps), t.KSteps)
	}
	if t.AStride < 0 || t.BStride < 0 || t.BTap < 0 || t.BK < 0 || t.BPanel < 0 {
		return nil, fmt.Errorf("gemm: a bf16 tile product with a negative stride (%+v)", t)
	}
	for _, o := range t.Taps {
		if o < 0 || o%2 != 0 {
			return nil, fmt.Errorf("gemm: a bf16 tap at byte %d", o)
		}
		t.maxTap = max(t.maxTap, o)
	}
	t.Taps = append([]int(nil), t.Taps...)
	t.bEnd = (len(t.Taps)-1)*t.BTap + (t.KSteps-1)*t.BK + (t.Panels-1)*t.BPanel + (AMXRows-1)*t.BStride + 64
	t.sumN = AMXRows * 16 * t.Panels
	// Palette 1; tiles 0..Panels-1 the sums, 3 the rows of A, 4..3+Panels
	// the tiles of B: 16 rows of 64 bytes each.
	t.cfg[0] = 1
	for j := range t.Panels {
		t.cfg[16+2*j], t.cfg[48+j] = 64, AMXRows
		t.cfg[16+2*(4+j)], t.cfg[48+4+j] = 64, AMXRows
	}
	t.cfg[16+2*3], t.cfg[48+3] = 64, AMXRows
	return &t, nil
}

// ScratchLen is the float32 scratch Run needs.
func (t *TileBF16) ScratchLen() int { return t.sumN }

// Run computes tiles [i0, i1) of tiles: A from a, B from b, into out,
// through sum (ScratchLen floats) for the rows kept. The bounds are
// checked before the assembly runs; an out-of-range one panics, a
// caller's bug.
func (t *TileBF16) Run(a []BF16, tiles *AMXTiles, i0, i1 int, b []BF16, sum, out []float32) {
	if len(sum) < t.sumN {
		panic(fmt.Sprintf("gemm: bf16 scratch of %d floats, want %d", len(sum), t.sumN))
	}
	t.run(a, tiles, i0, i1, b, sum, out, 0, false)
}

// RunDirect is Run for a list whose tiles' 16 output rows all lie ldc
// floats apart, none dropped (recorded when the list is made): the sums go to out straight
// from the tile registers, and with accumulate they are added to what
// out holds, so that a long k dimension can be run in blocks that keep
// their operands in the caches.
func (t *TileBF16) RunDirect(a []BF16, tiles *AMXTiles, i0, i1 int, b []BF16, out []float32, ldc int, accumulate bool) {
	if ldc < 16*t.Panels || tiles.rowStride != ldc {
		panic(fmt.Sprintf("gemm: bf16 output rows %d floats apart for %d panels, the tiles' %d", ldc, t.Panels, tiles.rowStride))
	}
	t.run(a, tiles, i0, i1, b, nil, out, ldc, accumulate)
}

// run checks the bounds of tiles [i0, i1) and runs them, through sum
// (ldc 0) or straight into out's rows ldc floats apart.
func (t *TileBF16) run(a []BF16, tiles *AMXTiles, i0, i1 int, b []BF16, sum, out []float32, ldc int, accumulate bool) {
	if i0 < 0 || i1 > tiles.Len() || i0 > i1 {
		panic(fmt.Sprintf("gemm: bf16 tiles [%d, %d) of %d", i0, i1, tiles.Len()))
	}
	if i0 == i1 {
		return
	}
	if end := tiles.maxRow[i1-1] + t.maxTap + (t.KSteps-1)*64 + (AMXRows-1)*t.AStride + 64; end > 2*len(a) {
		panic(fmt.Sprintf("gemm: bf16 tiles read A to byte %d of %d", end, 2*len(a)))
	}
	if t.bEnd > 2*len(b) {
		panic(fmt.Sprintf("gemm: bf16 tiles read B to byte %d of %d", t.bEnd, 2*len(b)))
	}
	if end := tiles.maxWriter[i1-1] + 16*t.Panels; end > len(out) {
		panic(fmt.Sprintf("gemm: bf16 tiles write to %d of %d", end, len(out)))
	}
	ts := tiles.tiles[i0:i1]
	switch cmp.Or(bf16Force, BF16Kernel()) {
	case "amx":
		t.runAsm(a, ts, b, sum, out, ldc, accumulate)
	case "avx512bf16":
		t.runAVX512(a, ts, b, out, accumulate)
	default:
		t.runGo(a, ts, b, out, accumulate)
	}
}

// bf16Force, when set by a test, names the kernel Run takes instead of
// the widest (BF16Kernel), so that each kernel this CPU has is checked.
var bf16Force string

// runGo is Run (and RunDirect) in plain loops: the assembly's twin. Each
// pair of products is added to the sum together, as TDPBF16PS does.
func (t *TileBF16) runGo(a []BF16, tiles []amxTile, b []BF16, out []float32, accumulate bool) {
	for _, tl := range tiles {
		for r, off := range tl.Coff {
			if off < 0 {
				continue
			}
			for n := range 16 * t.Panels {
				var s float32
				if accumulate {
					s = out[off+n]
				}
				for tap, to := range t.Taps {
					for ks := range t.KSteps {
						ar := a[(tl.Row+to+ks*64+r*t.AStride)/2:][:32]
						bt := (tap*t.BTap + ks*t.BK + (n/16)*t.BPanel) / 2
						for k := 0; k < 32; k += 2 {
							bp := b[bt+(k/2)*t.BStride/2+(n%16)*2:][:2]
							s += FromBF16(ar[k])*FromBF16(bp[0]) + FromBF16(ar[k+1])*FromBF16(bp[1])
						}
					}
				}
				out[off+n] = s
			}
		}
	}
}
