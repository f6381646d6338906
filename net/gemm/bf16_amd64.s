//go:build amd64 && !noasm

#include "textflag.h"
#include "go_asm.h"

#include "amx_amd64.h"

// B tiles in tmm4..6, sums in tmm0..2.
// TDPBF16PS tmm(c), tmm3, tmm(b): VEX.128.F3.0F38.W0 5C.
#define TDPBF16PS_A(c, b) BYTE $0xC4; BYTE $0xE2; BYTE $(((15-(b))<<3) | 2); BYTE $0x5C; BYTE $(0xC3 | ((c)<<3))

// func amxBF16(args *bf16Args)
TEXT ·amxBF16(SB), NOSPLIT, $0-8
	MOVQ args+0(FP), R8
	MOVQ bf16Args_cfg(R8), AX
	LDTILECFG_AX
	MOVQ bf16Args_tiles(R8), R9
	MOVQ bf16Args_ntiles(R8), R10
	MOVQ bf16Args_np(R8), R12
	MOVQ bf16Args_astride(R8), CX
	MOVQ bf16Args_bstride(R8), DX

tileloop:
	MOVQ bf16Args_a(R8), R13
	ADDQ amxTile_Row(R9), R13
	MOVQ bf16Args_accumulate(R8), AX
	TESTQ AX, AX
	JNZ loadc
	TILEZERO(0)
	CMPQ R12, $2
	JLT zeroed
	TILEZERO(1)
	CMPQ R12, $3
	JLT zeroed
	TILEZERO(2)
	JMP zeroed

loadc:
	// Direct mode, accumulating: the sums so far from out at Coff[0].
	MOVQ amxTile_Coff(R9), BX
	SHLQ $2, BX
	ADDQ bf16Args_out(R8), BX
	MOVQ bf16Args_ldc(R8), AX
	TILELOAD_C(0)
	CMPQ R12, $2
	JLT zeroed
	ADDQ $64, BX
	TILELOAD_C(1)
	CMPQ R12, $3
	JLT zeroed
	ADDQ $64, BX
	TILELOAD_C(2)

zeroed:
	MOVQ bf16Args_taps(R8), R11
	MOVQ bf16Args_b(R8), R14
	MOVQ bf16Args_ntaps(R8), BX

taploop:
	MOVQ R13, SI
	ADDQ (R11), SI
	MOVQ R14, R15
	MOVQ bf16Args_ksteps(R8), AX

kloop:
	TILELOAD_A
	MOVQ R15, DI
	TILELOAD_B(4)
	TDPBF16PS_A(0, 4)
	CMPQ R12, $2
	JLT knext
	ADDQ bf16Args_bpanel(R8), DI
	TILELOAD_B(5)
	TDPBF16PS_A(1, 5)
	CMPQ R12, $3
	JLT knext
	ADDQ bf16Args_bpanel(R8), DI
	TILELOAD_B(6)
	TDPBF16PS_A(2, 6)

knext:
	ADDQ $64, SI
	ADDQ bf16Args_bk(R8), R15
	DECQ AX
	JNZ kloop

	ADDQ bf16Args_btap(R8), R14
	ADDQ $8, R11
	DECQ BX
	JNZ taploop

	MOVQ bf16Args_ldc(R8), AX
	TESTQ AX, AX
	JZ scratch
	// Direct mode: the sums straight to out at Coff[0], rows ldc apart.
	MOVQ amxTile_Coff(R9), BX
	SHLQ $2, BX
	ADDQ bf16Args_out(R8), BX
	TILESTORE(0)
	CMPQ R12, $2
	JLT nexttile
	ADDQ $64, BX
	TILESTORE(1)
	CMPQ R12, $3
	JLT nexttile
	ADDQ $64, BX
	TILESTORE(2)
	JMP nexttile

scratch:
	// The sums, rows np*64 bytes apart.
	MOVQ R12, AX
	SHLQ $6, AX
	MOVQ bf16Args_sum(R8), BX
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
	// Each kept row to its place in out.
	MOVQ bf16Args_sum(R8), BX
	LEAQ amxTile_Coff(R9), R11
	MOVQ bf16Args_out(R8), DI
	MOVQ $16, R14

