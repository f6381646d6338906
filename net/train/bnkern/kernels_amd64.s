//go:build amd64 && !noasm

#include "textflag.h"

// Every kernel walks the row's channels in groups of 8 (DX: the group's
// byte offset in a float32 row, CX: a pixel's bytes) and, within a group,
// the pixels (R10: the element's byte offset, R11: pixels left), so that
// each channel's float64 sums stay in registers and are added in pixel
// order, as the Go twins add them. Float64 slices are addressed at DX*2.

// func sumAVX2(row *float32, n int, s0 *float64, c int)
TEXT ·sumAVX2(SB), NOSPLIT, $0-32
	MOVQ row+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ s0+16(FP), DI
	MOVQ c+24(FP), CX
	SHLQ $2, CX
	XORQ DX, DX

sumGroup:
	VMOVUPD (DI)(DX*2), Y0
	VMOVUPD 32(DI)(DX*2), Y1
	MOVQ    DX, R10
	MOVQ    BX, R11

sumPixel:
	VCVTPS2PD (SI)(R10*1), Y2
	VCVTPS2PD 16(SI)(R10*1), Y3
	VADDPD    Y2, Y0, Y0
	VADDPD    Y3, Y1, Y1
	ADDQ      CX, R10
	DECQ      R11
	JNZ       sumPixel
	VMOVUPD   Y0, (DI)(DX*2)
	VMOVUPD   Y1, 32(DI)(DX*2)
	ADDQ      $32, DX
	CMPQ      DX, CX
	JLT       sumGroup
	VZEROUPPER
	RET

// func sqDevAVX2(row *float32, n int, mean, s1 *float64, c int)
TEXT ·sqDevAVX2(SB), NOSPLIT, $0-40
	MOVQ row+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ mean+16(FP), R8
	MOVQ s1+24(FP), DI
	MOVQ c+32(FP), CX
	SHLQ $2, CX
	XORQ DX, DX

sqGroup:
	VMOVUPD (DI)(DX*2), Y0
	VMOVUPD 32(DI)(DX*2), Y1
	VMOVUPD (R8)(DX*2), Y4
	VMOVUPD 32(R8)(DX*2), Y5
	MOVQ    DX, R10
	MOVQ    BX, R11

sqPixel:
	VCVTPS2PD (SI)(R10*1), Y2
	VCVTPS2PD 16(SI)(R10*1), Y3
	VSUBPD    Y4, Y2, Y2
	VSUBPD    Y5, Y3, Y3
	VMULPD    Y2, Y2, Y2
	VMULPD    Y3, Y3, Y3
	VADDPD    Y2, Y0, Y0
	VADDPD    Y3, Y1, Y1
	ADDQ      CX, R10
	DECQ      R11
	JNZ       sqPixel
	VMOVUPD   Y0, (DI)(DX*2)
	VMOVUPD   Y1, 32(DI)(DX*2)
	ADDQ      $32, DX
	CMPQ      DX, CX
	JLT       sqGroup
	VZEROUPPER
	RET

// MASK_BITS holds 1, 2, 4, ..., 128 in Y14's eight lanes: a mask byte
// broadcast, ANDed with it and compared to it gives the lanes' masks.
DATA maskBits<>+0(SB)/4, $1
DATA maskBits<>+4(SB)/4, $2
DATA maskBits<>+8(SB)/4, $4
DATA maskBits<>+12(SB)/4, $8
DATA maskBits<>+16(SB)/4, $16
DATA maskBits<>+20(SB)/4, $32
DATA maskBits<>+24(SB)/4, $64
DATA maskBits<>+28(SB)/4, $128
GLOBL maskBits<>(SB), RODATA|NOPTR, $32

// A group of 8 channels of a pixel at byte offset R10 has its mask in
// byte R10/32 (c is a multiple of 8, so a pixel's bytes are too).
// MASK_LOAD(m, dst) sets dst's lanes to all ones where the group's bits
// in mask m are set; it uses AX and needs MASK_BITS in Y14.
#define MASK_LOAD(m, dst) \
	MOVQ         R10, AX \
	SHRQ         $5, AX \
	VPBROADCASTB (m)(AX*1), dst \
	VPAND        Y14, dst, dst \
	VPCMPEQD     Y14, dst, dst

