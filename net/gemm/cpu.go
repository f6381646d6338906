package gemm

// CPU is what this CPU offers kernels outside this package (package
// nnue's), within TABULA_ISA's cap, so that one machine tests the paths a
// smaller one takes with the same switch as this package's kernels. Every
// field is false under the noasm tag and off amd64.
type CPU struct {
	AVX2       bool // AVX2 and FMA with the YMM state enabled by the OS
	AVX512BW   bool // AVX-512 F and BW with the ZMM state enabled by the OS
	AVX512VNNI bool // AVX512BW and AVX-512 VNNI (VPDPBUSD on ZMM)
}

// Features reports the CPU's features under TABULA_ISA's cap.
func Features() CPU { return cpuFeatures() }
