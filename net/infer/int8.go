package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/gemm"
)

// The 8-bit tower. The residual tower holds nearly all of a network's
// multiply-adds; its convolutions read activations that follow a ReLU,
// so they quantize to unsigned bytes with zero at zero (the padding stays
// exact), and the 8-bit kernel (AVX-512 VNNI or AVX-VNNI where the CPU has one) does
// four times the fp32 kernel's work per instruction. On an AVX2 CPU
// without VNNI the kernel sums byte pairs in saturating 16-bit lanes, so
// its activations keep to 7 bits (0..127, the kernel's MaxA): the scales
// and the input's unit follow the kernel's MaxA. Weights are
// quantized once, symmetrically, with a scale per output channel (after
// batch norm is folded in). Each layer's activation scale is fixed once,
// from the activations calibration positions produce in the fp32 net, so
// a position's evaluation never depends on the others in its batch (a
// scale measured per batch would). The input convolution runs in 8 bits
// too where every encoder plane lies in [0, 1] (every game's encoder here:
// piece planes of 0 and 1, clocks and counts scaled into [0, 1]): a byte
// of unit steps (tower8.unit) holds 0, 1 and halves exactly; a batch with a plane
// outside [0, 1] (which no encoder here makes, so that a position's
// evaluation still does not depend on its batch) takes the fp32 input
// convolution instead. Its weights
// take two 8-bit digits (two passes of the kernel, hi*ws + lo*ws/128):
// rounded to one, they alone moved a trained Xiangqi network's outputs
// further from fp32 than the whole tower does. The heads stay fp32: a
// small share of the work that the value is most sensitive to.

// tower8 is the 8-bit form of the tower: per convolution its packed
// weights, the per-column dequantization (weight scale) and the fixed
// scale of its input activations.
type tower8 struct {
	kern     gemm.Kernel8
	in, inLo *layer8 // the input convolution's two digits over bytes of unit() (nil: fp32)
	cs       int     // its input's channel stride, the planes rounded up to 4
	layers   []layer8
	amx      []*gemm.Conv3AMX // the layers on AMX tiles where the CPU has them, else nil
}

type layer8 struct {
	nseg, seglen, segstride int
	panels                  int
	w                       []int8    // panel j at j*kdim*nr, gemm.Pack8's layout
	scale                   []float32 // input scale x weight scale, per column
	bias                    []float32
	in                      float32 // input activation scale: a byte q means q*in
}

// NewInt8 is New with the residual tower in 8 bits. calib holds n
// positions' planes ([n][c][h][w]) that fix each tower layer's activation
// scale: use positions like the ones the net will see (a few hundred
// from games of the network's game). It returns an error if the
// network's filters are not a multiple of 4 or calib is malformed.
func NewInt8(p *net.Params, maxBatch int, calib []float32, n int) (*Net, error) {
	return newInt8(p, maxBatch, calib, n, gemm.Kernel8For(p.Spec.Filters))
}