// The ReLU as Go's max(x, 0): VMAXPS keeps x when either is NaN, and
// adding +0 turns a -0 into +0.
#define RELU(x) \
	VMAXPS x, Y6, x \
	VADDPS Y6, x, x

// NORM is the body of both norm kernels (SI: row, DI: out, R13: mask,
// BX: pixels, R8: scale, R9: shift, CX: c); RESIDUAL adds the residual or
// nothing. The mask's bits are the outputs that are not +0 (NaN's
// included), as the Go twin's.
#define NORM(group, pixel, RESIDUAL) \
	SHLQ   $2, CX \
	XORQ   DX, DX \
	VXORPS Y6, Y6, Y6 \
group: \
	VMOVUPS (R8)(DX*1), Y4 \
	VMOVUPS (R9)(DX*1), Y5 \
	MOVQ    DX, R10 \
	MOVQ    BX, R11 \
pixel: \
	VMULPS    (SI)(R10*1), Y4, Y0 \
	VADDPS    Y5, Y0, Y0 \
	RESIDUAL \
	RELU(Y0) \
	VMOVUPS   Y0, (DI)(R10*1) \
	VCMPPS    $4, Y6, Y0, Y7 \
	VMOVMSKPS Y7, R14 \
	MOVQ      R10, AX \
	SHRQ      $5, AX \
	MOVB      R14, (R13)(AX*1) \
	ADDQ      CX, R10 \
	DECQ      R11 \
	JNZ       pixel \
	ADDQ      $32, DX \
	CMPQ      DX, CX \
	JLT       group \
	VZEROUPPER \
	RET

#define NO_RESIDUAL
#define ADD_RESIDUAL VADDPS (R12)(R10*1), Y0, Y0

// func normAVX2(row, out *float32, mask *byte, n int, scale, shift *float32, c int)
TEXT ·normAVX2(SB), NOSPLIT, $0-56
	MOVQ row+0(FP), SI
	MOVQ out+8(FP), DI
	MOVQ mask+16(FP), R13
	MOVQ n+24(FP), BX
	MOVQ scale+32(FP), R8
	MOVQ shift+40(FP), R9
	MOVQ c+48(FP), CX
	NORM(normGroup, normPixel, NO_RESIDUAL)

// func normResAVX2(row, res, out *float32, mask *byte, n int, scale, shift *float32, c int)
TEXT ·normResAVX2(SB), NOSPLIT, $0-64
	MOVQ row+0(FP), SI
	MOVQ res+8(FP), R12
	MOVQ out+16(FP), DI
	MOVQ mask+24(FP), R13
	MOVQ n+32(FP), BX
	MOVQ scale+40(FP), R8
	MOVQ shift+48(FP), R9
	MOVQ c+56(FP), CX
	NORM(normResGroup, normResPixel, ADD_RESIDUAL)

// func gradSumAVX2(y, dz *float32, mask *byte, n int, mean, s0, s1 *float64, c int)
TEXT ·gradSumAVX2(SB), NOSPLIT, $0-64
	MOVQ    y+0(FP), SI
	MOVQ    dz+8(FP), R8
	MOVQ    mask+16(FP), DI
	MOVQ    n+24(FP), BX
	MOVQ    mean+32(FP), R12
	MOVQ    s0+40(FP), R13
	MOVQ    s1+48(FP), R14
	MOVQ    c+56(FP), CX
	SHLQ    $2, CX
	XORQ    DX, DX
	VMOVDQU maskBits<>(SB), Y14

gsGroup:
	VMOVUPD (R13)(DX*2), Y0
	VMOVUPD 32(R13)(DX*2), Y1
	VMOVUPD (R14)(DX*2), Y2
	VMOVUPD 32(R14)(DX*2), Y3
	VMOVUPD (R12)(DX*2), Y4
	VMOVUPD 32(R12)(DX*2), Y5
	MOVQ    DX, R10
	MOVQ    BX, R11

