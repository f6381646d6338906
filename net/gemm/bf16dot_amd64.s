//go:build amd64 && !noasm

#include "textflag.h"
#include "go_asm.h"

// TileBF16 on AVX512_BF16 (VDPBF16PS: 16 float32 sums each take the
// products of a pair of bfloat16s), for CPUs with the instruction and no
// AMX tiles (AMD Zen 4 and later, Intel Cooper Lake). The tile layout is
// the AMX kernel's: a B tile row is 16 columns of one pair of k, one
// ZMM; a row of A gives a pair of k as one broadcast dword. Eight output
// rows and one panel at a time: sums in Z0..Z7, B in Z16, broadcasts in
// Z17..Z20.

// VDPBF16PS Z(vv), Z(rm), Z(acc): EVEX.512.F3.0F38.W0 52 /r, registers by
// number (acc below 16, vv and rm 16 to 31).
#define DP(acc, vv, rm) BYTE $0x62; BYTE $(((1-(((acc)>>3)&1))<<7) | ((1-(((rm)>>4)&1))<<6) | ((1-(((rm)>>3)&1))<<5) | ((1-(((acc)>>4)&1))<<4) | 2); BYTE $(((15-((vv)&15))<<3) | 6); BYTE $(0x40 | ((1-(((vv)>>4)&1))<<3)); BYTE $0x52; BYTE $(0xC0 | (((acc)&7)<<3) | ((rm)&7))

// Q: one pair of k at byte d of the rows (SI, SI+CX, SI+2CX; R13 = SI+3CX
// and its next two; R15 = SI+6CX and its next), B's row at DI.
#define Q(d) \
	VMOVDQU32 (DI), Z16 \
	ADDQ DX, DI \
	VPBROADCASTD d(SI), Z17 \
	DP(0, 17, 16) \
	VPBROADCASTD d(SI)(CX*1), Z18 \
	DP(1, 18, 16) \
	VPBROADCASTD d(SI)(CX*2), Z19 \
	DP(2, 19, 16) \
	VPBROADCASTD d(R13), Z20 \
	DP(3, 20, 16) \
	VPBROADCASTD d(R13)(CX*1), Z17 \
	DP(4, 17, 16) \
	VPBROADCASTD d(R13)(CX*2), Z18 \
	DP(5, 18, 16) \
	VPBROADCASTD d(R15), Z19 \
	DP(6, 19, 16) \
	VPBROADCASTD d(R15)(CX*1), Z20 \
	DP(7, 20, 16)

// ROWMASK sets K1 to all 16 lanes when Coff[r] (at R11) is a row kept,
// none when it is -1; SI = Coff[r].
#define ROWMASK(r) \
	MOVQ r*8(R11), SI \
	MOVQ SI, AX \
	SARQ $63, AX \
	NOTQ AX \
	KMOVW AX, K1

// LOADROW and STOREROW move row r's sums at DI + 4*Coff[r] (a dropped
// row is neither read nor written: the masked lanes do not fault).
#define LOADROW(r, z) \
	ROWMASK(r) \
	VMOVUPS.Z (DI)(SI*4), K1, z

#define STOREROW(r, z) \
	ROWMASK(r) \
	VMOVUPS z, K1, (DI)(SI*4)

// Locals: the group of eight rows (0 or 1), the panel, the group's first
// row of A, the panel's B, the tap's B.
#define GROUP 0(SP)
#define PANEL 8(SP)
#define ABASE 16(SP)
#define BPANEL 24(SP)
#define BTAPB 32(SP)

// func dotBF16AVX512(args *bf16Args)
TEXT ·dotBF16AVX512(SB), NOSPLIT, $40-8
	MOVQ args+0(FP), R8
	MOVQ bf16Args_tiles(R8), R9
	MOVQ bf16Args_ntiles(R8), R10
	MOVQ bf16Args_astride(R8), CX
	MOVQ bf16Args_bstride(R8), DX

tileloop:
	MOVQ $0, GROUP

grouploop:
	MOVQ GROUP, AX
	IMULQ CX, AX
	SHLQ $3, AX
	ADDQ bf16Args_a(R8), AX
	ADDQ amxTile_Row(R9), AX
	MOVQ AX, ABASE
	MOVQ $0, PANEL
	MOVQ bf16Args_b(R8), AX
	MOVQ AX, BPANEL

panelloop:
	// R11: the group's Coff; DI: out plus the panel's 16 columns.
	MOVQ GROUP, AX
	SHLQ $6, AX
	LEAQ amxTile_Coff(R9)(AX*1), R11
	MOVQ PANEL, DI
	SHLQ $6, DI
	ADDQ bf16Args_out(R8), DI
	MOVQ bf16Args_accumulate(R8), AX
	TESTQ AX, AX
	JZ zero
	LOADROW(0, Z0)
	LOADROW(1, Z1)
	LOADROW(2, Z2)
	LOADROW(3, Z3)
	LOADROW(4, Z4)
	LOADROW(5, Z5)
	LOADROW(6, Z6)
	LOADROW(7, Z7)
	JMP taps

zero:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

taps:
	MOVQ bf16Args_taps(R8), R11
	MOVQ bf16Args_ntaps(R8), R12
	MOVQ BPANEL, AX
	MOVQ AX, BTAPB

taploop:
	MOVQ ABASE, SI
	ADDQ (R11), SI
	LEAQ (SI)(CX*2), R13
	ADDQ CX, R13
	LEAQ (R13)(CX*2), R15
	ADDQ CX, R15
	MOVQ BTAPB, R14
	MOVQ bf16Args_ksteps(R8), BX

kloop:
	// A k-step: 16 pairs of k, four at a time.
	MOVQ R14, DI
	MOVQ $4, AX

qloop:
	Q(0)
	Q(4)
	Q(8)
	Q(12)
	ADDQ $16, SI
	ADDQ $16, R13
	ADDQ $16, R15
	DECQ AX
	JNZ qloop

	ADDQ bf16Args_bk(R8), R14
	DECQ BX
	JNZ kloop

	MOVQ BTAPB, AX
	ADDQ bf16Args_btap(R8), AX
	MOVQ AX, BTAPB
	ADDQ $8, R11
	DECQ R12
	JNZ taploop

	MOVQ GROUP, AX
	SHLQ $6, AX
	LEAQ amxTile_Coff(R9)(AX*1), R11
	MOVQ PANEL, DI
	SHLQ $6, DI
	ADDQ bf16Args_out(R8), DI
	STOREROW(0, Z0)
	STOREROW(1, Z1)
	STOREROW(2, Z2)
	STOREROW(3, Z3)
	STOREROW(4, Z4)
	STOREROW(5, Z5)
	STOREROW(6, Z6)
	STOREROW(7, Z7)

	MOVQ BPANEL, AX
	ADDQ bf16Args_bpanel(R8), AX
	MOVQ AX, BPANEL
	MOVQ PANEL, AX
	INCQ AX
	MOVQ AX, PANEL
	CMPQ AX, bf16Args_np(R8)
	JLT panelloop

	MOVQ GROUP, AX
	INCQ AX
	MOVQ AX, GROUP
	CMPQ AX, $2
	JLT grouploop

	ADDQ $amxTile__size, R9
	DECQ R10
	JNZ tileloop
	VZEROUPPER
	RET