// newInt8 is NewInt8 on the 8-bit kernel k (the pure-Go twin where the
// channel stride is not a multiple of its width).
func newInt8(p *net.Params, maxBatch int, calib []float32, n int, k gemm.Kernel8) (*Net, error) {
	fp, err := New(p, maxBatch)
	if err != nil {
		return nil, err
	}
	s := p.Spec
	if n < 1 || len(calib) != n*s.Channels*s.Height*s.Width {
		return nil, fmt.Errorf("infer: %d calibration values for %d positions of %d planes of %dx%d", len(calib), n, s.Channels, s.Height, s.Width)
	}
	if fp.fp%4 != 0 {
		return nil, fmt.Errorf("infer: 8-bit tower needs a channel stride that is a multiple of 4, have %d", fp.fp)
	}
	// The activations each tower convolution reads over the calibration
	// positions: its scale clips the rarest (calibClip) rather than
	// spending the bytes' range on a few outliers.
	seen := make([][]float32, len(fp.tower))
	fp.observe = func(i int, a []float32, batch int) {
		seen[i] = fp.appendActivations(seen[i], a, batch)
	}
	in := s.Channels * s.Height * s.Width
	pol, val := make([]float32, maxBatch*s.Actions), make([]float32, maxBatch)
	for lo := 0; lo < n; lo += maxBatch {
		b := min(maxBatch, n-lo)
		if err := fp.Forward(calib[lo*in:(lo+b)*in], b, pol[:b*s.Actions], val[:b]); err != nil {
			return nil, err
		}
	}
	fp.observe = nil

	if fp.fp%k.NR != 0 {
		k = gemm.Kernel8Go(16) // the tower's stride is a multiple of 16
	}
	t := &tower8{kern: k}
	if unitPlanes(calib) {
		t.cs = gemm.RoundUp(s.Channels, 4)
		in, lo := packConv3Int8(&p.Input, t.cs, fp.wp, k.NR, 1/t.unit(), true)
		t.in, t.inLo = &in, lo
	}
	for i := range p.Blocks {
		for j, c := range []*net.ConvBN{&p.Blocks[i].A, &p.Blocks[i].B} {
			scale := quantile(seen[2*i+j], calibClip) / float32(k.MaxA)
			if scale == 0 || math.IsInf(float64(scale), 0) || math.IsNaN(float64(scale)) {
				scale = 1 // nothing above zero was seen: every byte is 0
			}
			l, _ := packConv3Int8(c, fp.fp, fp.wp, k.NR, scale, false)
			t.layers = append(t.layers, l)
		}
	}
	wt := *fp.weights
	wt.t8 = t
	if t.in != nil {
		wt.inA8 = make([]int, len(wt.inA))
		for i, a := range wt.inA {
			wt.inA8[i] = a / s.Channels * t.cs // the same padded pixel
		}
	}
	if gemm.HasAMX() {
		if t.amx = amxTower(t, fp.fp, fp.wp); t.amx != nil {
			wt.amxPlan = t.amx[0].Tiles(wt.h, wt.w, wt.pp, wt.maxBatch)
		}
	}
	return wt.buffers(), nil
}

// amxTower lays the 8-bit layers out for AMX tiles, the same bytes and
// scales (so the same sums), or returns nil where the channel stride does
// not fit them.
func amxTower(t *tower8, cs, wp int) []*gemm.Conv3AMX {
	nr := t.kern.NR
	var convs []*gemm.Conv3AMX
	for i := range t.layers {
		l := &t.layers[i]
		kdim := l.nseg * l.seglen
		w := func(o, k int) int8 { return l.w[(o/nr)*kdim*nr+((k/4)*nr+o%nr)*4+k%4] }
		c, err := gemm.NewConv3AMX(cs, wp, w, l.scale, l.bias)
		if err != nil {
			return nil
		}
		convs = append(convs, c)
	}
	return convs
}

// unit is the byte value of an input plane's 1: the largest even byte
// the kernel sums (254, or 126 in 7 bits), so that the halves some
// encoders use (Catch the Lion's hands) are whole bytes.
func (t *tower8) unit() float32 { return float32(t.kern.MaxA &^ 1) }

// inUnit reports whether a plane value lies in [0, 1], the range the
// 8-bit input convolution's bytes hold (NaN does not).
func inUnit(v float32) bool { return v >= 0 && v <= 1 }

// unitPlanes reports whether every plane value is inUnit.
func unitPlanes(planes []float32) bool {
	for _, v := range planes {
		if !inUnit(v) {
			return false
		}
	}
	return true
}

// input8 writes batch positions' NCHW planes into the padded byte buffer
// (channel stride t8.cs) in steps of 1/t8.unit() and reports whether
// every value lay in [0, 1]; when one did not, the caller runs the fp32
// input convolution.
func (n *Net) input8(planes []float32, batch int) bool {
	c, hw, cs, unit := n.spec.Channels, n.hw, n.t8.cs, n.t8.unit()
	for b := range batch {
		img := n.planes8[b*n.pp*cs : (b+1)*n.pp*cs]
		for ch := range c {
			src := planes[(b*c+ch)*hw : (b*c+ch+1)*hw]
			for q, v := range src {
				if !inUnit(v) {
					return false
				}
				img[n.inPix[q]*cs+ch] = uint8(v*unit + 0.5)
			}
		}
	}
	return true
}

