//go:build amd64 && !noasm

#include "textflag.h"

// Winograd F(2x2, 3x3)'s float32 transforms on AVX2 vectors of eight
// channels (winograd.go, winograd32.go). The additions run in the Go
// twins' order, so the two agree bit for bit.

// GOUT(p, addl, storel, donel): Y12..Y15 into row p (winogradGradInputAVX2's
// GADD, GSTORE, GMIX below), added, or (fresh) stored on the first tile
// and mixed after it; defined before every function so that vet reads
// its frame offsets as no function's.
#define GOUT(p, addl, storel, donel) \
	CMPQ fresh+64(FP), $0 \
	JEQ addl \
	CMPQ BX, tiles+48(FP) \
	JEQ storel \
	GMIX(p) \
	JMP donel \
storel: \
	GSTORE(p) \
	JMP donel \
addl: \
	GADD(p) \
donel:

DATA signF32<>+0(SB)/4, $0x80000000
DATA signF32<>+4(SB)/4, $0x80000000
DATA signF32<>+8(SB)/4, $0x80000000
DATA signF32<>+12(SB)/4, $0x80000000
DATA signF32<>+16(SB)/4, $0x80000000
DATA signF32<>+20(SB)/4, $0x80000000
DATA signF32<>+24(SB)/4, $0x80000000
DATA signF32<>+28(SB)/4, $0x80000000
GLOBL signF32<>(SB), RODATA|NOPTR, $32

// NEGY(src, dst): dst = -src, as Go's unary minus (the sign bit flipped).
#define NEGY(src, dst) VXORPS signF32<>(SB), src, dst

// STOREXI(y): y stored at R15, R15 stepped to the next element (CX bytes).
#define STOREXI(y) \
	VMOVUPS y, (R15) \
	ADDQ CX, R15

// IROW(pa, pb, OP): one row of Bᵀ d B: the four columns of rows pa and pb
// (column q at q*R12 + AX) combined as OP(a, b) (a - b or a + b), then
// t0 - t2, t1 + t2, t2 - t1, t1 - t3 stored as the row's four elements.
#define IROW(pa, pb, OP) \
	LEAQ (pa)(AX*1), SI \
	LEAQ (pb)(AX*1), R13 \
	VMOVUPS (SI), Y0 \
	VMOVUPS (R13), Y4 \
	OP Y4, Y0, Y8 \
	ADDQ R12, SI \
	ADDQ R12, R13 \
	VMOVUPS (SI), Y1 \
	VMOVUPS (R13), Y5 \
	OP Y5, Y1, Y9 \
	ADDQ R12, SI \
	ADDQ R12, R13 \
	VMOVUPS (SI), Y2 \
	VMOVUPS (R13), Y6 \
	OP Y6, Y2, Y10 \
	ADDQ R12, SI \
	ADDQ R12, R13 \
	VMOVUPS (SI), Y3 \
	VMOVUPS (R13), Y7 \
	OP Y7, Y3, Y11 \
	VSUBPS Y10, Y8, Y12 \
	VADDPS Y10, Y9, Y13 \
	VSUBPS Y9, Y10, Y14 \
	VSUBPS Y11, Y9, Y15 \
	STOREXI(Y12) \
	STOREXI(Y13) \
	STOREXI(Y14) \
	STOREXI(Y15)

// func winogradInputF32AVX2(v *float32, xiStride int, r0, r1, r2, r3 *float32, tiles, ch int)
TEXT ·winogradInputF32AVX2(SB), NOSPLIT, $0-64
	MOVQ v+0(FP), DI
	MOVQ xiStride+8(FP), CX
	SHLQ $2, CX
	MOVQ r0+16(FP), R8
	MOVQ r1+24(FP), R9
	MOVQ r2+32(FP), R10
	MOVQ r3+40(FP), R11
	MOVQ tiles+48(FP), BX
	MOVQ ch+56(FP), R12
	SHLQ $2, R12 // bytes of a column
	MOVQ R12, R14
	SHRQ $5, R14 // vectors of eight a column

itile:
	XORQ AX, AX
	MOVQ R14, DX

iblock:
	LEAQ (DI)(AX*1), R15
	IROW(R8, R10, VSUBPS)
	IROW(R9, R10, VADDPS)
	IROW(R10, R9, VSUBPS)
	IROW(R9, R11, VSUBPS)
	ADDQ $32, AX
	DECQ DX
	JNZ iblock

	LEAQ (R8)(R12*2), R8
	LEAQ (R9)(R12*2), R9
	LEAQ (R10)(R12*2), R10
	LEAQ (R11)(R12*2), R11
	ADDQ R12, DI
	DECQ BX
	JNZ itile
	VZEROUPPER
	RET