gsPixel:
	// g = dz where the mask's bits are set.
	MASK_LOAD(DI, Y13)
	VPAND        (R8)(R10*1), Y13, Y7
	VCVTPS2PD    X7, Y8
	VEXTRACTF128 $1, Y7, X9
	VCVTPS2PD    X9, Y9
	VADDPD       Y8, Y0, Y0
	VADDPD       Y9, Y1, Y1
	VCVTPS2PD    (SI)(R10*1), Y10
	VCVTPS2PD    16(SI)(R10*1), Y11
	VSUBPD       Y4, Y10, Y10
	VSUBPD       Y5, Y11, Y11
	VMULPD       Y10, Y8, Y8
	VMULPD       Y11, Y9, Y9
	VADDPD       Y8, Y2, Y2
	VADDPD       Y9, Y3, Y3
	ADDQ         CX, R10
	DECQ         R11
	JNZ          gsPixel
	VMOVUPD      Y0, (R13)(DX*2)
	VMOVUPD      Y1, 32(R13)(DX*2)
	VMOVUPD      Y2, (R14)(DX*2)
	VMOVUPD      Y3, 32(R14)(DX*2)
	ADDQ         $32, DX
	CMPQ         DX, CX
	JLT          gsGroup
	VZEROUPPER
	RET

// GRAD is the body of both gradient kernels (SI: dz, DI: mask, R9: y,
// R8: dy, BX: dres, R12: a, R13: by, R14: d0, CX: c, X15: pixels);
// STORE_G writes g to dres or nothing.
#define GRAD(group, pixel, STORE_G) \
	SHLQ    $2, CX \
	XORQ    DX, DX \
	VMOVDQU maskBits<>(SB), Y14 \
group: \
	VMOVUPS (R12)(DX*1), Y4 \
	VMOVUPS (R13)(DX*1), Y5 \
	VMOVUPS (R14)(DX*1), Y6 \
	MOVQ    DX, R10 \
	MOVQ    X15, R11 \
pixel: \
	MASK_LOAD(DI, Y13) \
	VPAND   (SI)(R10*1), Y13, Y7 \
	STORE_G \
	VMULPS  Y7, Y4, Y0 \
	VMULPS  (R9)(R10*1), Y5, Y1 \
	VADDPS  Y1, Y0, Y0 \
	VADDPS  Y6, Y0, Y0 \
	VMOVUPS Y0, (R8)(R10*1) \
	ADDQ    CX, R10 \
	DECQ    R11 \
	JNZ     pixel \
	ADDQ    $32, DX \
	CMPQ    DX, CX \
	JLT     group \
	VZEROUPPER \
	RET

#define NO_STORE
#define STORE_G VMOVUPS Y7, (BX)(R10*1)

// func gradAVX2(dz *float32, mask *byte, y, dy *float32, n int, a, by, d0 *float32, c int)
TEXT ·gradAVX2(SB), NOSPLIT, $0-72
	MOVQ dz+0(FP), SI
	MOVQ mask+8(FP), DI
	MOVQ y+16(FP), R9
	MOVQ dy+24(FP), R8
	MOVQ a+40(FP), R12
	MOVQ by+48(FP), R13
	MOVQ d0+56(FP), R14
	MOVQ c+64(FP), CX
	MOVQ n+32(FP), AX
	MOVQ AX, X15
	GRAD(gradGroup, gradPixel, NO_STORE)

// func gradResAVX2(dz *float32, mask *byte, y, dy, dres *float32, n int, a, by, d0 *float32, c int)
TEXT ·gradResAVX2(SB), NOSPLIT, $0-80
	MOVQ dz+0(FP), SI
	MOVQ mask+8(FP), DI
	MOVQ y+16(FP), R9
	MOVQ dy+24(FP), R8
	MOVQ dres+32(FP), BX
	MOVQ a+48(FP), R12
	MOVQ by+56(FP), R13
	MOVQ d0+64(FP), R14
	MOVQ c+72(FP), CX
	MOVQ n+40(FP), AX
	MOVQ AX, X15
	GRAD(gradResGroup, gradResPixel, STORE_G)
