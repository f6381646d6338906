package gemm

import "testing"

// TABULA_ISA's values cap the kernels; an unknown one leaves the CPU to
// decide.
func TestParseISACap(t *testing.T) {
	for v, want := range map[string]int{"": isaAMX, "amx": isaAMX, "avx512": isaAVX512, "avx2": isaAVX2, "go": isaGo, "sse": isaAMX, "AVX2": isaAMX} {
		if got := parseISACap(v); got != want {
			t.Errorf("parseISACap(%q) = %d, want %d", v, got, want)
		}
	}
}
