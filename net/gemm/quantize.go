package gemm

// Quantize writes each src[i] as the byte uint8(clamp(src[i]*inv + 0.5,
// 0, 255)) into dst[i]: fp32 activations (ReLU's, not negative) to the
// unsigned bytes of a Tile8's A, rounded to nearest with halves up. The
// 8-bit tower quantizes every layer's input, so on the fast path this
// runs in assembly where the CPU has AVX-512 (16 values an instruction
// sequence); quantizeGo is its twin and the fallback. NaN gives 0 on the
// assembly path; activations are never NaN.
func Quantize(dst []uint8, src []float32, inv float32) {
	if len(dst) < len(src) {
		panic("gemm: Quantize's dst shorter than src")
	}
	n := 0
	if quantizeAsm {
		n = len(src) &^ 15
		if n > 0 {
			quantizeAVX512(&dst[0], &src[0], n, inv)
		}
	}
	quantizeGo(dst[n:len(src)], src[n:], inv)
}

// quantizeGo is Quantize in plain Go. The product is converted to
// float32 before the half is added, which keeps the compiler from fusing
// the two into one rounding (the assembly rounds twice).
func quantizeGo(dst []uint8, src []float32, inv float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = uint8(min(255, max(0, float32(v*inv)+0.5)))
	}
}
