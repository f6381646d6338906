//go:build amd64 && !noasm

#include "textflag.h"

// Winograd F(2x2, 3x3)'s transforms on channel vectors, and the products
// between them with VDPBF16PS (winograd.go). The transforms' additions
// run in the Go twins' order, so the two agree bit for bit on finite
// numbers.

// CVT(d, s): VCVTNEPS2BF16 Y(d), Z(s), the 16 floats of Z(s) rounded to
// bfloat16 (to nearest, ties to even, as ToBF16 for normal numbers).
#define CVT(d, s) BYTE $0x62; BYTE $(((1-(((d)>>3)&1))<<7) | ((1-(((s)>>4)&1))<<6) | ((1-(((s)>>3)&1))<<5) | ((1-(((d)>>4)&1))<<4) | 2); BYTE $0x7E; BYTE $0x48; BYTE $0x72; BYTE $(0xC0 | (((d)&7)<<3) | ((s)&7))

// DPB(acc, b, base, index, scale): Z(acc) += Z(b) times the dword at
// base + index*scale broadcast (VDPBF16PS's {1to16} form); registers by
// number, index 4 for none.
#define DPB(acc, b, base, index, scale) BYTE $0x62; BYTE $(((1-(((acc)>>3)&1))<<7) | ((1-(((index)>>3)&1))<<6) | ((1-(((base)>>3)&1))<<5) | ((1-(((acc)>>4)&1))<<4) | 2); BYTE $(((15-((b)&15))<<3) | 6); BYTE $(0x50 | ((1-(((b)>>4)&1))<<3)); BYTE $0x52; BYTE $(0x44 | (((acc)&7)<<3)); BYTE $(((scale)<<6) | (((index)&7)<<3) | ((base)&7)); BYTE $0

// COLUMN(z0, z1, z2, z3): one column of the four rows (R8..R11 at R14)
// combined down the rows, Bᵀ d: d0 - d2, d1 + d2, d2 - d1, d1 - d3 into
// z0..z3 (Z16..Z19 scratch).
#define COLUMN(z0, z1, z2, z3) \
	VMOVUPS (R8)(R14*1), Z16 \
	VMOVUPS (R9)(R14*1), Z17 \
	VMOVUPS (R10)(R14*1), Z18 \
	VMOVUPS (R11)(R14*1), Z19 \
	VSUBPS Z18, Z16, z0 \
	VADDPS Z18, Z17, z1 \
	VSUBPS Z17, Z18, z2 \
	VSUBPS Z19, Z17, z3 \
	ADDQ R12, R14

// STOREV(z): element z (a register number) of the tile rounded, stored
// at R13, R13 stepped to the next element.
#define STOREV(z) \
	CVT(24, z) \
	VMOVDQU16 Y24, (R13) \
	ADDQ CX, R13

// VROW(l0, l1, r0, r1): a row of Bᵀ d B from the row's four columns
// (l0, l1 the tile's first two, r0, r1 its last two): l0 - r0, l1 + r0,
// r0 - l1, l1 - r1, stored as the row's four elements.
#define VROW(l0, l1, r0, r1) \
	VSUBPS r0, l0, Z20 \
	VADDPS r0, l1, Z21 \
	VSUBPS l1, r0, Z22 \
	VSUBPS r1, l1, Z23 \
	STOREV(20) \
	STOREV(21) \
	STOREV(22) \
	STOREV(23)

// TILE(lo, hi): the tile whose first two columns are combined in the
// registers lo (rows i in lo+2i, lo+2i+1) and whose last two are loaded
// and combined into hi; tile pointer SI, stepped to the next tile.
#define TILE(L0, L1, L2, L3, L4, L5, L6, L7, H0, H1, H2, H3, H4, H5, H6, H7) \
	COLUMN(H0, H2, H4, H6) \
	COLUMN(H1, H3, H5, H7) \
	MOVQ SI, R13 \
	VROW(L0, L1, H0, H1) \
	VROW(L2, L3, H2, H3) \
	VROW(L4, L5, H4, H5) \
	VROW(L6, L7, H6, H7) \
	ADDQ DI, SI

// func winogradInputAVX512(v *uint16, xiStride int, r0, r1, r2, r3 *float32, tiles, ch int)
// 16 channels at a time across the tiles: a column's combination down
// the rows is made once for the two tiles that share it, in registers
// that take turns (Z0..Z7, Z8..Z15) as a tile's first and last columns.
TEXT ·winogradInputAVX512(SB), NOSPLIT, $0-64
	MOVQ xiStride+8(FP), CX
	SHLQ $1, CX // bytes
	MOVQ r0+16(FP), R8
	MOVQ r1+24(FP), R9
	MOVQ r2+32(FP), R10
	MOVQ r3+40(FP), R11
	MOVQ ch+56(FP), R12
	SHLQ $2, R12 // bytes of a column
	MOVQ R12, DI
	SHRQ $1, DI // bytes of a tile in v
	MOVQ R12, DX
	SHRQ $6, DX // blocks of 16 channels
	XORQ AX, AX // the block's bytes in a row
	MOVQ v+0(FP), R15 // the block's place in element 0

block:
	MOVQ AX, R14
	COLUMN(Z0, Z2, Z4, Z6)
	COLUMN(Z1, Z3, Z5, Z7)
	MOVQ R15, SI
	MOVQ tiles+48(FP), BX

