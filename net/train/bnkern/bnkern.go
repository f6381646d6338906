// Package bnkern holds a batch norm's per-channel passes over one row of
// NHWC pixels (net/train/ops.BN runs them row by row): sums in float64, each
// channel's terms added in pixel order, the normalisation with the
// residual and ReLU, and the two backward passes. The normalisation
// records which outputs the ReLU let through in a bit mask (MaskBytes a
// pixel), so that the backward passes read those bits, a thirty-second
// of the output's size, instead of the output itself. Rows whose channel count
// is a multiple of 8 run in AVX2 assembly where the CPU has it; each
// kernel's pure-Go twin (Go*) runs everywhere else and gives the same bits
// (every product is rounded before it is added, so no build fuses them).
//
// A row holds whole pixels: len(row) is a multiple of the channel count,
// which is the length of the per-channel slices.
package bnkern

import "math"

// Sum adds each channel of the row's pixels into s0.
func Sum(row []float32, s0 []float64) {
	c := len(s0)
	n := pixels(len(row), c)
	if n > 0 && fast(c) {
		sumAVX2(&row[0], n, &s0[0], c)
		return
	}
	GoSum(row, s0)
}

// SqDev adds each channel's squared deviation from mean into s1.
func SqDev(row []float32, mean, s1 []float64) {
	c := len(mean)
	n := pixels(len(row), c)
	s1 = s1[:c]
	if n > 0 && fast(c) {
		sqDevAVX2(&row[0], n, &mean[0], &s1[0], c)
		return
	}
	GoSqDev(row, mean, s1)
}

// MaskBytes is the size of a ReLU mask of one pixel of c channels: a bit
// a channel, channel ch in byte ch/8 at bit ch%8.
func MaskBytes(c int) int { return (c + 7) / 8 }

// Norm writes out = max(row*scale + shift (+ res), 0) per channel, and
// in mask (MaskBytes(c) a pixel) which outputs are not +0; res is nil or
// a row like row. A zero output is +0.
func Norm(row, res, out []float32, mask []byte, scale, shift []float32) {
	c := len(scale)
	n := pixels(len(row), c)
	out, mask, shift = out[:len(row)], mask[:n*MaskBytes(c)], shift[:c]
	if res != nil {
		res = res[:len(row)]
	}
	if n > 0 && fast(c) {
		if res != nil {
			normResAVX2(&row[0], &res[0], &out[0], &mask[0], n, &scale[0], &shift[0], c)
		} else {
			normAVX2(&row[0], &out[0], &mask[0], n, &scale[0], &shift[0], c)
		}
		return
	}
	GoNorm(row, res, out, mask, scale, shift)
}

// GradSum passes dz through the ReLU whose mask Norm wrote, g = dz where
// the output was not +0 and 0 where it was, and adds g into s0 and
// g*(y-mean) into s1 per channel.
func GradSum(y, dz []float32, mask []byte, mean, s0, s1 []float64) {
	c := len(mean)
	n := pixels(len(dz), c)
	y, mask, s0, s1 = y[:len(dz)], mask[:n*MaskBytes(c)], s0[:c], s1[:c]
	if n > 0 && fast(c) {
		gradSumAVX2(&y[0], &dz[0], &mask[0], n, &mean[0], &s0[0], &s1[0], c)
		return
	}
	GoGradSum(y, dz, mask, mean, s0, s1)
}

// Grad passes dz through the ReLU as GradSum does and writes dy = a*g +
// by*y + d0 per channel, and g itself into dres unless dres is nil (the
// residual's gradient).
func Grad(dz []float32, mask []byte, y, dy, dres []float32, a, by, d0 []float32) {
	c := len(a)
	n := pixels(len(dz), c)
	mask, y, dy, by, d0 = mask[:n*MaskBytes(c)], y[:len(dz)], dy[:len(dz)], by[:c], d0[:c]
	if dres != nil {
		dres = dres[:len(dz)]
	}
	if n > 0 && fast(c) {
		if dres != nil {
			gradResAVX2(&dz[0], &mask[0], &y[0], &dy[0], &dres[0], n, &a[0], &by[0], &d0[0], c)
		} else {
			gradAVX2(&dz[0], &mask[0], &y[0], &dy[0], n, &a[0], &by[0], &d0[0], c)
		}
		return
	}
	GoGrad(dz, mask, y, dy, dres, a, by, d0)
}

