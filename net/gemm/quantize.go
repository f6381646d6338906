package gemm

// Quantize writes each src[i] as the byte uint8(clamp(src[i]*inv + 0.5,
// 0, top)) into dst[i]: fp32 activations (ReLU's, not negative) to the
// unsigned bytes of a Tile8's A, rounded to nearest with halves up; top is
// the kernel's MaxA (255, or 127 for the AVX2 kernel's 7 bits). The
// 8-bit tower quantizes every layer's input, so on the fast path this
// runs in assembly where the CPU has AVX-512 (16 values an instruction
// sequence) or AVX2 (8); quantizeGo is their twin and the fallback. NaN
// gives 0 on the assembly paths; activations are never NaN.
func Quantize(dst []uint8, src []float32, inv float32, top uint8) {
	quantizeWith(quantizeFast, dst, src, inv, top)
}

// quantizeAsm is one assembly loop of Quantize: it converts n values, n a
// multiple of width.
type quantizeAsm struct {
	name  string
	width int
	run   func(dst *uint8, src *float32, n int, inv, top float32)
}

// quantizeFast is the loop Quantize runs: the first this CPU has, or none.
var quantizeFast = func() *quantizeAsm {
	if qs := quantizeAsms(); len(qs) > 0 {
		return &qs[0]
	}
	return nil
}()

// quantizeWith is Quantize on the loop q (nil: Go only), the tail in Go.
func quantizeWith(q *quantizeAsm, dst []uint8, src []float32, inv float32, top uint8) {
	if len(dst) < len(src) {
		panic("gemm: Quantize's dst shorter than src")
	}
	n := 0
	if q != nil {
		n = len(src) / q.width * q.width
		if n > 0 {
			q.run(&dst[0], &src[0], n, inv, float32(top))
		}
	}
	quantizeGo(dst[n:len(src)], src[n:], inv, top)
}

// quantizeGo is Quantize in plain Go. The product is converted to
// float32 before the half is added, which keeps the compiler from fusing
// the two into one rounding (the assembly rounds twice).
func quantizeGo(dst []uint8, src []float32, inv float32, top uint8) {
	dst = dst[:len(src)]
	t := float32(top)
	for i, v := range src {
		dst[i] = uint8(min(t, max(0, float32(v*inv)+0.5)))
	}
}