pair:
	TILE(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	DECQ BX
	JZ nextblock
	TILE(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	DECQ BX
	JNZ pair

nextblock:
	ADDQ $64, AX
	ADDQ $32, R15
	DECQ DX
	JNZ block
	VZEROUPPER
	RET

// LOADM(z): element z of the block from R13, R13 stepped to the next.
#define LOADM(z) \
	VMOVUPS (R13), z \
	ADDQ CX, R13

// LOAD16: the block's 16 elements from R15 (CX bytes apart) into
// Z0..Z15.
#define LOAD16 \
	MOVQ R15, R13 \
	LOADM(Z0) \
	LOADM(Z1) \
	LOADM(Z2) \
	LOADM(Z3) \
	LOADM(Z4) \
	LOADM(Z5) \
	LOADM(Z6) \
	LOADM(Z7) \
	LOADM(Z8) \
	LOADM(Z9) \
	LOADM(Z10) \
	LOADM(Z11) \
	LOADM(Z12) \
	LOADM(Z13) \
	LOADM(Z14) \
	LOADM(Z15)

// func winogradOutputAVX512(y0, y1 *float32, m *float32, xiStride, tiles, half, ch int)
// y1 nil writes the first row only; half 1 the last tile's first column
// only.
TEXT ·winogradOutputAVX512(SB), NOSPLIT, $0-56
	MOVQ y0+0(FP), R8
	MOVQ y1+8(FP), R9
	MOVQ m+16(FP), DI
	MOVQ xiStride+24(FP), CX
	SHLQ $2, CX
	MOVQ tiles+32(FP), BX
	MOVQ ch+48(FP), R12
	SHLQ $2, R12 // bytes of a column
	MOVQ R12, R14
	SHRQ $6, R14

tile:
	XORQ AX, AX
	MOVQ DI, R15
	MOVQ R14, DX
	// R10: 1 when this tile writes its second column.
	MOVQ $1, R10
	CMPQ BX, $1
	JNE block
	MOVQ half+40(FP), R11
	SUBQ R11, R10

block:
	LOAD16
	// Aᵀ M: s0 = m0 + m1 + m2, s1 = m1 - m2 - m3 (rows of M).
	VADDPS Z4, Z0, Z16
	VADDPS Z8, Z16, Z16
	VADDPS Z5, Z1, Z17
	VADDPS Z9, Z17, Z17
	VADDPS Z6, Z2, Z18
	VADDPS Z10, Z18, Z18
	VADDPS Z7, Z3, Z19
	VADDPS Z11, Z19, Z19
	VSUBPS Z8, Z4, Z20
	VSUBPS Z12, Z20, Z20
	VSUBPS Z9, Z5, Z21
	VSUBPS Z13, Z21, Z21
	VSUBPS Z10, Z6, Z22
	VSUBPS Z14, Z22, Z22
	VSUBPS Z11, Z7, Z23
	VSUBPS Z15, Z23, Z23
	// (Aᵀ M) A: the same on the columns.
	VADDPS Z17, Z16, Z24
	VADDPS Z18, Z24, Z24
	VSUBPS Z18, Z17, Z25
	VSUBPS Z19, Z25, Z25
	VADDPS Z21, Z20, Z26
	VADDPS Z22, Z26, Z26
	VSUBPS Z22, Z21, Z27
	VSUBPS Z23, Z27, Z27
	VMOVUPS Z24, (R8)(AX*1)
	TESTQ R10, R10
	JZ row1
	LEAQ (R8)(R12*1), SI
	VMOVUPS Z25, (SI)(AX*1)

row1:
	TESTQ R9, R9
	JZ next
	VMOVUPS Z26, (R9)(AX*1)
	TESTQ R10, R10
	JZ next
	LEAQ (R9)(R12*1), SI
	VMOVUPS Z27, (SI)(AX*1)

next:
	ADDQ $64, AX
	ADDQ $64, R15
	DECQ DX
	JNZ block

	LEAQ (R8)(R12*2), R8
	TESTQ R9, R9
	JZ step
	LEAQ (R9)(R12*2), R9

step:
	ADDQ R12, DI
	DECQ BX
	JNZ tile
	VZEROUPPER
	RET

// ROW3(acc, base, index, scale): a row's pair of k times the three
// panels of B (Z24..Z26) into Z(acc)..Z(acc+2).
#define ROW3(acc, base, index, scale) \
	DPB(acc, 24, base, index, scale) \
	DPB(acc+1, 25, base, index, scale) \
	DPB(acc+2, 26, base, index, scale)

#define ROW2(acc, base, index, scale) \
	DPB(acc, 24, base, index, scale) \
	DPB(acc+1, 25, base, index, scale)

#define ROW1(acc, base, index, scale) \
	DPB(acc, 24, base, index, scale)

// ROWS(R, stride): the eight rows of a group: SI, SI+CX, SI+2CX, R13 =
// SI+3CX and its next two, R15 = SI+6CX and its next. Register numbers:
// CX 1, SI 6, R13 13, R15 15.
#define ROWS(R, s) \
	R(0, 6, 4, 0) \
	R(s, 6, 1, 0) \
	R(2*s, 6, 1, 1) \
	R(3*s, 13, 4, 0) \
	R(4*s, 13, 1, 0) \
	R(5*s, 13, 1, 1) \
	R(6*s, 15, 4, 0) \
	R(7*s, 15, 1, 0)

#define GROUPROWS \
	MOVQ R10, SI \
	LEAQ (SI)(CX*2), R13 \
	ADDQ CX, R13 \
	LEAQ (R13)(CX*2), R15 \
	ADDQ CX, R15 \
	MOVQ R12, DI \
	MOVQ BX, AX

#define STEPK \
	ADDQ $4, SI \
	ADDQ $4, R13 \
	ADDQ $4, R15 \
	DECQ AX

// func dotPairsBF16AVX512(c *float32, ldc int, a *uint16, lda, groups int, b *uint16, kp, np, accumulate int)
// Eight rows of a and c at a time (groups of them), 8*np sums in
// registers, starting from zero or (accumulate) from c.
TEXT ·dotPairsBF16AVX512(SB), NOSPLIT, $0-72
	MOVQ c+0(FP), R8
	MOVQ ldc+8(FP), R9
	SHLQ $2, R9
	MOVQ a+16(FP), R10
	MOVQ lda+24(FP), CX
	SHLQ $1, CX
	MOVQ groups+32(FP), R11
	MOVQ b+40(FP), R12
	MOVQ kp+48(FP), BX
	MOVQ np+56(FP), DX
	CMPQ DX, $2
	JEQ group2
	JLT group1

group3:
	CMPQ accumulate+64(FP), $0
	JNE load3
	VPXORD Z0, Z0, Z0
	VMOVDQA64 Z0, Z1
	VMOVDQA64 Z0, Z2
	VMOVDQA64 Z0, Z3
	VMOVDQA64 Z0, Z4
	VMOVDQA64 Z0, Z5
	VMOVDQA64 Z0, Z6
	VMOVDQA64 Z0, Z7
	VMOVDQA64 Z0, Z8
	VMOVDQA64 Z0, Z9
	VMOVDQA64 Z0, Z10
	VMOVDQA64 Z0, Z11
	VMOVDQA64 Z0, Z12
	VMOVDQA64 Z0, Z13
	VMOVDQA64 Z0, Z14
	VMOVDQA64 Z0, Z15
	VMOVDQA64 Z0, Z16
	VMOVDQA64 Z0, Z17
	VMOVDQA64 Z0, Z18
	VMOVDQA64 Z0, Z19
	VMOVDQA64 Z0, Z20
	VMOVDQA64 Z0, Z21
	VMOVDQA64 Z0, Z22
	VMOVDQA64 Z0, Z23
	JMP rows3

load3:
	MOVQ R8, R14
	VMOVUPS (R14), Z0
	VMOVUPS 64(R14), Z1
	VMOVUPS 128(R14), Z2
	ADDQ R9, R14
	VMOVUPS (R14), Z3
	VMOVUPS 64(R14), Z4
	VMOVUPS 128(R14), Z5
	ADDQ R9, R14
	VMOVUPS (R14), Z6
	VMOVUPS 64(R14), Z7
	VMOVUPS 128(R14), Z8
	ADDQ R9, R14
	VMOVUPS (R14), Z9
	VMOVUPS 64(R14), Z10
	VMOVUPS 128(R14), Z11
	ADDQ R9, R14
	VMOVUPS (R14), Z12
	VMOVUPS 64(R14), Z13
	VMOVUPS 128(R14), Z14
	ADDQ R9, R14
	VMOVUPS (R14), Z15
	VMOVUPS 64(R14), Z16
	VMOVUPS 128(R14), Z17
	ADDQ R9, R14
	VMOVUPS (R14), Z18
	VMOVUPS 64(R14), Z19
	VMOVUPS 128(R14), Z20
	ADDQ R9, R14
	VMOVUPS (R14), Z21
	VMOVUPS 64(R14), Z22
	VMOVUPS 128(R14), Z23

rows3:
	GROUPROWS

k3:
	VMOVDQU32 (DI), Z24
	VMOVDQU32 64(DI), Z25
	VMOVDQU32 128(DI), Z26
	ADDQ $192, DI
	ROWS(ROW3, 3)
	STEPK
	JNZ k3

	MOVQ R8, R14
	VMOVUPS Z0, (R14)
	VMOVUPS Z1, 64(R14)
	VMOVUPS Z2, 128(R14)
	ADDQ R9, R14
	VMOVUPS Z3, (R14)
	VMOVUPS Z4, 64(R14)
	VMOVUPS Z5, 128(R14)
	ADDQ R9, R14
	VMOVUPS Z6, (R14)
	VMOVUPS Z7, 64(R14)
	VMOVUPS Z8, 128(R14)
	ADDQ R9, R14
	VMOVUPS Z9, (R14)
	VMOVUPS Z10, 64(R14)
	VMOVUPS Z11, 128(R14)
	ADDQ R9, R14
	VMOVUPS Z12, (R14)
	VMOVUPS Z13, 64(R14)
	VMOVUPS Z14, 128(R14)
	ADDQ R9, R14
	VMOVUPS Z15, (R14)
	VMOVUPS Z16, 64(R14)
	VMOVUPS Z17, 128(R14)
	ADDQ R9, R14
	VMOVUPS Z18, (R14)
	VMOVUPS Z19, 64(R14)
	VMOVUPS Z20, 128(R14)
	ADDQ R9, R14
	VMOVUPS Z21, (R14)
	VMOVUPS Z22, 64(R14)
	VMOVUPS Z23, 128(R14)
	LEAQ (R10)(CX*8), R10
	LEAQ (R8)(R9*8), R8
	DECQ R11
	JNZ group3
	VZEROUPPER
	RET

group2:
	CMPQ accumulate+64(FP), $0
	JNE load2
	VPXORD Z0, Z0, Z0
	VMOVDQA64 Z0, Z1
	VMOVDQA64 Z0, Z2
	VMOVDQA64 Z0, Z3
	VMOVDQA64 Z0, Z4
	VMOVDQA64 Z0, Z5
	VMOVDQA64 Z0, Z6
	VMOVDQA64 Z0, Z7
	VMOVDQA64 Z0, Z8
	VMOVDQA64 Z0, Z9
	VMOVDQA64 Z0, Z10
	VMOVDQA64 Z0, Z11
	VMOVDQA64 Z0, Z12
	VMOVDQA64 Z0, Z13
	VMOVDQA64 Z0, Z14
	VMOVDQA64 Z0, Z15
	JMP rows2

load2:
	MOVQ R8, R14
	VMOVUPS (R14), Z0
	VMOVUPS 64(R14), Z1
	ADDQ R9, R14
	VMOVUPS (R14), Z2
	VMOVUPS 64(R14), Z3
	ADDQ R9, R14
	VMOVUPS (R14), Z4
	VMOVUPS 64(R14), Z5
	ADDQ R9, R14
	VMOVUPS (R14), Z6
	VMOVUPS 64(R14), Z7
	ADDQ R9, R14
	VMOVUPS (R14), Z8
	VMOVUPS 64(R14), Z9
	ADDQ R9, R14
	VMOVUPS (R14), Z10
	VMOVUPS 64(R14), Z11
	ADDQ R9, R14
	VMOVUPS (R14), Z12
	VMOVUPS 64(R14), Z13
	ADDQ R9, R14
	VMOVUPS (R14), Z14
	VMOVUPS 64(R14), Z15

rows2:
	GROUPROWS

k2:
	VMOVDQU32 (DI), Z24
	VMOVDQU32 64(DI), Z25
	ADDQ $128, DI
	ROWS(ROW2, 2)
	STEPK
	JNZ k2

	MOVQ R8, R14
	VMOVUPS Z0, (R14)
	VMOVUPS Z1, 64(R14)
	ADDQ R9, R14
	VMOVUPS Z2, (R14)
	VMOVUPS Z3, 64(R14)
	ADDQ R9, R14
	VMOVUPS Z4, (R14)
	VMOVUPS Z5, 64(R14)
	ADDQ R9, R14
	VMOVUPS Z6, (R14)
	VMOVUPS Z7, 64(R14)
	ADDQ R9, R14
	VMOVUPS Z8, (R14)
	VMOVUPS Z9, 64(R14)
	ADDQ R9, R14
	VMOVUPS Z10, (R14)
	VMOVUPS Z11, 64(R14)
	ADDQ R9, R14
	VMOVUPS Z12, (R14)
	VMOVUPS Z13, 64(R14)
	ADDQ R9, R14
	VMOVUPS Z14, (R14)
	VMOVUPS Z15, 64(R14)
	LEAQ (R10)(CX*8), R10
	LEAQ (R8)(R9*8), R8
	DECQ R11
	JNZ group2
	VZEROUPPER
	RET

group1:
	CMPQ accumulate+64(FP), $0
	JNE load1
	VPXORD Z0, Z0, Z0
	VMOVDQA64 Z0, Z1
	VMOVDQA64 Z0, Z2
	VMOVDQA64 Z0, Z3
	VMOVDQA64 Z0, Z4
	VMOVDQA64 Z0, Z5
	VMOVDQA64 Z0, Z6
	VMOVDQA64 Z0, Z7
	JMP rows1

load1:
	MOVQ R8, R14
	VMOVUPS (R14), Z0
	ADDQ R9, R14
	VMOVUPS (R14), Z1
	ADDQ R9, R14
	VMOVUPS (R14), Z2
	ADDQ R9, R14
	VMOVUPS (R14), Z3
	ADDQ R9, R14
	VMOVUPS (R14), Z4
	ADDQ R9, R14
	VMOVUPS (R14), Z5
	ADDQ R9, R14
	VMOVUPS (R14), Z6
	ADDQ R9, R14
	VMOVUPS (R14), Z7

rows1:
	GROUPROWS

k1:
	VMOVDQU32 (DI), Z24
	ADDQ $64, DI
	ROWS(ROW1, 1)
	STEPK
	JNZ k1

	MOVQ R8, R14
	VMOVUPS Z0, (R14)
	ADDQ R9, R14
	VMOVUPS Z1, (R14)
	ADDQ R9, R14
	VMOVUPS Z2, (R14)
	ADDQ R9, R14
	VMOVUPS Z3, (R14)
	ADDQ R9, R14
	VMOVUPS Z4, (R14)
	ADDQ R9, R14
	VMOVUPS Z5, (R14)
	ADDQ R9, R14
	VMOVUPS Z6, (R14)
	ADDQ R9, R14
	VMOVUPS Z7, (R14)
	LEAQ (R10)(CX*8), R10
	LEAQ (R8)(R9*8), R8
	DECQ R11
	JNZ group1
	VZEROUPPER
	RET

// NEG(z): z with its sign flipped, as Go's unary minus (Z31: the sign
// bit in every lane).
#define NEG(src, dst) VXORPS Z31, src, dst

#define SIGNMASK \
	MOVL $0x80000000, AX \
	VPBROADCASTD AX, Z31

// func winogradDyAVX512(e *uint16, xiStride int, dy0, dy1 *float32, tiles, ch int)
TEXT ·winogradDyAVX512(SB), NOSPLIT, $0-48
	MOVQ e+0(FP), DI
	MOVQ xiStride+8(FP), CX
	SHLQ $1, CX
	MOVQ dy0+16(FP), R8
	MOVQ dy1+24(FP), R9
	MOVQ tiles+32(FP), BX
	MOVQ ch+40(FP), R12
	SHLQ $2, R12 // bytes of a column
	MOVQ R12, R14
	SHRQ $6, R14
	SIGNMASK

dytile:
	XORQ AX, AX
	MOVQ DI, R15
	MOVQ R14, DX

dyblock:
	// a, b: the first row's two columns; d, f: the second's.
	VMOVUPS (R8)(AX*1), Z0
	LEAQ (R8)(R12*1), SI
	VMOVUPS (SI)(AX*1), Z1
	VMOVUPS (R9)(AX*1), Z2
	LEAQ (R9)(R12*1), SI
	VMOVUPS (SI)(AX*1), Z3
	// A dY: rows (a, b), (a+d, b+f), (a-d, b-f), (-d, -f) in Z4..Z11.
	VMOVAPS Z0, Z4
	VMOVAPS Z1, Z5
	VADDPS Z2, Z0, Z6
	VADDPS Z3, Z1, Z7
	VSUBPS Z2, Z0, Z8
	VSUBPS Z3, Z1, Z9
	NEG(Z2, Z10)
	NEG(Z3, Z11)
	// (A dY) Aᵀ: each row (p, q) to p, p+q, p-q, -q.
	VMOVAPS Z4, Z12
	VADDPS Z5, Z4, Z13
	VSUBPS Z5, Z4, Z14
	NEG(Z5, Z15)
	VMOVAPS Z6, Z16
	VADDPS Z7, Z6, Z17
	VSUBPS Z7, Z6, Z18
	NEG(Z7, Z19)
	VMOVAPS Z8, Z20
	VADDPS Z9, Z8, Z21
	VSUBPS Z9, Z8, Z22
	NEG(Z9, Z23)
	VMOVAPS Z10, Z24
	VADDPS Z11, Z10, Z25
	VSUBPS Z11, Z10, Z26
	NEG(Z11, Z27)
	MOVQ R15, R13
	CVT(0, 12)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 13)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 14)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 15)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 16)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 17)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 18)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 19)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 20)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 21)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 22)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 23)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 24)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 25)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 26)
	VMOVDQU16 Y0, (R13)
	ADDQ CX, R13
	CVT(0, 27)
	VMOVDQU16 Y0, (R13)
	ADDQ $64, AX
	ADDQ $32, R15
	DECQ DX
	JNZ dyblock

	LEAQ (R8)(R12*2), R8
	LEAQ (R9)(R12*2), R9
	MOVQ R12, AX
	SHRQ $1, AX
	ADDQ AX, DI
	DECQ BX
	JNZ dytile
	VZEROUPPER
	RET