rowloop:
	MOVQ (R11), SI
	TESTQ SI, SI
	JS rownext
	VMOVUPS 0(BX), Z0
	VMOVUPS Z0, 0(DI)(SI*4)
	CMPQ R12, $2
	JLT rownext
	VMOVUPS 64(BX), Z0
	VMOVUPS Z0, 64(DI)(SI*4)
	CMPQ R12, $3
	JLT rownext
	VMOVUPS 128(BX), Z0
	VMOVUPS Z0, 128(DI)(SI*4)

rownext:
	ADDQ $8, R11
	ADDQ AX, BX
	DECQ R14
	JNZ rowloop

nexttile:
	ADDQ $amxTile__size, R9
	DECQ R10
	JNZ tileloop

	TILERELEASE
	VZEROUPPER
	RET

// ROUND rounds the floats of z to bfloat16 in their upper halves (ties
// to even: add 0x7FFF and the lowest kept bit), tmp scratch; Z30 holds
// 0x7FFF and Z31 1 in every dword.
#define ROUND(z, tmp) \
	VPSRLD $16, z, tmp \
	VPANDD Z31, tmp, tmp \
	VPADDD Z30, z, z \
	VPADDD tmp, z, z

#define ROUNDCONSTS \
	MOVL $0x7FFF, AX \
	VPBROADCASTD AX, Z30 \
	MOVL $1, AX \
	VPBROADCASTD AX, Z31

// func convertBF16AVX512(dst *uint16, src *float32, blocks int)
TEXT ·convertBF16AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	ROUNDCONSTS

block:
	VMOVDQU32 (SI), Z0
	ROUND(Z0, Z1)
	VPSRLD $16, Z0, Z0
	VPMOVDW Z0, Y2
	VMOVDQU Y2, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	DECQ CX
	JNZ block
	VZEROUPPER
	RET

// func convertPixelPairsAVX512(pairs, rows *uint16, src *float32, npairs, ch int)
// For each pair of pixels (a, b), 16 channels at a time: dwords of
// (rounded a) | (rounded b) << 16 to pairs; when rows is not nil, the
// rounded words of a and of b to their rows.
TEXT ·convertPixelPairsAVX512(SB), NOSPLIT, $0-40
	MOVQ pairs+0(FP), DI
	MOVQ rows+8(FP), R9
	MOVQ src+16(FP), SI
	MOVQ npairs+24(FP), R10
	MOVQ ch+32(FP), R11
	MOVQ R11, R12
	SHLQ $2, R12 // bytes of a pixel of src
	SHRQ $4, R11 // blocks of 16 channels
	MOVQ R12, R13
	SHRQ $1, R13 // bytes of a pixel of rows
	ROUNDCONSTS
	MOVL $0xFFFF0000, AX
	VPBROADCASTD AX, Z29

pixpair:
	MOVQ SI, DX        // pixel a; pixel b at DX+R12
	MOVQ R9, R8        // rows of a; of b at R8+R13
	MOVQ R11, CX

chanblock:
	VMOVDQU32 (DX), Z0
	ROUND(Z0, Z1)
	VPSRLD $16, Z0, Z0
	VMOVDQU32 (DX)(R12*1), Z2
	ROUND(Z2, Z3)
	VPANDD Z29, Z2, Z2
	VPORD Z2, Z0, Z4
	VMOVDQU32 Z4, (DI)
	TESTQ R8, R8
	JZ nextblock
	VPMOVDW Z0, Y5
	VMOVDQU Y5, (R8)
	VPSRLD $16, Z2, Z2
	VPMOVDW Z2, Y6
	VMOVDQU Y6, (R8)(R13*1)
	ADDQ $32, R8

nextblock:
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JNZ chanblock

	LEAQ (SI)(R12*2), SI
	TESTQ R9, R9
	JZ nextpair
	LEAQ (R9)(R13*2), R9

nextpair:
	DECQ R10
	JNZ pixpair
	VZEROUPPER
	RET