// DROW(r0, r1): one row of A dY Aᵀ from its two columns: r0, r0 + r1,
// r0 - r1, -r1 stored as the row's four elements.
#define DROW(r0, r1) \
	STOREXI(r0) \
	VADDPS r1, r0, Y8 \
	STOREXI(Y8) \
	VSUBPS r1, r0, Y9 \
	STOREXI(Y9) \
	NEGY(r1, Y10) \
	STOREXI(Y10)

// func winogradDyF32AVX2(e *float32, xiStride int, dy0, dy1 *float32, tiles, ch int)
TEXT ·winogradDyF32AVX2(SB), NOSPLIT, $0-48
	MOVQ e+0(FP), DI
	MOVQ xiStride+8(FP), CX
	SHLQ $2, CX
	MOVQ dy0+16(FP), R8
	MOVQ dy1+24(FP), R9
	MOVQ tiles+32(FP), BX
	MOVQ ch+40(FP), R12
	SHLQ $2, R12
	MOVQ R12, R14
	SHRQ $5, R14

dtile:
	XORQ AX, AX
	MOVQ R14, DX

dblock:
	LEAQ (DI)(AX*1), R15
	LEAQ (R8)(AX*1), SI
	LEAQ (R9)(AX*1), R13
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R12*1), Y1
	VMOVUPS (R13), Y2
	VMOVUPS (R13)(R12*1), Y3
	DROW(Y0, Y1)
	VADDPS Y2, Y0, Y4
	VADDPS Y3, Y1, Y5
	DROW(Y4, Y5)
	VSUBPS Y2, Y0, Y4
	VSUBPS Y3, Y1, Y5
	DROW(Y4, Y5)
	NEGY(Y2, Y4)
	NEGY(Y3, Y5)
	DROW(Y4, Y5)
	ADDQ $32, AX
	DECQ DX
	JNZ dblock

	LEAQ (R8)(R12*2), R8
	LEAQ (R9)(R12*2), R9
	ADDQ R12, DI
	DECQ BX
	JNZ dtile
	VZEROUPPER
	RET

// LOADXI(y): the element at R15 into y, R15 stepped to the next.
#define LOADXI(y) \
	VMOVUPS (R15), y \
	ADDQ CX, R15

// func winogradOutputAVX2(y0, y1 *float32, m *float32, xiStride, tiles, half, ch int)
TEXT ·winogradOutputAVX2(SB), NOSPLIT, $0-56
	MOVQ y0+0(FP), R8
	MOVQ y1+8(FP), R9
	MOVQ m+16(FP), DI
	MOVQ xiStride+24(FP), CX
	SHLQ $2, CX
	MOVQ tiles+32(FP), BX
	MOVQ ch+48(FP), R12
	SHLQ $2, R12
	MOVQ R12, R14
	SHRQ $5, R14

otile:
	XORQ AX, AX
	MOVQ R14, DX
	// R10: 1 when this tile writes its second column.
	MOVQ $1, R10
	CMPQ BX, $1
	JNE oblock
	MOVQ half+40(FP), R11
	SUBQ R11, R10

oblock:
	LEAQ (DI)(AX*1), R15
	LOADXI(Y0)
	LOADXI(Y1)
	LOADXI(Y2)
	LOADXI(Y3)
	LOADXI(Y4)
	LOADXI(Y5)
	LOADXI(Y6)
	LOADXI(Y7)
	LOADXI(Y8)
	LOADXI(Y9)
	LOADXI(Y10)
	LOADXI(Y11)
	// Aᵀ M: s0 = (m0 + m1) + m2 into Y0..Y3, s1 = (m1 - m2) - m3 into
	// Y4..Y7 (rows of M).
	VADDPS Y4, Y0, Y0
	VADDPS Y8, Y0, Y0
	VADDPS Y5, Y1, Y1
	VADDPS Y9, Y1, Y1
	VADDPS Y6, Y2, Y2
	VADDPS Y10, Y2, Y2
	VADDPS Y7, Y3, Y3
	VADDPS Y11, Y3, Y3
	LOADXI(Y12)
	VSUBPS Y8, Y4, Y4
	VSUBPS Y12, Y4, Y4
	LOADXI(Y12)
	VSUBPS Y9, Y5, Y5
	VSUBPS Y12, Y5, Y5
	LOADXI(Y12)
	VSUBPS Y10, Y6, Y6
	VSUBPS Y12, Y6, Y6
	LOADXI(Y12)
	VSUBPS Y11, Y7, Y7
	VSUBPS Y12, Y7, Y7
	// (Aᵀ M) A: the same on the columns.
	VADDPS Y1, Y0, Y8
	VADDPS Y2, Y8, Y8
	VSUBPS Y2, Y1, Y9
	VSUBPS Y3, Y9, Y9
	VADDPS Y5, Y4, Y10
	VADDPS Y6, Y10, Y10
	VSUBPS Y6, Y5, Y11
	VSUBPS Y7, Y11, Y11
	VMOVUPS Y8, (R8)(AX*1)
	TESTQ R10, R10
	JZ orow1
	LEAQ (R8)(R12*1), SI
	VMOVUPS Y9, (SI)(AX*1)

