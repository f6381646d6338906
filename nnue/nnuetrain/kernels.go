package nnuetrain

// The three inner loops of a step: the first layer's rows added into an
// accumulator (forward) or a gradient row (backward), the dense layers'
// dot products, and their outer products and input gradients (axpy).
// kernels_amd64.go replaces them with AVX2 where the CPU has it; these
// are the twins that give the same bits, lane for lane: dot sums eight
// lanes and adds them in the assembly's order, and nothing is fused
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

// dotGo returns the sum of a[i]*b[i] (len(a) a multiple of 8) in eight
// lanes, lane j summing the products of i = j mod 8, and the lanes added
// as the assembly's reduction does: (0+4, 1+5, 2+6, 3+7), then (0+2,
// 1+3), then 0+1.
func dotGo(a, b []float32) float32 {
	var s [8]float32
	b = b[:len(a)]
	for i := 0; i+8 <= len(a); i += 8 {
		s[0] += float32(a[i] * b[i])
		s[1] += float32(a[i+1] * b[i+1])
		s[2] += float32(a[i+2] * b[i+2])
		s[3] += float32(a[i+3] * b[i+3])
		s[4] += float32(a[i+4] * b[i+4])
		s[5] += float32(a[i+5] * b[i+5])
		s[6] += float32(a[i+6] * b[i+6])
		s[7] += float32(a[i+7] * b[i+7])
	}
	s0, s1, s2, s3 := s[0]+s[4], s[1]+s[5], s[2]+s[6], s[3]+s[7]
	s0, s1 = s0+s2, s1+s3
	return s0 + s1
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
	add  = addGo
	axpy = axpyGo
	dot  = dotGo
)
