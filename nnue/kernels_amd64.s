//go:build amd64 && !noasm

#include "textflag.h"

// The end of a group of four outputs: the int32 lanes of Y0..Y3 summed
// into X0's four, the biases at R13 added, stored at DI.
#define REDUCE4 \
	VPHADDD Y1, Y0, Y0 \
	VPHADDD Y3, Y2, Y2 \
	VPHADDD Y2, Y0, Y0 \
	VEXTRACTI128 $1, Y0, X1 \
	VPADDD X1, X0, X0 \
	VPADDD 0(R13), X0, X0 \
	VMOVDQU X0, 0(DI)

// Register use of the dense kernels: DI out, SI in, R8 the group's first
// weight row (R9..R11 the next three), R13 bias, CX = nin bytes, DX the
// outputs left, AX the byte offset within the rows.
#define DENSE_PROLOGUE \
	MOVQ out+0(FP), DI \
	MOVQ in+8(FP), SI \
	MOVQ w+16(FP), R8 \
	MOVQ bias+24(FP), R13 \
	MOVQ nin+32(FP), CX \
	MOVQ nout+40(FP), DX

#define NEXT_GROUP \
	ADDQ $16, DI \
	ADDQ $16, R13 \
	LEAQ (R11)(CX*1), R8 \
	SUBQ $4, DX

// The ZMM accumulators Z0..Z3 folded into Y0..Y3 for REDUCE4.
#define FOLD4 \
	VEXTRACTI64X4 $1, Z0, Y8 \
	VEXTRACTI64X4 $1, Z1, Y9 \
	VEXTRACTI64X4 $1, Z2, Y10 \
	VEXTRACTI64X4 $1, Z3, Y11 \
	VPADDD Y8, Y0, Y0 \
	VPADDD Y9, Y1, Y1 \
	VPADDD Y10, Y2, Y2 \
	VPADDD Y11, Y3, Y3