orow1:
	TESTQ R9, R9
	JZ onext
	VMOVUPS Y10, (R9)(AX*1)
	TESTQ R10, R10
	JZ onext
	LEAQ (R9)(R12*1), SI
	VMOVUPS Y11, (SI)(AX*1)

onext:
	ADDQ $32, AX
	DECQ DX
	JNZ oblock

	LEAQ (R8)(R12*2), R8
	TESTQ R9, R9
	JZ ostep
	LEAQ (R9)(R12*2), R9

ostep:
	ADDQ R12, DI
	DECQ BX
	JNZ otile
	VZEROUPPER
	RET

// GROW(a0, a1, a2, a3): one row of B N Bᵀ from the row's four columns of
// B N into Y12..Y15: a0, (a1 - a2) + a3, (a1 + a2) - a0, -a3.
#define GROW(a0, a1, a2, a3) \
	VMOVAPS a0, Y12 \
	VSUBPS a2, a1, Y13 \
	VADDPS a3, Y13, Y13 \
	VADDPS a2, a1, Y14 \
	VSUBPS a0, Y14, Y14 \
	NEGY(a3, Y15)

// GADD(p): Y12..Y15 added to the four columns of row p (column k at
// k*R12 + AX).
#define GADD(p) \
	LEAQ (p)(AX*1), SI \
	VADDPS (SI), Y12, Y12 \
	VMOVUPS Y12, (SI) \
	ADDQ R12, SI \
	VADDPS (SI), Y13, Y13 \
	VMOVUPS Y13, (SI) \
	ADDQ R12, SI \
	VADDPS (SI), Y14, Y14 \
	VMOVUPS Y14, (SI) \
	ADDQ R12, SI \
	VADDPS (SI), Y15, Y15 \
	VMOVUPS Y15, (SI)

// GSTORE(p): Y12..Y15 stored into the four columns of row p.
#define GSTORE(p) \
	LEAQ (p)(AX*1), SI \
	VMOVUPS Y12, (SI) \
	ADDQ R12, SI \
	VMOVUPS Y13, (SI) \
	ADDQ R12, SI \
	VMOVUPS Y14, (SI) \
	ADDQ R12, SI \
	VMOVUPS Y15, (SI)

// GMIX(p): Y12, Y13 added to the first two columns of row p, Y14, Y15
// stored into its last two.
#define GMIX(p) \
	LEAQ (p)(AX*1), SI \
	VADDPS (SI), Y12, Y12 \
	VMOVUPS Y12, (SI) \
	ADDQ R12, SI \
	VADDPS (SI), Y13, Y13 \
	VMOVUPS Y13, (SI) \
	ADDQ R12, SI \
	VMOVUPS Y14, (SI) \
	ADDQ R12, SI \
	VMOVUPS Y15, (SI)

// GQ(k): column k of B N's rows 1..3 from N's (rows 0..2 in Y(k),
// Y(4+k), Y(8+k); row 3 loaded at R15): q2 = (n1 + n2) - n0 into Y(k),
// q1 = (n1 - n2) + n3 into Y(4+k), q3 = -n3 into Y(8+k).
#define GQ(n0, n1, n2) \
	LOADXI(Y12) \
	VADDPS n2, n1, Y13 \
	VSUBPS n0, Y13, n0 \
	VSUBPS n2, n1, n1 \
	VADDPS Y12, n1, n1 \
	NEGY(Y12, n2)

// func winogradGradInputAVX2(r0, r1, r2, r3 *float32, n *float32, xiStride, tiles, ch, fresh int)
TEXT ·winogradGradInputAVX2(SB), NOSPLIT, $0-72
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
	SHRQ $5, R14

gtile:
	XORQ AX, AX
	MOVQ R14, DX

gblock:
	LEAQ (DI)(AX*1), R15
	LOADXI(Y0)
	LOADXI(Y1)
	LOADXI(Y2)
	LOADXI(Y3)
	// Row 0 of B N is N's row 0.
	GROW(Y0, Y1, Y2, Y3)
	GADD(R8)
	LOADXI(Y4)
	LOADXI(Y5)
	LOADXI(Y6)
	LOADXI(Y7)
	LOADXI(Y8)
	LOADXI(Y9)
	LOADXI(Y10)
	LOADXI(Y11)
	GQ(Y0, Y4, Y8)
	GQ(Y1, Y5, Y9)
	GQ(Y2, Y6, Y10)
	GQ(Y3, Y7, Y11)
	GROW(Y4, Y5, Y6, Y7)
	GADD(R9)
	GROW(Y0, Y1, Y2, Y3)
	GOUT(R10, gadd2, gstore2, gdone2)
	GROW(Y8, Y9, Y10, Y11)
	GOUT(R11, gadd3, gstore3, gdone3)
	ADDQ $32, AX
	DECQ DX
	JNZ gblock

	LEAQ (R8)(R12*2), R8
	LEAQ (R9)(R12*2), R9
	LEAQ (R10)(R12*2), R10
	LEAQ (R11)(R12*2), R11
	ADDQ R12, DI
	DECQ BX
	JNZ gtile
	VZEROUPPER
	RET