// ADDROW(p, q0, q1, q2, q3): a patch row's four columns at p + AX (R12
// bytes apart) += q0, (q1 - q2) + q3, (q1 + q2) - q0, -q3 (Z28..Z30
// scratch).
#define ADDROW(p, q0, q1, q2, q3) \
	LEAQ (p)(AX*1), SI \
	VADDPS (SI), q0, Z28 \
	VMOVUPS Z28, (SI) \
	VSUBPS q2, q1, Z29 \
	VADDPS q3, Z29, Z29 \
	VADDPS (SI)(R12*1), Z29, Z29 \
	VMOVUPS Z29, (SI)(R12*1) \
	VADDPS q2, q1, Z30 \
	VSUBPS q0, Z30, Z30 \
	VADDPS (SI)(R12*2), Z30, Z30 \
	VMOVUPS Z30, (SI)(R12*2) \
	LEAQ (SI)(R12*2), SI \
	VMOVUPS (SI)(R12*1), Z28 \
	VSUBPS q3, Z28, Z28 \
	VMOVUPS Z28, (SI)(R12*1)

// MIXROW is ADDROW storing its last two columns, STOREROW4 storing all
// four (winogradGradInput's fresh rows).
#define MIXROW(p, q0, q1, q2, q3) \
	LEAQ (p)(AX*1), SI \
	VADDPS (SI), q0, Z28 \
	VMOVUPS Z28, (SI) \
	VSUBPS q2, q1, Z29 \
	VADDPS q3, Z29, Z29 \
	VADDPS (SI)(R12*1), Z29, Z29 \
	VMOVUPS Z29, (SI)(R12*1) \
	VADDPS q2, q1, Z30 \
	VSUBPS q0, Z30, Z30 \
	VMOVUPS Z30, (SI)(R12*2) \
	LEAQ (SI)(R12*2), SI \
	NEG(q3, Z28) \
	VMOVUPS Z28, (SI)(R12*1)

