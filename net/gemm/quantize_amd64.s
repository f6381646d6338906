//go:build amd64 && !noasm

#include "textflag.h"

// func quantizeAVX512(dst *uint8, src *float32, n int, inv float32)
TEXT ·quantizeAVX512(SB), NOSPLIT, $0-28
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS inv+24(FP), Z1
	MOVL $0x3f000000, AX // 0.5
	VPBROADCASTD AX, Z2
	VPXORD Z3, Z3, Z3
	MOVL $0x437f0000, AX // 255.0
	VPBROADCASTD AX, Z4
	SHRQ $4, CX
	JZ qdone

qloop:
	VMULPS (SI), Z1, Z0
	VADDPS Z2, Z0, Z0
	VMAXPS Z3, Z0, Z0
	VMINPS Z4, Z0, Z0
	VCVTTPS2DQ Z0, Z0
	VPMOVDB Z0, (DI)
	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ qloop

qdone:
	VZEROUPPER
	RET
