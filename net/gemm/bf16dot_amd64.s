//go:build amd64 && !noasm

#include "textflag.h"
#include "go_asm.h"

// TileBF16 on AVX512_BF16 (VDPBF16PS: 16 float32 sums each take the
// products of a pair of bfloat16s), for CPUs with the instruction and no
// AMX tiles (AMD Zen 4 and later, Intel Cooper Lake). The tile layout is
// the AMX kernel's: a B tile row is 16 columns of one pair of k, one
// ZMM; a row of A gives a pair of k as one broadcast dword. Eight output
// rows and one panel at a time: sums in Z0..Z7, B in Z16, the row of A
// broadcast by the instruction itself.

// DPB(acc, base, index, scale, d): Z(acc) += Z16 times the dword at byte
// d of base + index*scale broadcast (VDPBF16PS's {1to16} form, so the
// broadcast costs no instruction of its own); registers by number, index
// 4 for none; d a multiple of 4 below 512 (EVEX's disp8 times 4).
#define DPB(acc, base, index, scale, d) BYTE $0x62; BYTE $(((1-(((acc)>>3)&1))<<7) | (1<<6) | ((1-(((base)>>3)&1))<<5) | ((1-(((acc)>>4)&1))<<4) | 2); BYTE $0x7E; BYTE $0x50; BYTE $0x52; BYTE $(0x44 | (((acc)&7)<<3)); BYTE $(((scale)<<6) | (((index)&7)<<3) | ((base)&7)); BYTE $((d)/4)

// Q: one pair of k at byte d of the rows (SI, SI+CX, SI+2CX; R13 = SI+3CX
// and its next two; R15 = SI+6CX and its next), B's row at DI. Register
// numbers: CX 1, SI 6, R13 13, R15 15.
#define Q(d) \
	VMOVDQU32 (DI), Z16 \
	ADDQ DX, DI \
	DPB(0, 6, 4, 0, d) \
	DPB(1, 6, 1, 0, d) \
	DPB(2, 6, 1, 1, d) \
	DPB(3, 13, 4, 0, d) \
	DPB(4, 13, 1, 0, d) \
	DPB(5, 13, 1, 1, d) \
	DPB(6, 15, 4, 0, d) \
	DPB(7, 15, 1, 0, d)

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

// ROWPLACES points R11 at the group's Coff and DI at out plus the
// panel's 16 columns, where LOADROW and STOREROW add 4*Coff[r].
#define ROWPLACES \
	MOVQ GROUP, AX \
	SHLQ $6, AX \
	LEAQ amxTile_Coff(R9)(AX*1), R11 \
	MOVQ PANEL, DI \
	SHLQ $6, DI \
	ADDQ bf16Args_out(R8), DI

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
	// A group of eight dropped rows (the end of an image's last tile) is
	// skipped: Coff is -1 in all of them when their AND is -1.
	MOVQ GROUP, AX
	SHLQ $6, AX
	LEAQ amxTile_Coff(R9)(AX*1), R11
	MOVQ 0(R11), BX
	ANDQ 8(R11), BX
	ANDQ 16(R11), BX
	ANDQ 24(R11), BX
	ANDQ 32(R11), BX
	ANDQ 40(R11), BX
	ANDQ 48(R11), BX
	ANDQ 56(R11), BX
	CMPQ BX, $-1
	JEQ nextgroup
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
	ROWPLACES
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

	ROWPLACES
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

nextgroup:
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
