//go:build amd64 && !noasm

package gemm

func cpuFeatures() CPU {
	bw := hasAVX512() && hasAVX512BW()
	return CPU{AVX2: hasAVX2FMA(), AVX512BW: bw, AVX512VNNI: bw && hasAVX512VNNI()}
}