#define STOREROW4(p, q0, q1, q2, q3) \
	LEAQ (p)(AX*1), SI \
	VMOVUPS q0, (SI) \
	VSUBPS q2, q1, Z29 \
	VADDPS q3, Z29, Z29 \
	VMOVUPS Z29, (SI)(R12*1) \
	VADDPS q2, q1, Z30 \
	VSUBPS q0, Z30, Z30 \
	VMOVUPS Z30, (SI)(R12*2) \
	LEAQ (SI)(R12*2), SI \
	NEG(q3, Z28) \
	VMOVUPS Z28, (SI)(R12*1)

// func winogradGradInputAVX512(r0, r1, r2, r3 *float32, n *float32, xiStride, tiles, ch, fresh int)
TEXT ·winogradGradInputAVX512(SB), NOSPLIT, $0-72
	MOVQ r0+0(FP), R8
	MOVQ r1+8(FP), R9
	MOVQ r2+16(FP), R10
	MOVQ r3+24(FP), R11
	MOVQ n+32(FP), DI
	MOVQ xiStride+40(FP), CX
	SHLQ $2, CX
	MOVQ tiles+48(FP), BX
	MOVQ ch+56(FP), R12
	SHLQ $2, R12
	MOVQ R12, R14
	SHRQ $6, R14
	SIGNMASK