// calibClip is the share of a layer's calibration activations its scale
// represents exactly; the rest saturate at the kernel's MaxA.
var calibClip = 0.99999

// appendActivations appends the positive values of the real pixels of a
// tower buffer.
func (n *Net) appendActivations(dst, a []float32, batch int) []float32 {
	for b := range batch {
		for _, q := range n.inPix {
			for _, v := range a[(b*n.pp+q)*n.fp:][:n.fp] {
				if v > 0 {
					dst = append(dst, v)
				}
			}
		}
	}
	return dst
}

// quantile returns the q-quantile of v (reordering v); 0 when v is empty.
func quantile(v []float32, q float64) float32 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[min(len(v)-1, int(q*float64(len(v))))]
}

// packConv3Int8 quantizes a 3x3 convolution (batch norm folded) for the
// 8-bit kernel of width nr reading a padded NHWC byte buffer of channel
// stride cs and padded width wp, whose bytes mean multiples of in. With
// low it also returns the weights' next digit: a layer of the rounding
// left, in steps of a 128th of the first digit's, with no bias.
func packConv3Int8(c *net.ConvBN, cs, wp, nr int, in float32, low bool) (layer8, *layer8) {
	bnScale, shift := fold(c)
	panels := gemm.RoundUp(c.Out, nr) / nr
	kdim := 9 * cs
	newLayer := func() layer8 {
		return layer8{nseg: 3, seglen: 3 * cs, segstride: wp * cs, panels: panels, in: in,
			w: make([]int8, panels*kdim*nr), scale: make([]float32, panels*nr), bias: make([]float32, panels*nr)}
	}
	l := newLayer()
	var lo *layer8
	if low {
		next := newLayer()
		lo = &next
	}
	folded := make([]float64, kdim)
	for o := 0; o < c.Out; o++ {
		clear(folded)
		var amax float64
		for i := 0; i < c.In; i++ {
			for ky := range 3 {
				for kx := range 3 {
					v := float64(c.W[((o*c.In+i)*3+ky)*3+kx]) * bnScale[o]
					folded[ky*3*cs+kx*cs+i] = v
					amax = max(amax, math.Abs(v))
				}
			}
		}
		ws := amax / 127
		if ws == 0 {
			ws = 1
		}
		panel, col := o/nr, o%nr
		pw := l.w[panel*kdim*nr : (panel+1)*kdim*nr]
		for k, v := range folded {
			q := max(-127, min(127, math.Round(v/ws)))
			pw[((k/4)*nr+col)*4+k%4] = int8(q)
			if lo != nil {
				lo.w[panel*kdim*nr+((k/4)*nr+col)*4+k%4] = int8(max(-127, min(127, math.Round((v/ws-q)*128))))
			}
		}
		l.scale[o] = float32(ws) * in
		l.bias[o] = float32(shift[o])
		if lo != nil {
			lo.scale[o] = float32(ws) * in / 128
		}
	}
	return l, lo
}

// quantize writes the real pixels of the fp32 tower buffer a as bytes of
// scale in into the byte buffer q (same layout); the padding of q stays
// zero, as it was allocated. A board row's pixels are one run of w*fp
// floats (gemm.Quantize: assembly where the CPU has AVX-512 or AVX2),
// clamped at the kernel's MaxA.
func (n *Net) quantize(a []float32, q []uint8, batch int, in float32) {
	inv, top := 1/in, n.t8.kern.MaxA
	run := n.w * n.fp
	for b := range batch {
		for y := range n.h {
			off := (b*n.pp + (y+1)*n.wp + 1) * n.fp
			gemm.Quantize(q[off:off+run], a[off:off+run], inv, top)
		}
	}
}

