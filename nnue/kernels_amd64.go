//go:build amd64 && !noasm

package nnue

import (
	"unsafe"

	"github.com/tabula-zero/tabula/net/gemm"
)

// asmBuild: this build has the assembly kernels.
const asmBuild = true

// asmKernelSets lists the assembly sets the CPU runs under TABULA_ISA's
// cap (gemm.Features), widest first.
func asmKernelSets() []kernels {
	cpu := gemm.Features()
	var ks []kernels
	if cpu.AVX512VNNI {
		ks = append(ks, kernels{name: "vnni", update: updateZ, crelu: creluZ, dense: denseVNNI})
	}
	if cpu.AVX512BW {
		ks = append(ks, kernels{name: "avx512", update: updateZ, crelu: creluZ, dense: denseZ})
	}
	if cpu.AVX2 {
		ks = append(ks, kernels{name: "avx2", update: updateY, crelu: creluY, dense: denseY})
	}
	return ks
}

// rowArgs turns the row lists into the assembly's pointers (nil when
// empty, never read then).
func rowArgs(add, sub []uint16) (*uint16, *uint16) {
	return unsafe.SliceData(add), unsafe.SliceData(sub)
}

func updateY(dst, src, w []int16, add, sub []uint16) {
	checkUpdate(dst, src, w, add, sub)
	a, s := rowArgs(add, sub)
	updateAVX2(&dst[0], &src[0], &w[0], a, len(add), s, len(sub), len(dst))
}

func updateZ(dst, src, w []int16, add, sub []uint16) {
	checkUpdate(dst, src, w, add, sub)
	a, s := rowArgs(add, sub)
	updateAVX512(&dst[0], &src[0], &w[0], a, len(add), s, len(sub), len(dst))
}

func checkCrelu(dst []uint8, src []int16) {
	if len(src)%64 != 0 || len(dst) < len(src) {
		panic("nnue: crelu of a length not a multiple of 64")
	}
}

func creluY(dst []uint8, src []int16) {
	checkCrelu(dst, src)
	if len(src) > 0 {
		creluAVX2(&dst[0], &src[0], len(src))
	}
}

func creluZ(dst []uint8, src []int16) {
	checkCrelu(dst, src)
	if len(src) > 0 {
		creluAVX512(&dst[0], &src[0], len(src))
	}
}

func denseY(out []int32, in []uint8, w []int8, bias []int32) {
	checkDense(out, in, w, bias)
	if len(out) > 0 {
		denseAVX2(&out[0], &in[0], &w[0], &bias[0], len(in), len(out))
	}
}

func denseZ(out []int32, in []uint8, w []int8, bias []int32) {
	checkDense(out, in, w, bias)
	if len(out) > 0 {
		denseAVX512(&out[0], &in[0], &w[0], &bias[0], len(in), len(out))
	}
}

func denseVNNI(out []int32, in []uint8, w []int8, bias []int32) {
	checkDense(out, in, w, bias)
	if len(out) > 0 {
		denseAVX512VNNI(&out[0], &in[0], &w[0], &bias[0], len(in), len(out))
	}
}

// updateAVX2 is updateGo on 64 int16s (four YMM) at a time: each block of
// the result is summed in registers over every row before it is stored.
//
//go:noescape
func updateAVX2(dst, src, w *int16, add *uint16, nadd int, sub *uint16, nsub int, n int)

// updateAVX512 is updateGo on 64 int16s (two ZMM) at a time.
//
//go:noescape
func updateAVX512(dst, src, w *int16, add *uint16, nadd int, sub *uint16, nsub int, n int)

// creluAVX2 is creluGo: VPACKSSWB, lanes put back in order, VPMAXSB 0.
//
//go:noescape
func creluAVX2(dst *uint8, src *int16, n int)

// creluAVX512 is creluGo: VPMAXSW 0, VPMINSW 127, VPMOVWB.
//
//go:noescape
func creluAVX512(dst *uint8, src *int16, n int)

// denseAVX2 is denseGo, four outputs at a time: VPMADDUBSW pairs bytes
// into int16 (no saturation: inputs <= 127), VPMADDWD by ones into int32.
//
//go:noescape
func denseAVX2(out *int32, in *uint8, w *int8, bias *int32, nin, nout int)

// denseAVX512 is denseAVX2 on ZMM (AVX512BW).
//
//go:noescape
func denseAVX512(out *int32, in *uint8, w *int8, bias *int32, nin, nout int)

// denseAVX512VNNI is denseGo with VPDPBUSD: the bytes' products summed
// straight into int32.
//
//go:noescape
func denseAVX512VNNI(out *int32, in *uint8, w *int8, bias *int32, nin, nout int)