// pixels is the row's pixel count; a row of partial pixels is a bug of
// the caller, which the assembly must never see.
func pixels(floats, c int) int {
	if c <= 0 || floats%c != 0 {
		panic("bnkern: a row of partial pixels")
	}
	return floats / c
}

func fast(c int) bool { return useAVX2 && c%8 == 0 }

// GoSum is Sum in Go.
func GoSum(row []float32, s0 []float64) {
	c := len(s0)
	for p := 0; p < len(row); p += c {
		for ch, v := range row[p : p+c] {
			s0[ch] += float64(v)
		}
	}
}

// GoSqDev is SqDev in Go.
func GoSqDev(row []float32, mean, s1 []float64) {
	c := len(mean)
	for p := 0; p < len(row); p += c {
		for ch, v := range row[p : p+c] {
			d := float64(v) - mean[ch]
			s1[ch] += float64(d * d)
		}
	}
}

// GoNorm is Norm in Go.
func GoNorm(row, res, out []float32, mask []byte, scale, shift []float32) {
	c, mb := len(scale), MaskBytes(len(scale))
	for p, m := 0, 0; p < len(row); p, m = p+c, m+mb {
		ys, zs, ms := row[p:p+c], out[p:p+c], mask[m:m+mb]
		clear(ms)
		for ch, v := range ys {
			v = float32(v*scale[ch]) + shift[ch]
			if res != nil {
				v += res[p+ch]
			}
			zs[ch] = max(v, 0)
			if math.Float32bits(zs[ch]) != 0 {
				ms[ch/8] |= 1 << (ch % 8)
			}
		}
	}
}

// passes is the ReLU's backward pass of one element: d where its mask bit
// is set, else +0, without a branch (see ReluGrad).
func passes(d float32, mask []byte, ch int) float32 {
	on := -uint32(mask[ch/8] >> (ch % 8) & 1) // all ones when set
	return math.Float32frombits(math.Float32bits(d) & on)
}

// GoGradSum is GradSum in Go.
func GoGradSum(y, dz []float32, mask []byte, mean, s0, s1 []float64) {
	c, mb := len(mean), MaskBytes(len(mean))
	for p, m := 0, 0; p < len(dz); p, m = p+c, m+mb {
		ys, ms := y[p:p+c], mask[m:m+mb]
		for ch, d := range dz[p : p+c] {
			v := passes(d, ms, ch)
			s0[ch] += float64(v)
			s1[ch] += float64(float64(v) * (float64(ys[ch]) - mean[ch]))
		}
	}
}

// GoGrad is Grad in Go.
func GoGrad(dz []float32, mask []byte, y, dy, dres []float32, a, by, d0 []float32) {
	c, mb := len(a), MaskBytes(len(a))
	for p, m := 0, 0; p < len(dz); p, m = p+c, m+mb {
		ys, dys, ms := y[p:p+c], dy[p:p+c], mask[m:m+mb]
		for ch, d := range dz[p : p+c] {
			v := passes(d, ms, ch)
			if dres != nil {
				dres[p+ch] = v
			}
			dys[ch] = float32(a[ch]*v) + float32(by[ch]*ys[ch]) + d0[ch]
		}
	}
}

// ReluGrad is d where z > 0 and 0 where z is +0 (z is a ReLU's output,
// never negative), without a branch: the sign pattern is random, and a
// mispredicted branch per element cost more than the arithmetic.
func ReluGrad(d, z float32) float32 {
	bits := math.Float32bits(z)
	mask := uint32(int32(-bits) >> 31) // all ones when bits != 0
	return math.Float32frombits(math.Float32bits(d) & mask)
}