gitile:
	XORQ AX, AX
	MOVQ DI, R15
	MOVQ R14, DX

giblock:
	LOAD16
	// B N: rows n0, (n1 - n2) + n3, (n1 + n2) - n0, -n3 in Z16..Z27
	// (row 0 stays in Z0..Z3).
	VSUBPS Z8, Z4, Z16
	VADDPS Z12, Z16, Z16
	VSUBPS Z9, Z5, Z17
	VADDPS Z13, Z17, Z17
	VSUBPS Z10, Z6, Z18
	VADDPS Z14, Z18, Z18
	VSUBPS Z11, Z7, Z19
	VADDPS Z15, Z19, Z19
	VADDPS Z8, Z4, Z20
	VSUBPS Z0, Z20, Z20
	VADDPS Z9, Z5, Z21
	VSUBPS Z1, Z21, Z21
	VADDPS Z10, Z6, Z22
	VSUBPS Z2, Z22, Z22
	VADDPS Z11, Z7, Z23
	VSUBPS Z3, Z23, Z23
	NEG(Z12, Z24)
	NEG(Z13, Z25)
	NEG(Z14, Z26)
	NEG(Z15, Z27)
	ADDROW(R8, Z0, Z1, Z2, Z3)
	ADDROW(R9, Z16, Z17, Z18, Z19)
	CMPQ fresh+64(FP), $0
	JEQ giadd
	CMPQ BX, tiles+48(FP)
	JEQ gistore
	MIXROW(R10, Z20, Z21, Z22, Z23)
	MIXROW(R11, Z24, Z25, Z26, Z27)
	JMP ginext

