package nnue

import "fmt"

// kernels is one set of the three inner loops: assembly for one
// instruction set, or the pure-Go twins, which give the same results bit
// for bit (int16 sums wrap alike; the dense layer's byte pairs cannot
// saturate, activations being at most 127).
type kernels struct {
	name string
	// update sets dst = src + the rows add of w - the rows sub of w, rows
	// of len(dst) int16s (a multiple of 64); src may be dst.
	update func(dst, src, w []int16, add, sub []uint16)
	// crelu clips src to [0, 127] into bytes; len(src) is a multiple of 64.
	crelu func(dst []uint8, src []int16)
	// dense sets out[o] = bias[o] + sum_i in[i]*w[o*len(in)+i]; len(in) is
	// a multiple of 64, len(out) of 4, and in holds bytes <= 127.
	dense func(out []int32, in []uint8, w []int8, bias []int32)
}

var goKernels = kernels{name: "go", update: updateGo, crelu: creluGo, dense: denseGo}

// kernelSets lists the sets this build runs on this CPU within
// TABULA_ISA's cap, widest first; the pure-Go twins come last.
var kernelSets = append(asmKernelSets(), goKernels)

// activeKernels is the set positions and networks use.
var activeKernels = &kernelSets[0]

// KernelName names the instruction set the evaluation runs on: vnni,
// avx512, avx2 or go.
func KernelName() string { return activeKernels.name }

func updateGo(dst, src, w []int16, add, sub []uint16) {
	n := len(dst)
	copy(dst, src[:n])
	for _, f := range add {
		row := w[int(f)*n : int(f)*n+n]
		row = row[:len(dst)] // proves the lengths equal: no bounds checks below
		for i := range dst {
			dst[i] += row[i]
		}
	}
	for _, f := range sub {
		row := w[int(f)*n : int(f)*n+n]
		row = row[:len(dst)]
		for i := range dst {
			dst[i] -= row[i]
		}
	}
}

func creluGo(dst []uint8, src []int16) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = uint8(min(max(x, 0), FTScale))
	}
}

// denseGo takes four outputs at a time (len(out) is a multiple of 4), so
// that each input byte is loaded once for four products.
func denseGo(out []int32, in []uint8, w []int8, bias []int32) {
	n := len(in)
	for o := 0; o+4 <= len(out); o += 4 {
		r0 := w[o*n : o*n+n]
		r1 := w[(o+1)*n : (o+1)*n+n]
		r2 := w[(o+2)*n : (o+2)*n+n]
		r3 := w[(o+3)*n : (o+3)*n+n]
		r0, r1, r2, r3 = r0[:len(in)], r1[:len(in)], r2[:len(in)], r3[:len(in)]
		var s0, s1, s2, s3 int32
		for i, x := range in {
			v := int32(x)
			s0 += v * int32(r0[i])
			s1 += v * int32(r1[i])
			s2 += v * int32(r2[i])
			s3 += v * int32(r3[i])
		}
		out[o], out[o+1], out[o+2], out[o+3] = bias[o]+s0, bias[o+1]+s1, bias[o+2]+s2, bias[o+3]+s3
	}
}

// checkUpdate guards the assembly, which reads rows without bounds checks:
// a violation is a bug in this package, never bad input.
func checkUpdate(dst, src, w []int16, add, sub []uint16) {
	n := len(dst)
	if n == 0 || n%64 != 0 || len(src) < n || len(w)%n != 0 {
		panic(fmt.Sprintf("nnue: update of %d int16s from %d, rows of %d", n, len(src), len(w)))
	}
	rows := len(w) / n
	for _, f := range add {
		if int(f) >= rows {
			panic(fmt.Sprintf("nnue: row %d of %d", f, rows))
		}
	}
	for _, f := range sub {
		if int(f) >= rows {
			panic(fmt.Sprintf("nnue: row %d of %d", f, rows))
		}
	}
}

func checkDense(out []int32, in []uint8, w []int8, bias []int32) {
	if len(in) == 0 || len(in)%64 != 0 || len(out)%4 != 0 || len(w) < len(out)*len(in) || len(bias) < len(out) {
		panic(fmt.Sprintf("nnue: dense of %d inputs to %d outputs, %d weights, %d biases", len(in), len(out), len(w), len(bias)))
	}
}