// LOAD4 fills register x (z) with the 16 bytes at R14 and at 8, 16 and
// 24 pixels on (BX: 8 pixels' bytes, DX: 24), then steps R14 a pixel.
#define LOAD4(x, z) \
	VMOVDQU      (R14), x \
	VINSERTI32X4 $1, (R14)(BX*1), z, z \
	VINSERTI32X4 $2, (R14)(BX*2), z, z \
	VINSERTI32X4 $3, (R14)(DX*1), z, z \
	ADDQ         R9, R14

// func transposeBF16x32AVX512(dst *uint16, dstStride int, src *uint16, srcStride, blocks, groups int)
// Register i (0-7) holds channels c..c+7 of pixels i, i+8, i+16, i+24 in
// its four lanes; after the 8x8 word transpose in each lane, register j
// holds channel c+j of pixels 0-7, 8-15, 16-23, 24-31: a row of dst.
TEXT ·transposeBF16x32AVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R8
	SHLQ $1, R8 // bytes between rows of dst
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R9
	SHLQ $1, R9 // bytes between pixels of src
	MOVQ blocks+32(FP), R10
	MOVQ groups+40(FP), R11
	MOVQ R9, BX
	SHLQ $3, BX         // 8 pixels
	LEAQ (BX)(BX*2), DX // 24 pixels
	MOVQ R9, AX
	SHLQ $5, AX         // 32 pixels: a block

tblock:
	MOVQ SI, R12 // the group's channels at the block's first pixel
	MOVQ DI, R13 // the group's first row at the block's first pixel
	MOVQ R11, CX

tgroup:
	MOVQ R12, R14
	LOAD4(X0, Z0)
	LOAD4(X1, Z1)
	LOAD4(X2, Z2)
	LOAD4(X3, Z3)
	LOAD4(X4, Z4)
	LOAD4(X5, Z5)
	LOAD4(X6, Z6)
	LOAD4(X7, Z7)
	VPUNPCKLWD  Z1, Z0, Z16
	VPUNPCKHWD  Z1, Z0, Z17
	VPUNPCKLWD  Z3, Z2, Z18
	VPUNPCKHWD  Z3, Z2, Z19
	VPUNPCKLWD  Z5, Z4, Z20
	VPUNPCKHWD  Z5, Z4, Z21
	VPUNPCKLWD  Z7, Z6, Z22
	VPUNPCKHWD  Z7, Z6, Z23
	VPUNPCKLDQ  Z18, Z16, Z0
	VPUNPCKHDQ  Z18, Z16, Z1
	VPUNPCKLDQ  Z19, Z17, Z2
	VPUNPCKHDQ  Z19, Z17, Z3
	VPUNPCKLDQ  Z22, Z20, Z4
	VPUNPCKHDQ  Z22, Z20, Z5
	VPUNPCKLDQ  Z23, Z21, Z6
	VPUNPCKHDQ  Z23, Z21, Z7
	VPUNPCKLQDQ Z4, Z0, Z16
	VPUNPCKHQDQ Z4, Z0, Z17
	VPUNPCKLQDQ Z5, Z1, Z18
	VPUNPCKHQDQ Z5, Z1, Z19
	VPUNPCKLQDQ Z6, Z2, Z20
	VPUNPCKHQDQ Z6, Z2, Z21
	VPUNPCKLQDQ Z7, Z3, Z22
	VPUNPCKHQDQ Z7, Z3, Z23
	MOVQ        R13, R14
	VMOVDQU64   Z16, (R14)
	ADDQ        R8, R14
	VMOVDQU64   Z17, (R14)
	ADDQ        R8, R14
	VMOVDQU64   Z18, (R14)
	ADDQ        R8, R14
	VMOVDQU64   Z19, (R14)
	ADDQ        R8, R14
	VMOVDQU64   Z20, (R14)
	ADDQ        R8, R14
	VMOVDQU64   Z21, (R14)
	ADDQ        R8, R14
	VMOVDQU64   Z22, (R14)
	ADDQ        R8, R14
	VMOVDQU64   Z23, (R14)
	ADDQ        $16, R12          // 8 channels on
	LEAQ        (R13)(R8*8), R13  // 8 rows on
	DECQ        CX
	JNZ         tgroup

	ADDQ AX, SI
	ADDQ $64, DI
	DECQ R10
	JNZ  tblock
	VZEROUPPER
	RET
