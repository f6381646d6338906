//go:build amd64 && !noasm

#include "textflag.h"

// func addAVX2(dst, src *float32, n int)
TEXT ·addAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-32, DX
	JZ   add8

add32:
	VMOVUPS 0(DI)(AX*4), Y0
	VMOVUPS 32(DI)(AX*4), Y1
	VMOVUPS 64(DI)(AX*4), Y2
	VMOVUPS 96(DI)(AX*4), Y3
	VADDPS  0(SI)(AX*4), Y0, Y0
	VADDPS  32(SI)(AX*4), Y1, Y1
	VADDPS  64(SI)(AX*4), Y2, Y2
	VADDPS  96(SI)(AX*4), Y3, Y3
	VMOVUPS Y0, 0(DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y2, 64(DI)(AX*4)
	VMOVUPS Y3, 96(DI)(AX*4)
	ADDQ    $32, AX
	CMPQ    AX, DX
	JB      add32

add8:
	CMPQ AX, CX
	JAE  adddone

add8loop:
	VMOVUPS 0(DI)(AX*4), Y0
	VADDPS  0(SI)(AX*4), Y0, Y0
	VMOVUPS Y0, 0(DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      add8loop

adddone:
	VZEROUPPER
	RET

// func axpyAVX2(x, dst *float32, n int, a float32)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), SI
	MOVQ         dst+8(FP), DI
	MOVQ         n+16(FP), CX
	VBROADCASTSS a+24(FP), Y8
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-32, DX
	JZ           axpy8

axpy32:
	VMULPS  0(SI)(AX*4), Y8, Y0
	VMULPS  32(SI)(AX*4), Y8, Y1
	VMULPS  64(SI)(AX*4), Y8, Y2
	VMULPS  96(SI)(AX*4), Y8, Y3
	VADDPS  0(DI)(AX*4), Y0, Y0
	VADDPS  32(DI)(AX*4), Y1, Y1
	VADDPS  64(DI)(AX*4), Y2, Y2
	VADDPS  96(DI)(AX*4), Y3, Y3
	VMOVUPS Y0, 0(DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y2, 64(DI)(AX*4)
	VMOVUPS Y3, 96(DI)(AX*4)
	ADDQ    $32, AX
	CMPQ    AX, DX
	JB      axpy32

axpy8:
	CMPQ AX, CX
	JAE  axpydone

axpy8loop:
	VMULPS  0(SI)(AX*4), Y8, Y0
	VADDPS  0(DI)(AX*4), Y0, Y0
	VMOVUPS Y0, 0(DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      axpy8loop

axpydone:
	VZEROUPPER
	RET

// func dotAVX2(a, b *float32, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX

dot32:
	VMOVUPS 0(SI)(AX*4), Y4
	VMOVUPS 32(SI)(AX*4), Y5
	VMOVUPS 64(SI)(AX*4), Y6
	VMOVUPS 96(SI)(AX*4), Y7
	VMULPS  0(DI)(AX*4), Y4, Y4
	VMULPS  32(DI)(AX*4), Y5, Y5
	VMULPS  64(DI)(AX*4), Y6, Y6
	VMULPS  96(DI)(AX*4), Y7, Y7
	VADDPS  Y4, Y0, Y0
	VADDPS  Y5, Y1, Y1
	VADDPS  Y6, Y2, Y2
	VADDPS  Y7, Y3, Y3
	ADDQ    $32, AX
	CMPQ    AX, CX
	JB      dot32

	// (0+1)+(2+3), then lanes j+(j+4), then (0+2, 1+3), then 0+1.
	VADDPS       Y1, Y0, Y0
	VADDPS       Y3, Y2, Y2
	VADDPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// Adam's constants as float32 bits: beta1 0.9, 1-beta1, beta2 0.999,
// 1-beta2, epsilon 1e-8 (the Go constants rounded to float32).
DATA adamConst<>+0(SB)/4, $0x3f666666
DATA adamConst<>+4(SB)/4, $0x3dcccccd
DATA adamConst<>+8(SB)/4, $0x3f7fbe77
DATA adamConst<>+12(SB)/4, $0x3a83126f
DATA adamConst<>+16(SB)/4, $0x322bcc77
GLOBL adamConst<>(SB), RODATA|NOPTR, $20

// func adamAVX2(w, grad, m, v *float32, n int, lr, clip float32)
TEXT ·adamAVX2(SB), NOSPLIT, $0-48
	MOVQ         w+0(FP), DI
	MOVQ         grad+8(FP), SI
	MOVQ         m+16(FP), R8
	MOVQ         v+24(FP), R9
	MOVQ         n+32(FP), CX
	VBROADCASTSS lr+40(FP), Y10
	VBROADCASTSS clip+44(FP), Y11
	VXORPS       Y12, Y12, Y12
	VSUBPS       Y11, Y12, Y12              // -clip
	VBROADCASTSS adamConst<>+0(SB), Y13     // beta1
	VBROADCASTSS adamConst<>+4(SB), Y14     // 1-beta1
	VBROADCASTSS adamConst<>+8(SB), Y15     // beta2
	VBROADCASTSS adamConst<>+12(SB), Y9     // 1-beta2
	VBROADCASTSS adamConst<>+16(SB), Y8     // epsilon
	VXORPS       Y7, Y7, Y7
	XORQ         AX, AX

adamloop:
	VMOVUPS 0(SI)(AX*4), Y0                 // g
	VMOVUPS Y7, 0(SI)(AX*4)
	VMULPS  0(R8)(AX*4), Y13, Y1            // beta1*m
	VMULPS  Y0, Y14, Y2                     // (1-beta1)*g
	VADDPS  Y2, Y1, Y1                      // m'
	VMOVUPS Y1, 0(R8)(AX*4)
	VMULPS  0(R9)(AX*4), Y15, Y3            // beta2*v
	VMULPS  Y0, Y9, Y4                      // (1-beta2)*g
	VMULPS  Y0, Y4, Y4                      // ... *g
	VADDPS  Y4, Y3, Y3                      // v'
	VMOVUPS Y3, 0(R9)(AX*4)
	VSQRTPS Y3, Y5
	VADDPS  Y8, Y5, Y5                      // sqrt(v') + epsilon
	VMULPS  Y1, Y10, Y6                     // lr*m'
	VDIVPS  Y5, Y6, Y6
	VMOVUPS 0(DI)(AX*4), Y4
	VSUBPS  Y6, Y4, Y4                      // w - step
	VMAXPS  Y12, Y4, Y4
	VMINPS  Y11, Y4, Y4
	VMOVUPS Y4, 0(DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JB      adamloop
	VZEROUPPER
	RET
