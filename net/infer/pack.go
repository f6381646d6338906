package infer

import (
	"math"

	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/gemm"
)

// fold returns the per-channel scale and shift that batch norm with
// running statistics applies: bn(x) = x*scale + shift.
func fold(c *net.ConvBN) (scale, shift []float64) {
	scale = make([]float64, c.Out)
	shift = make([]float64, c.Out)
	for o := range scale {
		scale[o] = float64(c.Gamma[o]) / math.Sqrt(float64(c.Var[o])+net.BNEpsilon)
		shift[o] = float64(c.Beta[o]) - float64(c.Mean[o])*scale[o]
	}
	return scale, shift
}

// newLayer allocates a layer with outs output columns (rounded up to whole
// panels) over kdim = nseg*seglen inputs, followed by ReLU if relu is set.
func newLayer(nseg, seglen, segstride, outs, nr int, relu bool) layer {
	panels := gemm.RoundUp(outs, nr) / nr
	return layer{nseg: nseg, seglen: seglen, segstride: segstride, panels: panels, relu: relu,
		w:    make([]float32, panels*nseg*seglen*nr),
		bias: make([]float32, panels*nr)}
}

// set stores weight (k, o) of l.
func (l *layer) set(k, o, nr int, v float64) {
	kdim := l.nseg * l.seglen
	l.w[((o/nr)*kdim+k)*nr+o%nr] = float32(v)
}

// packConv3 lays out a 3x3 convolution reading a padded NHWC buffer with
// channel stride cs and padded width wp: a row's segments are the three
// rows of the patch, each 3*cs floats ordered (kx, channel).
func packConv3(c *net.ConvBN, cs, wp, nr int) layer {
	l := newLayer(3, 3*cs, wp*cs, c.Out, nr, true)
	scale, shift := fold(c)
	for o := 0; o < c.Out; o++ {
		for i := 0; i < c.In; i++ {
			for ky := 0; ky < 3; ky++ {
				for kx := 0; kx < 3; kx++ {
					l.set(ky*3*cs+kx*cs+i, o, nr, float64(c.W[((o*c.In+i)*3+ky)*3+kx])*scale[o])
				}
			}
		}
		l.bias[o] = float32(shift[o])
	}
	return l
}

// packHead lays out the policy and value 1x1 convolutions as one layer
// whose outputs are the policy channels then the value channels.
func packHead(pol, val *net.ConvBN, cs, nr int) layer {
	l := newLayer(1, cs, 0, pol.Out+val.Out, nr, true)
	for _, part := range []struct {
		base int
		c    *net.ConvBN
	}{{0, pol}, {pol.Out, val}} {
		base, c := part.base, part.c
		scale, shift := fold(c)
		for o := 0; o < c.Out; o++ {
			for i := 0; i < c.In; i++ {
				l.set(i, base+o, nr, float64(c.W[o*c.In+i])*scale[o])
			}
			l.bias[base+o] = float32(shift[o])
		}
	}
	return l
}

// packDense lays out a dense layer over a flattened [ch][hw] input (the
// network's NCHW flatten) for inputs stored pixel-major, [hw][ch].
func packDense(d *net.Dense, hw, ch, nr int, relu bool) layer {
	l := newLayer(1, d.In, 0, d.Out, nr, relu)
	for o := 0; o < d.Out; o++ {
		for c := 0; c < ch; c++ {
			for q := 0; q < hw; q++ {
				l.set(q*ch+c, o, nr, float64(d.W[o*d.In+c*hw+q]))
			}
		}
		l.bias[o] = d.B[o]
	}
	return l
}