// layer8 runs an 8-bit layer over rows of the byte buffer a into c (fp32),
// adding res when it is not nil, then the ReLU when relu is set.
func (n *Net) layer8(l *layer8, a []uint8, aoff []int, c []float32, coff []int, res []float32, rows int, relu bool) {
	nr := n.t8.kern.NR
	kdim := l.nseg * l.seglen
	t := &n.tl8
	*t = gemm.Tile8{A: a, NSeg: l.nseg, SegLen: l.seglen, SegStride: l.segstride, C: c, Res: res, ReLU: relu}
	for j := 0; j < l.panels; j++ {
		t.W = l.w[j*kdim*nr : (j+1)*kdim*nr]
		t.Scale = l.scale[j*nr : (j+1)*nr]
		t.Bias = l.bias[j*nr : (j+1)*nr]
		for r := 0; r < rows; r += gemm.MR {
			t.Aoff = aoff[r : r+gemm.MR]
			t.Coff = coff[r : r+gemm.MR : r+gemm.MR]
			n.t8.kern.Run(t)
		}
		c = c[nr:]
		t.C = c
		if res != nil {
			res = res[nr:]
			t.Res = res
		}
	}
	t.A, t.C, t.Res, t.W, t.Scale, t.Bias = nil, nil, nil, nil, nil, nil
}

// Precision names the tower's arithmetic: "fp32", or "int8" with the
// 8-bit kernel it runs on.
func (n *Net) Precision() string {
	if n.t8 == nil {
		return "fp32"
	}
	if n.t8.amx != nil {
		return "int8 (amx)"
	}
	return "int8 (" + n.t8.kern.Name + ")"
}

// Calibration returns the planes of n positions of seeded random play
// from start (each from a fresh game, 4 to 80 plies deep, stopping where
// a game ends), encoded by enc: positions to fix NewInt8's scales on.
func Calibration(start game.Position, enc game.Encoder, n int, seed uint64) []float32 {
	c, h, w := enc.Shape()
	in := c * h * w
	out := make([]float32, n*in)
	rng := rand.New(rand.NewPCG(seed, 0xca11b))
	var moves []game.Move
	for i := range n {
		p := start.Clone()
		for range 4 + rng.IntN(77) {
			if p.Status().Over() {
				break
			}
			if moves = p.GenerateMoves(moves[:0]); len(moves) == 0 {
				break
			}
			p.Make(moves[rng.IntN(len(moves))])
		}
		enc.Encode(p, out[i*in:(i+1)*in])
	}
	return out
}

// Precisions are the tower precisions NewPrecision builds: auto is int8
// where the CPU runs a VNNI kernel (AVX-512 VNNI or AVX-VNNI) and fp32
// elsewhere: on the AVX2 kernel's 7-bit activations (Auto) and on the
// pure-Go twin, slower than fp32 (Resolve).
var Precisions = []string{Auto, "fp32", "int8"}

// Auto is the precision that picks the faster of the two for this CPU.
// It may pick by speed alone because the 8-bit tower plays as fp32 does
// at equal simulations (the matches are in docs/results.md), so where
// its kernels run the faster tower is also the stronger at equal time.
// Those matches are of the VNNI kernels' 8-bit activations: the AVX2
// kernel's 7-bit tower strays further from fp32 and is chosen only by
// precision=int8 until its own match against fp32 is played.
const Auto = "auto"

// Resolve returns the precision auto means on this CPU ("int8" with
// gemm.HasVNNI, else "fp32"); others come back as they are.
func Resolve(precision string) string {
	if precision != Auto {
		return precision
	}
	if gemm.HasVNNI() {
		return "int8"
	}
	return "fp32"
}

// calibrationPositions is how many positions fix the 8-bit scales.
const calibrationPositions = 256

// NewPrecision is New ("fp32", or "": the reference) or NewInt8
// ("int8", calibrated on random play of the network's game from start,
// encoded by enc); "auto" is one of them (Resolve).
func NewPrecision(p *net.Params, maxBatch int, precision string, start game.Position, enc game.Encoder) (*Net, error) {
	switch Resolve(precision) {
	case "", "fp32":
		return New(p, maxBatch)
	case "int8":
		return NewInt8(p, maxBatch, Calibration(start, enc, calibrationPositions, 1), calibrationPositions)
	}
	return nil, fmt.Errorf("infer: precision %q (valid: %s)", precision, strings.Join(Precisions, ", "))
}
