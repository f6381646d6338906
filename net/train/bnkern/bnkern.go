// Package bnkern holds a batch norm's per-channel passes over one row of
// NHWC pixels (net/train/ops.BN runs them row by row): sums in float64, each
// channel's terms added in pixel order, the normalisation with the
// residual and ReLU, and the two backward passes. Rows whose channel count
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

// Norm writes out = max(row*scale + shift (+ res), 0) per channel; res
// is nil or a row like row. A zero output is +0.
func Norm(row, res, out []float32, scale, shift []float32) {
	c := len(scale)
	n := pixels(len(row), c)
	out, shift = out[:len(row)], shift[:c]
	if res != nil {
		res = res[:len(row)]
	}
	if n > 0 && fast(c) {
		if res != nil {
			normResAVX2(&row[0], &res[0], &out[0], n, &scale[0], &shift[0], c)
		} else {
			normAVX2(&row[0], &out[0], n, &scale[0], &shift[0], c)
		}
		return
	}
	GoNorm(row, res, out, scale, shift)
}

// GradSum passes dz through the ReLU whose output was z: g = dz where
// z > 0 and 0 where z is +0; and it adds g into s0 and g*(y-mean) into
// s1 per channel.
func GradSum(y, z, dz, g []float32, mean, s0, s1 []float64) {
	c := len(mean)
	n := pixels(len(dz), c)
	y, z, g, s0, s1 = y[:len(dz)], z[:len(dz)], g[:len(dz)], s0[:c], s1[:c]
	if n > 0 && fast(c) {
		gradSumAVX2(&y[0], &z[0], &dz[0], &g[0], n, &mean[0], &s0[0], &s1[0], c)
		return
	}
	GoGradSum(y, z, dz, g, mean, s0, s1)
}

// Grad writes dy = a*g + by*y + d0 per channel.
func Grad(g, y, dy []float32, a, by, d0 []float32) {
	c := len(a)
	n := pixels(len(g), c)
	y, dy, by, d0 = y[:len(g)], dy[:len(g)], by[:c], d0[:c]
	if n > 0 && fast(c) {
		gradAVX2(&g[0], &y[0], &dy[0], n, &a[0], &by[0], &d0[0], c)
		return
	}
	GoGrad(g, y, dy, a, by, d0)
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
func GoNorm(row, res, out []float32, scale, shift []float32) {
	c := len(scale)
	for p := 0; p < len(row); p += c {
		ys, zs := row[p:p+c], out[p:p+c]
		if res != nil {
			rs := res[p : p+c]
			for ch, v := range ys {
				zs[ch] = max(float32(v*scale[ch])+shift[ch]+rs[ch], 0)
			}
			continue
		}
		for ch, v := range ys {
			zs[ch] = max(float32(v*scale[ch])+shift[ch], 0)
		}
	}
}

// GoGradSum is GradSum in Go.
func GoGradSum(y, z, dz, g []float32, mean, s0, s1 []float64) {
	c := len(mean)
	for p := 0; p < len(dz); p += c {
		zs, ys, gs := z[p:p+c], y[p:p+c], g[p:p+c]
		for ch, d := range dz[p : p+c] {
			v := ReluGrad(d, zs[ch])
			gs[ch] = v
			s0[ch] += float64(v)
			s1[ch] += float64(float64(v) * (float64(ys[ch]) - mean[ch]))
		}
	}
}

// GoGrad is Grad in Go.
func GoGrad(g, y, dy []float32, a, by, d0 []float32) {
	c := len(a)
	for p := 0; p < len(g); p += c {
		gs, ys, dys := g[p:p+c], y[p:p+c], dy[p:p+c]
		for ch, v := range gs {
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