gistore:
	STOREROW4(R10, Z20, Z21, Z22, Z23)
	STOREROW4(R11, Z24, Z25, Z26, Z27)
	JMP ginext

giadd:
	ADDROW(R10, Z20, Z21, Z22, Z23)
	ADDROW(R11, Z24, Z25, Z26, Z27)

ginext:
	ADDQ $64, AX
	ADDQ $64, R15
	DECQ DX
	JNZ giblock

	LEAQ (R8)(R12*2), R8
	LEAQ (R9)(R12*2), R9
	LEAQ (R10)(R12*2), R10
	LEAQ (R11)(R12*2), R11
	ADDQ R12, DI
	DECQ BX
	JNZ gitile
	VZEROUPPER
	RET

// func pairRowsAVX512(pairs, rows *uint16, n, ch int)
TEXT ·pairRowsAVX512(SB), NOSPLIT, $0-32
	MOVQ pairs+0(FP), DI
	MOVQ rows+8(FP), SI
	MOVQ n+16(FP), BX
	SHRQ $1, BX
	MOVQ ch+24(FP), R12
	SHLQ $1, R12 // bytes of a row
	MOVQ R12, R14
	SHRQ $5, R14

pair:
	MOVQ R14, DX
	MOVQ SI, R8

pairblock:
	VPMOVZXWD (R8), Z0
	VPMOVZXWD (R8)(R12*1), Z1
	VPSLLD $16, Z1, Z1
	VPORD Z1, Z0, Z0
	VMOVDQU32 Z0, (DI)
	ADDQ $32, R8
	ADDQ $64, DI
	DECQ DX
	JNZ pairblock

	LEAQ (SI)(R12*2), SI
	DECQ BX
	JNZ pair
	VZEROUPPER
	RET

// lanes<>: 0..15 as dwords, the gathers' and scatters' lane numbers.
DATA lanes<>+0(SB)/4, $0
DATA lanes<>+4(SB)/4, $1
DATA lanes<>+8(SB)/4, $2
DATA lanes<>+12(SB)/4, $3
DATA lanes<>+16(SB)/4, $4
DATA lanes<>+20(SB)/4, $5
DATA lanes<>+24(SB)/4, $6
DATA lanes<>+28(SB)/4, $7
DATA lanes<>+32(SB)/4, $8
DATA lanes<>+36(SB)/4, $9
DATA lanes<>+40(SB)/4, $10
DATA lanes<>+44(SB)/4, $11
DATA lanes<>+48(SB)/4, $12
DATA lanes<>+52(SB)/4, $13
DATA lanes<>+56(SB)/4, $14
DATA lanes<>+60(SB)/4, $15
GLOBL lanes<>(SB), RODATA|NOPTR, $64

// GATHER(t, z): tap t of the 16 filters' weights at SI (lane stride
// Z30) into z.
#define GATHER(t, z) \
	KXNORW K1, K1, K1 \
	VGATHERDPS ((t)*4)(SI)(Z30*4), K1, z

