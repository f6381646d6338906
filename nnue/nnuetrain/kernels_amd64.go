//go:build amd64 && !noasm

package nnuetrain

import "github.com/tabula-zero/tabula/net/gemm"

// The AVX2 kernels, under TABULA_ISA's cap (gemm.Features). The
// assembly takes the whole blocks of 8 (dot: of 32); the rest is done
// here as the Go twins do it.
func init() {
	if gemm.Features().AVX2 {
		add, axpy, dot, adam, kernelName = addY, axpyY, dotY, adamY, "avx2"
	}
}

func addY(dst, src []float32) {
	n := len(dst)
	src = src[:n]
	m := n &^ 7
	if m > 0 {
		addAVX2(&dst[0], &src[0], m)
	}
	for i := m; i < n; i++ {
		dst[i] += src[i]
	}
}

func axpyY(a float32, x, dst []float32) {
	n := len(dst)
	x = x[:n]
	m := n &^ 7
	if m > 0 {
		axpyAVX2(&x[0], &dst[0], m, a)
	}
	for i := m; i < n; i++ {
		dst[i] += float32(a * x[i])
	}
}

func dotY(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	m := n &^ (dotLanes - 1)
	var r float32
	if m > 0 {
		r = dotAVX2(&a[0], &b[0], m)
	}
	for i := m; i < n; i++ {
		r += float32(a[i] * b[i])
	}
	return r
}

func adamY(w, g, m, v []float32, lr, clip float32) {
	n := len(w)
	g, m, v = g[:n], m[:n], v[:n]
	k := n &^ 7
	if k > 0 {
		adamAVX2(&w[0], &g[0], &m[0], &v[0], k, lr, clip)
	}
	if k < n {
		adamGo(w[k:], g[k:], m[k:], v[k:], lr, clip)
	}
}

// adamAVX2 is adamGo over n values, a multiple of 8.
//
//go:noescape
func adamAVX2(w, grad, m, v *float32, n int, lr, clip float32)

// addAVX2 sets dst[i] += src[i] for i < n, a multiple of 8.
//
//go:noescape
func addAVX2(dst, src *float32, n int)

// axpyAVX2 sets dst[i] += a*x[i] (multiply, then add) for i < n, a
// multiple of 8.
//
//go:noescape
func axpyAVX2(x, dst *float32, n int, a float32)

// dotAVX2 returns the sum of a[i]*b[i] for i < n, a multiple of 32, in
// dotGo's lanes and order.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32
