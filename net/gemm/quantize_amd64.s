//go:build amd64 && !noasm

#include "textflag.h"

// func quantizeAVX512(dst *uint8, src *float32, n int, inv, top float32)
TEXT ·quantizeAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS inv+24(FP), Z1
	MOVL $0x3f000000, AX // 0.5
	VPBROADCASTD AX, Z2
	VPXORD Z3, Z3, Z3
	VBROADCASTSS top+28(FP), Z4
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

// func quantizeAVX2(dst *uint8, src *float32, n int, inv, top float32)
TEXT ·quantizeAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS inv+24(FP), Y1
	MOVQ $0x3f000000, AX // 0.5
	VMOVQ AX, X2
	VPBROADCASTD X2, Y2
	VXORPS Y3, Y3, Y3
	VBROADCASTSS top+28(FP), Y4
	SHRQ $3, CX
	JZ q2done

q2loop:
	VMULPS (SI), Y1, Y0
	VADDPS Y2, Y0, Y0
	VMAXPS Y3, Y0, Y0
	VMINPS Y4, Y0, Y0
	VCVTTPS2DQ Y0, Y0
	VEXTRACTI128 $1, Y0, X5
	VPACKUSDW X5, X0, X0
	VPACKUSWB X0, X0, X0
	VMOVQ X0, (DI)
	ADDQ $32, SI
	ADDQ $8, DI
	DECQ CX
	JNZ q2loop

q2done:
	VZEROUPPER
	RET
