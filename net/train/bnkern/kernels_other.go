//go:build !amd64 || noasm

package bnkern

const useAVX2 = false

func sumAVX2(*float32, int, *float64, int)             { panic("bnkern: no AVX2") }
func sqDevAVX2(*float32, int, *float64, *float64, int) { panic("bnkern: no AVX2") }
func normAVX2(*float32, *float32, *byte, int, *float32, *float32, int) {
	panic("bnkern: no AVX2")
}
func normResAVX2(*float32, *float32, *float32, *byte, int, *float32, *float32, int) {
	panic("bnkern: no AVX2")
}
func gradSumAVX2(*float32, *float32, *byte, int, *float64, *float64, *float64, int) {
	panic("bnkern: no AVX2")
}
func gradAVX2(*float32, *byte, *float32, *float32, int, *float32, *float32, *float32, int) {
	panic("bnkern: no AVX2")
}
func gradResAVX2(*float32, *byte, *float32, *float32, *float32, int, *float32, *float32, *float32, int) {
	panic("bnkern: no AVX2")
}