// UROW(a, b, c, na, nc, i, off): row i of U = h G from the row (a, b,
// c) of h = G g, rounded, to the scratch at off + 32*(4i+k); register
// numbers na and nc for CVT.
#define UROW(a, b, c, na, nc, i, off) \
	CVT(20, na) \
	VMOVDQU16 Y20, (off+32*(4*i))(SP) \
	VADDPS b, a, Z16 \
	VADDPS c, Z16, Z16 \
	VMULPS Z28, Z16, Z16 \
	CVT(20, 16) \
	VMOVDQU16 Y20, (off+32*(4*i+1))(SP) \
	VSUBPS b, a, Z17 \
	VADDPS c, Z17, Z17 \
	VMULPS Z28, Z17, Z17 \
	CVT(20, 17) \
	VMOVDQU16 Y20, (off+32*(4*i+2))(SP) \
	CVT(20, nc) \
	VMOVDQU16 Y20, (off+32*(4*i+3))(SP)

// FILTERU(off): U of 16 filters (input channels CX.., output channel BX)
// into the scratch at off.
#define FILTERU(off) \
	MOVQ BX, SI \
	IMULQ R11, SI \
	ADDQ CX, SI \
	LEAQ (SI)(SI*8), SI \
	LEAQ (R10)(SI*4), SI \
	GATHER(0, Z0) \
	GATHER(1, Z1) \
	GATHER(2, Z2) \
	GATHER(3, Z3) \
	GATHER(4, Z4) \
	GATHER(5, Z5) \
	GATHER(6, Z6) \
	GATHER(7, Z7) \
	GATHER(8, Z8) \
	VADDPS Z3, Z0, Z9 \
	VADDPS Z6, Z9, Z9 \
	VMULPS Z28, Z9, Z9 \
	VADDPS Z4, Z1, Z10 \
	VADDPS Z7, Z10, Z10 \
	VMULPS Z28, Z10, Z10 \
	VADDPS Z5, Z2, Z11 \
	VADDPS Z8, Z11, Z11 \
	VMULPS Z28, Z11, Z11 \
	VSUBPS Z3, Z0, Z12 \
	VADDPS Z6, Z12, Z12 \
	VMULPS Z28, Z12, Z12 \
	VSUBPS Z4, Z1, Z13 \
	VADDPS Z7, Z13, Z13 \
	VMULPS Z28, Z13, Z13 \
	VSUBPS Z5, Z2, Z14 \
	VADDPS Z8, Z14, Z14 \
	VMULPS Z28, Z14, Z14 \
	UROW(Z0, Z1, Z2, 0, 2, 0, off) \
	UROW(Z9, Z10, Z11, 9, 11, 1, off) \
	UROW(Z12, Z13, Z14, 12, 14, 2, off) \
	UROW(Z6, Z7, Z8, 6, 8, 3, off)

// func winogradFiltersAVX512(u, ut *uint16, w *float32, in, out, o0, o1 int)
// Two output channels and 16 input channels at a time: the 16 filters'
// U for each output channel into the scratch (16 elements of 16
// bfloat16s), then each element as pairs of output channels (ut, one
// 64-byte store) and as pairs of input channels (u, eight dwords
// scattered out*4 bytes apart).
TEXT ·winogradFiltersAVX512(SB), 0, $1024-56
	MOVQ u+0(FP), R8
	MOVQ ut+8(FP), R9
	MOVQ w+16(FP), R10
	MOVQ in+24(FP), R11
	MOVQ out+32(FP), R12
	MOVQ o0+40(FP), BX
	VMOVDQU32 lanes<>(SB), Z31
	MOVL $9, AX
	VPBROADCASTD AX, Z30
	VPMULLD Z30, Z31, Z30 // lane * 9: a filter's stride
	VPBROADCASTD R12, Z29
	VPMULLD Z29, Z31, Z29 // lane * out: u's pairs of input channels
	MOVL $0x3F000000, AX
	VPBROADCASTD AX, Z28 // 0.5
	MOVQ R11, DX
	IMULQ R12, DX
	SHLQ $1, DX // bytes of an element in u and ut

fpair:
	XORQ CX, CX

fblock:
	FILTERU(0)
	INCQ BX
	FILTERU(512)
	DECQ BX
	// ut at ((o/2)*in + c)*4 bytes; u at ((c/2)*out + o)*4.
	MOVQ BX, R13
	SHRQ $1, R13
	IMULQ R11, R13
	ADDQ CX, R13
	LEAQ (R9)(R13*4), R13
	MOVQ CX, R14
	SHRQ $1, R14
	IMULQ R12, R14
	ADDQ BX, R14
	LEAQ (R8)(R14*4), R14
	XORQ AX, AX
	MOVQ $16, R15

felem:
	VPMOVZXWD (SP)(AX*1), Z0
	VPMOVZXWD 512(SP)(AX*1), Z1
	VPSLLD $16, Z1, Z1
	VPORD Z1, Z0, Z2
	VMOVDQU32 Z2, (R13)
	VMOVDQU (SP)(AX*1), Y3
	KXNORB K2, K2, K2
	VPSCATTERDD Y3, K2, (R14)(Y29*4)
	VMOVDQU 512(SP)(AX*1), Y4
	KXNORB K2, K2, K2
	VPSCATTERDD Y4, K2, 4(R14)(Y29*4)
	ADDQ DX, R13
	ADDQ DX, R14
	ADDQ $32, AX
	DECQ R15
	JNZ felem

	ADDQ $16, CX
	CMPQ CX, R11
	JLT fblock
	ADDQ $2, BX
	CMPQ BX, o1+48(FP)
	JLT fpair
	VZEROUPPER
	RET