// func updateAVX2(dst, src, w *int16, add *uint16, nadd int, sub *uint16, nsub int, n int)
TEXT ·updateAVX2(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ n+56(FP), CX
	SHLQ $1, CX
	XORQ AX, AX

ublockY:
	VMOVDQU 0(SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVDQU 64(SI)(AX*1), Y2
	VMOVDQU 96(SI)(AX*1), Y3
	MOVQ add+24(FP), R8
	MOVQ nadd+32(FP), R9
	XORQ BX, BX

uaddY:
	CMPQ BX, R9
	JGE  usubY0
	MOVWQZX (R8)(BX*2), R12
	IMULQ CX, R12
	ADDQ DX, R12
	ADDQ AX, R12
	VPADDW 0(R12), Y0, Y0
	VPADDW 32(R12), Y1, Y1
	VPADDW 64(R12), Y2, Y2
	VPADDW 96(R12), Y3, Y3
	INCQ BX
	JMP  uaddY

usubY0:
	MOVQ sub+40(FP), R8
	MOVQ nsub+48(FP), R9
	XORQ BX, BX

usubY:
	CMPQ BX, R9
	JGE  ustoreY
	MOVWQZX (R8)(BX*2), R12
	IMULQ CX, R12
	ADDQ DX, R12
	ADDQ AX, R12
	VPSUBW 0(R12), Y0, Y0
	VPSUBW 32(R12), Y1, Y1
	VPSUBW 64(R12), Y2, Y2
	VPSUBW 96(R12), Y3, Y3
	INCQ BX
	JMP  usubY

ustoreY:
	VMOVDQU Y0, 0(DI)(AX*1)
	VMOVDQU Y1, 32(DI)(AX*1)
	VMOVDQU Y2, 64(DI)(AX*1)
	VMOVDQU Y3, 96(DI)(AX*1)
	ADDQ $128, AX
	CMPQ AX, CX
	JLT  ublockY
	VZEROUPPER
	RET

// func updateAVX512(dst, src, w *int16, add *uint16, nadd int, sub *uint16, nsub int, n int)
TEXT ·updateAVX512(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ n+56(FP), CX
	SHLQ $1, CX
	XORQ AX, AX

ublockZ:
	VMOVDQU64 0(SI)(AX*1), Z0
	VMOVDQU64 64(SI)(AX*1), Z1
	MOVQ add+24(FP), R8
	MOVQ nadd+32(FP), R9
	XORQ BX, BX

uaddZ:
	CMPQ BX, R9
	JGE  usubZ0
	MOVWQZX (R8)(BX*2), R12
	IMULQ CX, R12
	ADDQ DX, R12
	ADDQ AX, R12
	VPADDW 0(R12), Z0, Z0
	VPADDW 64(R12), Z1, Z1
	INCQ BX
	JMP  uaddZ

usubZ0:
	MOVQ sub+40(FP), R8
	MOVQ nsub+48(FP), R9
	XORQ BX, BX

usubZ:
	CMPQ BX, R9
	JGE  ustoreZ
	MOVWQZX (R8)(BX*2), R12
	IMULQ CX, R12
	ADDQ DX, R12
	ADDQ AX, R12
	VPSUBW 0(R12), Z0, Z0
	VPSUBW 64(R12), Z1, Z1
	INCQ BX
	JMP  usubZ

ustoreZ:
	VMOVDQU64 Z0, 0(DI)(AX*1)
	VMOVDQU64 Z1, 64(DI)(AX*1)
	ADDQ $128, AX
	CMPQ AX, CX
	JLT  ublockZ
	VZEROUPPER
	RET

// func creluAVX2(dst *uint8, src *int16, n int)
TEXT ·creluAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VPXOR Y15, Y15, Y15

creluY:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	// Packing works within 128-bit lanes: quadwords come out as
	// Y0 low, Y1 low, Y0 high, Y1 high, and VPERMQ puts them in order.
	VPACKSSWB Y1, Y0, Y0
	VPERMQ $0xD8, Y0, Y0
	VPMAXSB Y15, Y0, Y0
	VMOVDQU Y0, 0(DI)
	ADDQ $64, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JNZ  creluY
	VZEROUPPER
	RET

// func creluAVX512(dst *uint8, src *int16, n int)
TEXT ·creluAVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VPXORQ Z15, Z15, Z15
	MOVL $127, AX
	VPBROADCASTW AX, Z14

creluZ:
	VMOVDQU64 0(SI), Z0
	VPMAXSW Z15, Z0, Z0
	VPMINSW Z14, Z0, Z0
	VPMOVWB Z0, Y1
	VMOVDQU Y1, 0(DI)
	ADDQ $64, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JNZ  creluZ
	VZEROUPPER
	RET

// func denseAVX2(out *int32, in *uint8, w *int8, bias *int32, nin, nout int)
TEXT ·denseAVX2(SB), NOSPLIT, $0-48
	DENSE_PROLOGUE
	MOVL $0x00010001, AX
	MOVD AX, X15
	VPBROADCASTD X15, Y15

dgroupY:
	LEAQ (R8)(CX*1), R9
	LEAQ (R9)(CX*1), R10
	LEAQ (R10)(CX*1), R11
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ AX, AX

dloopY:
	VMOVDQU (SI)(AX*1), Y4
	VPMADDUBSW (R8)(AX*1), Y4, Y5
	VPMADDUBSW (R9)(AX*1), Y4, Y6
	VPMADDUBSW (R10)(AX*1), Y4, Y7
	VPMADDUBSW (R11)(AX*1), Y4, Y8
	VPMADDWD Y15, Y5, Y5
	VPMADDWD Y15, Y6, Y6
	VPMADDWD Y15, Y7, Y7
	VPMADDWD Y15, Y8, Y8
	VPADDD Y5, Y0, Y0
	VPADDD Y6, Y1, Y1
	VPADDD Y7, Y2, Y2
	VPADDD Y8, Y3, Y3
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  dloopY
	REDUCE4
	NEXT_GROUP
	JNZ  dgroupY
	VZEROUPPER
	RET

// func denseAVX512(out *int32, in *uint8, w *int8, bias *int32, nin, nout int)
TEXT ·denseAVX512(SB), NOSPLIT, $0-48
	DENSE_PROLOGUE
	MOVL $0x00010001, AX
	VPBROADCASTD AX, Z15

dgroupZ:
	LEAQ (R8)(CX*1), R9
	LEAQ (R9)(CX*1), R10
	LEAQ (R10)(CX*1), R11
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	XORQ AX, AX

dloopZ:
	VMOVDQU64 (SI)(AX*1), Z4
	VPMADDUBSW (R8)(AX*1), Z4, Z5
	VPMADDUBSW (R9)(AX*1), Z4, Z6
	VPMADDUBSW (R10)(AX*1), Z4, Z7
	VPMADDUBSW (R11)(AX*1), Z4, Z8
	VPMADDWD Z15, Z5, Z5
	VPMADDWD Z15, Z6, Z6
	VPMADDWD Z15, Z7, Z7
	VPMADDWD Z15, Z8, Z8
	VPADDD Z5, Z0, Z0
	VPADDD Z6, Z1, Z1
	VPADDD Z7, Z2, Z2
	VPADDD Z8, Z3, Z3
	ADDQ $64, AX
	CMPQ AX, CX
	JLT  dloopZ
	FOLD4
	REDUCE4
	NEXT_GROUP
	JNZ  dgroupZ
	VZEROUPPER
	RET

// func denseAVX512VNNI(out *int32, in *uint8, w *int8, bias *int32, nin, nout int)
TEXT ·denseAVX512VNNI(SB), NOSPLIT, $0-48
	DENSE_PROLOGUE

dgroupV:
	LEAQ (R8)(CX*1), R9
	LEAQ (R9)(CX*1), R10
	LEAQ (R10)(CX*1), R11
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	XORQ AX, AX

dloopV:
	VMOVDQU64 (SI)(AX*1), Z4
	// VPDPBUSD: the unsigned bytes of Z4 (activations) times the signed
	// bytes of the weights, four products a lane summed into it.
	VPDPBUSD (R8)(AX*1), Z4, Z0
	VPDPBUSD (R9)(AX*1), Z4, Z1
	VPDPBUSD (R10)(AX*1), Z4, Z2
	VPDPBUSD (R11)(AX*1), Z4, Z3
	ADDQ $64, AX
	CMPQ AX, CX
	JLT  dloopV
	FOLD4
	REDUCE4
	NEXT_GROUP
	JNZ  dgroupV
	VZEROUPPER
	RET
