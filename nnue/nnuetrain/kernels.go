package nnuetrain

import "math"

// The three inner loops of a step: the first layer's rows added into an
// accumulator (forward) or a gradient row (backward), the dense layers'
// dot products, and their outer products and input gradients (axpy).
// kernels_amd64.go replaces them with AVX2 where the CPU has it; these
// are the twins that give the same bits, lane for lane: dot sums in the
// assembly's lanes and adds them in its order, and nothing is fused
// (multiply, then add, each rounded: the conversions keep the compiler
// from fusing them where it may).

// addGo sets dst[i] += src[i].
func addGo(dst, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] += src[i]
	}
}

// axpyGo sets dst[i] += a*x[i].
func axpyGo(a float32, x, dst []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += float32(a * x[i])
	}
}

// dotLanes is the lanes dot sums in: four registers of eight.
const dotLanes = 32

// dotGo returns the sum of a[i]*b[i] as the assembly sums it: lane j of
// 32 sums the products of i = j mod 32 up to the last whole 32; the four
// registers of eight lanes are added as (0+1)+(2+3), the eight lanes as
// j+(j+4), then (0+2, 1+3), then 0+1; the products past the last whole
// 32 are added after, in order.
func dotGo(a, b []float32) float32 {
	var s [dotLanes]float32
	b = b[:len(a)]
	m := len(a) &^ (dotLanes - 1)
	for i := 0; i < m; i += dotLanes {
		x, y := a[i:i+dotLanes], b[i:i+dotLanes]
		for j := range s {
			s[j] += float32(x[j] * y[j])
		}
	}
	var t [8]float32
	for j := range t {
		t[j] = (s[j] + s[8+j]) + (s[16+j] + s[24+j])
	}
	u0, u1, u2, u3 := t[0]+t[4], t[1]+t[5], t[2]+t[6], t[3]+t[7]
	r := (u0 + u2) + (u1 + u3)
	for i := m; i < len(a); i++ {
		r += float32(a[i] * b[i])
	}
	return r
}

// adamGo is Adam's update of w from the gradient g (then zeroed) and the
// moments m and v, at the bias-corrected rate lr, each weight then
// clipped to [-clip, clip] (clip +Inf: none). Every product is rounded
// before it is added, as the assembly does.
func adamGo(w, g, m, v []float32, lr, clip float32) {
	g, m, v = g[:len(w)], m[:len(w)], v[:len(w)]
	for i := range w {
		gi := g[i]
		g[i] = 0
		mi := float32(beta1*m[i]) + float32((1-beta1)*gi)
		vi := float32(beta2*v[i]) + float32(float32((1-beta2)*gi)*gi)
		m[i], v[i] = mi, vi
		x := w[i] - float32(lr*mi)/(float32(math.Sqrt(float64(vi)))+adamEps)
		w[i] = min(max(x, -clip), clip)
	}
}

// dotSmall is a dot product of any length, in order: the small second
// and output layers.
func dotSmall(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, x := range a {
		s += float32(x * b[i])
	}
	return s
}

// The kernels a step runs: the assembly where kernels_amd64.go finds the
// CPU for it, else the Go twins.
var (
	add        = addGo
	axpy       = axpyGo
	dot        = dotGo
	adam       = adamGo
	kernelName = "go"
)

// KernelName names the instruction set a step runs on: avx2 or go.
func KernelName() string { return kernelName }