// LOADDU(z): element z of dU from R13 (+ R14 when a second part is in
// R9), R13 stepped to the next element (DX bytes).
#define LOADDU(z) \
	VMOVUPS (R13), z \
	TESTQ R9, R9 \
	JZ 2(PC) \
	VADDPS (R13)(R14*1), z, z \
	ADDQ DX, R13

// SCATTERG(t, z): tap t of the 16 filters' gradients (output channels
// BX.., input channel CX) from z.
#define SCATTERG(t, z) \
	KXNORW K1, K1, K1 \
	VSCATTERDPS z, K1, ((t)*4)(SI)(Z27*4)

// GROW(a, b, c, d, t): a row of Gᵀ dU to taps t, t+1, t+2 of dw
// (Z0..Z2 scratch).
#define GROW(a, b, c, d, t) \
	VADDPS c, b, Z0 \
	VMULPS Z28, Z0, Z0 \
	VADDPS Z0, a, Z1 \
	SCATTERG(t, Z1) \
	VSUBPS c, b, Z2 \
	VMULPS Z28, Z2, Z2 \
	SCATTERG(t+1, Z2) \
	VADDPS d, Z0, Z0 \
	SCATTERG(t+2, Z0)

// func winogradFilterGradsAVX512(dw, du0, du1 *float32, in, out, c0, c1 int)
// du1 nil: one part. 16 output channels of one input channel at a time:
// the 16 elements' sums loaded (and added), transformed, and the nine
// taps scattered in*9 floats apart.
TEXT ·winogradFilterGradsAVX512(SB), NOSPLIT, $0-56
	MOVQ dw+0(FP), R10
	MOVQ du0+8(FP), R8
	MOVQ du1+16(FP), R9
	MOVQ R9, R14
	SUBQ R8, R14 // the second part's offset from the first (any sign)
	MOVQ in+24(FP), R11
	MOVQ out+32(FP), R12
	MOVQ c0+40(FP), CX
	VMOVDQU32 lanes<>(SB), Z31
	MOVQ R11, AX
	LEAQ (AX)(AX*8), AX
	VPBROADCASTD AX, Z27
	VPMULLD Z27, Z31, Z27 // lane * in * 9: an output channel's stride in dw
	MOVL $0x3F000000, AX
	VPBROADCASTD AX, Z28
	MOVQ R11, DX
	IMULQ R12, DX
	SHLQ $2, DX // bytes of an element of dU

gchan:
	XORQ BX, BX

gblock:
	MOVQ CX, R13
	IMULQ R12, R13
	ADDQ BX, R13
	LEAQ (R8)(R13*4), R13
	LOADDU(Z0)
	LOADDU(Z1)
	LOADDU(Z2)
	LOADDU(Z3)
	LOADDU(Z4)
	LOADDU(Z5)
	LOADDU(Z6)
	LOADDU(Z7)
	LOADDU(Z8)
	LOADDU(Z9)
	LOADDU(Z10)
	LOADDU(Z11)
	LOADDU(Z12)
	LOADDU(Z13)
	LOADDU(Z14)
	LOADDU(Z15)
	// Gᵀ dU: h0 = m0 + ½(m1 + m2), h1 = ½(m1 - m2), h2 = ½(m1 + m2) + m3.
	VADDPS Z8, Z4, Z20
	VMULPS Z28, Z20, Z20
	VADDPS Z9, Z5, Z21
	VMULPS Z28, Z21, Z21
	VADDPS Z10, Z6, Z22
	VMULPS Z28, Z22, Z22
	VADDPS Z11, Z7, Z23
	VMULPS Z28, Z23, Z23
	VADDPS Z20, Z0, Z16
	VADDPS Z21, Z1, Z17
	VADDPS Z22, Z2, Z18
	VADDPS Z23, Z3, Z19
	VADDPS Z12, Z20, Z20
	VADDPS Z13, Z21, Z21
	VADDPS Z14, Z22, Z22
	VADDPS Z15, Z23, Z23
	VSUBPS Z8, Z4, Z24
	VMULPS Z28, Z24, Z24
	VSUBPS Z9, Z5, Z25
	VMULPS Z28, Z25, Z25
	VSUBPS Z10, Z6, Z26
	VMULPS Z28, Z26, Z26
	VSUBPS Z11, Z7, Z29
	VMULPS Z28, Z29, Z29
	// rows h0 = Z16..Z19, h1 = Z24, Z25, Z26, Z29, h2 = Z20..Z23; each
	// row (a, b, c, d) to a + ½(b + c), ½(b - c), ½(b + c) + d.
	MOVQ BX, SI
	IMULQ R11, SI
	ADDQ CX, SI
	LEAQ (SI)(SI*8), SI
	LEAQ (R10)(SI*4), SI
	GROW(Z16, Z17, Z18, Z19, 0)
	GROW(Z24, Z25, Z26, Z29, 3)
	GROW(Z20, Z21, Z22, Z23, 6)
	ADDQ $16, BX
	CMPQ BX, R12
	JLT gblock
	INCQ CX
	CMPQ CX, c1+48(FP)
	JLT gchan
	VZEROUPPER
	RET
