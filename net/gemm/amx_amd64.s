//go:build amd64 && !noasm

#include "textflag.h"
#include "go_asm.h"

#include "amx_amd64.h"

// TDPBUSD tmm(c), tmm3, tmm(b): weights in tmm4..6 (DX = 64), sums in tmm0..2.
#define TDPBUSD_A(c, b) BYTE $0xC4; BYTE $0xE2; BYTE $(((15-(b))<<3) | 1); BYTE $0x5E; BYTE $(0xC3 | ((c)<<3))

// One panel of 16 output columns of a kept row in the epilogue: sums at
// (BX), scale in zs, bias in zb; residual at (R13)(SI*4) when R13 is set.
#define EPI(off, zs, zb) \
	VCVTDQ2PS off(BX), Z0 \
	VFMADD213PS zb, zs, Z0 \
	TESTQ R13, R13 \
	JZ 2(PC) \
	VADDPS off(R13)(SI*4), Z0, Z0 \
	VMAXPS Z31, Z0, Z0 \
	VMOVUPS Z0, off(DI)(SI*4)

// func amxConv3(args *amxArgs)
TEXT ·amxConv3(SB), NOSPLIT, $0-8
	MOVQ args+0(FP), R8
	// Scales and biases of the (up to three) panels stay in registers.
	MOVQ amxArgs_scale(R8), SI
	MOVQ amxArgs_bias(R8), DI
	VMOVUPS 0(SI), Z16
	VMOVUPS 0(DI), Z19
	MOVQ amxArgs_np(R8), R12
	CMPQ R12, $2
	JLT loaded
	VMOVUPS 64(SI), Z17
	VMOVUPS 64(DI), Z20
	CMPQ R12, $3
	JLT loaded
	VMOVUPS 128(SI), Z18
	VMOVUPS 128(DI), Z21

loaded:
	VPXORD Z31, Z31, Z31
	MOVQ amxArgs_cfg(R8), AX
	LDTILECFG_AX
	MOVQ amxArgs_tiles(R8), R9
	MOVQ amxArgs_ntiles(R8), R10
	MOVQ amxArgs_cs(R8), CX
	MOVQ $64, DX
	MOVQ amxArgs_sumRS(R8), AX

tileloop:
	MOVQ amxArgs_a(R8), R13
	ADDQ amxTile_Row(R9), R13
	MOVQ amxArgs_np(R8), R12
	TILEZERO(0)
	CMPQ R12, $2
	JLT zeroed
	TILEZERO(1)
	CMPQ R12, $3
	JLT zeroed
	TILEZERO(2)

zeroed:
	MOVQ amxArgs_taps(R8), R11
	MOVQ amxArgs_w(R8), R14
	MOVQ $9, BX

taploop:
	MOVQ R13, SI
	ADDQ (R11), SI
	TILELOAD_A
	MOVQ R14, DI
	TILELOAD_B(4)
	TDPBUSD_A(0, 4)
	CMPQ R12, $2
	JLT tapnext
	ADDQ amxArgs_wstep(R8), DI
	TILELOAD_B(5)
	TDPBUSD_A(1, 5)
	CMPQ R12, $3
	JLT tapnext
	ADDQ amxArgs_wstep(R8), DI
	TILELOAD_B(6)
	TDPBUSD_A(2, 6)

tapnext:
	ADDQ amxArgs_tapstep(R8), R14
	ADDQ $8, R11
	DECQ BX
	JNZ taploop

	MOVQ amxArgs_sum(R8), BX
	TILESTORE(0)
	CMPQ R12, $2
	JLT stored
	ADDQ $64, BX
	TILESTORE(1)
	CMPQ R12, $3
	JLT stored
	ADDQ $64, BX
	TILESTORE(2)

stored:
	// Epilogue, row by row: dequantize, bias, residual, ReLU, store.
	MOVQ amxArgs_sum(R8), BX
	LEAQ amxTile_Coff(R9), R11
	MOVQ amxArgs_out(R8), DI
	MOVQ amxArgs_res(R8), R13
	MOVQ $16, R14

rowloop:
	MOVQ (R11), SI
	TESTQ SI, SI
	JS rownext
	EPI(0, Z16, Z19)
	CMPQ R12, $2
	JLT rownext
	EPI(64, Z17, Z20)
	CMPQ R12, $3
	JLT rownext
	EPI(128, Z18, Z21)

rownext:
	ADDQ $8, R11
	ADDQ AX, BX
	DECQ R14
	JNZ rowloop

	ADDQ $amxTile__size, R9
	DECQ R10
	JNZ tileloop

	TILERELEASE
	VZEROUPPER
	RET