// FMAROW(addr, acc0, acc1): a row's element at addr broadcast, times the panel's two vectors (Y12, Y13),
// added to acc0 and acc1.
#define FMAROW(addr, acc0, acc1) \
	VBROADCASTSS addr, Y14 \
	VFMADD231PS Y12, Y14, acc0 \
	VFMADD231PS Y13, Y14, acc1

// CLOAD(p), CSTORE(p): the six rows' accumulators from and to C's panel
// at p, rows R8 bytes apart (p stepped).
#define CLOAD(p) \
	VMOVUPS (p), Y0 \
	VMOVUPS 32(p), Y1 \
	ADDQ R8, p \
	VMOVUPS (p), Y2 \
	VMOVUPS 32(p), Y3 \
	ADDQ R8, p \
	VMOVUPS (p), Y4 \
	VMOVUPS 32(p), Y5 \
	ADDQ R8, p \
	VMOVUPS (p), Y6 \
	VMOVUPS 32(p), Y7 \
	ADDQ R8, p \
	VMOVUPS (p), Y8 \
	VMOVUPS 32(p), Y9 \
	ADDQ R8, p \
	VMOVUPS (p), Y10 \
	VMOVUPS 32(p), Y11

#define CSTORE(p) \
	VMOVUPS Y0, (p) \
	VMOVUPS Y1, 32(p) \
	ADDQ R8, p \
	VMOVUPS Y2, (p) \
	VMOVUPS Y3, 32(p) \
	ADDQ R8, p \
	VMOVUPS Y4, (p) \
	VMOVUPS Y5, 32(p) \
	ADDQ R8, p \
	VMOVUPS Y6, (p) \
	VMOVUPS Y7, 32(p) \
	ADDQ R8, p \
	VMOVUPS Y8, (p) \
	VMOVUPS Y9, 32(p) \
	ADDQ R8, p \
	VMOVUPS Y10, (p) \
	VMOVUPS Y11, 32(p)

// func dotF32AVX2(c *float32, ldc int, a *float32, ars, aks int, b *float32, ldb, groups, k, np, accumulate int)
// Six rows of c at a time (groups of them) by panels of 16 columns, 12
// sums in registers; row r's element kk of a at a + r*ars + kk*aks, b's
// row kk at b + kk*ldb, read where they lie (nothing packed).
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-88
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	SHLQ $2, R8
	MOVQ a+16(FP), R9
	MOVQ ars+24(FP), R10
	SHLQ $2, R10
	MOVQ aks+32(FP), R11
	SHLQ $2, R11
	MOVQ ldb+48(FP), R12
	SHLQ $2, R12
	MOVQ groups+56(FP), BX

fgroup:
	MOVQ b+40(FP), CX // the panel's first column
	MOVQ np+72(FP), DX
	MOVQ DI, AX // the panel's place in c's first row

fpanel:
	CMPQ accumulate+80(FP), $0
	JEQ fzero
	MOVQ AX, SI
	CLOAD(SI)
	JMP fk

fzero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

fk:
	MOVQ R9, SI
	LEAQ (SI)(R10*2), R13
	ADDQ R10, R13 // row 3
	MOVQ CX, R15
	MOVQ k+64(FP), R14

fkloop:
	VMOVUPS (R15), Y12
	VMOVUPS 32(R15), Y13
	FMAROW((SI), Y0, Y1)
	FMAROW((SI)(R10*1), Y2, Y3)
	FMAROW((SI)(R10*2), Y4, Y5)
	FMAROW((R13), Y6, Y7)
	FMAROW((R13)(R10*1), Y8, Y9)
	FMAROW((R13)(R10*2), Y10, Y11)
	ADDQ R11, SI
	ADDQ R11, R13
	ADDQ R12, R15
	DECQ R14
	JNZ fkloop

	MOVQ AX, SI
	CSTORE(SI)
	ADDQ $64, AX
	ADDQ $64, CX
	DECQ DX
	JNZ fpanel

	// The next six rows of a and c.
	LEAQ (R9)(R10*4), R9
	LEAQ (R9)(R10*2), R9
	LEAQ (DI)(R8*4), DI
	LEAQ (DI)(R8*2), DI
	DECQ BX
	JNZ fgroup
	VZEROUPPER
	RET
