package gemm

import "testing"

// Features follows the detection this package's kernels use, within
// TABULA_ISA's cap: a wider feature implies the narrower ones.
func TestFeatures(t *testing.T) {
	f := Features()
	if f.AVX512VNNI && !f.AVX512BW || f.AVX512BW && !f.AVX2 {
		t.Errorf("inconsistent features: %+v", f)
	}
	if f.AVX2 && isaCap < isaAVX2 || f.AVX512BW && isaCap < isaAVX512 {
		t.Errorf("features %+v beyond the cap %d", f, isaCap)
	}
}
