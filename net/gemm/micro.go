package gemm

// The general product's own kernels. Sgemm packs both operands as
// GotoBLAS does: op(B) into panels of NR columns, [k][NR] each, and op(A)
// into tiles of MR rows, [k][MR] each, so the micro-kernel reads both as
// single forward streams and keeps an MR x NR block of C in registers for
// a whole pass of kc. The Tile kernels above serve the layers, whose rows
// are strided views of an activation buffer; a general product can afford
// to copy its operands, and packed tiles let the kernel be taller (more
// multiply-adds per load) than a Tile's six rows.

// Micro computes an MR x NR block of a product from packed operands:
//
//	c[r*ldc+o] = sum_k a[k*MR+r] * b[k*NR+o]  (+ c[r*ldc+o] if accumulate)
//
// for r < MR and o < NR, each sum in k order from zero, the old value of c
// added last (so a product of several passes rounds the same whatever the
// kernel).
type Micro struct {
	Name   string
	MR, NR int
	Run    func(k int, a, b, c []float32, ldc int, accumulate bool)
}

// microRef is the plain-loop twin every Micro is tested against.
func microRef(mr, nr, k int, a, b, c []float32, ldc int, accumulate bool) {
	for r := 0; r < mr; r++ {
		for o := 0; o < nr; o++ {
			var sum float32
			for l := 0; l < k; l++ {
				sum += a[l*mr+r] * b[l*nr+o]
			}
			if accumulate {
				sum += c[r*ldc+o]
			}
			c[r*ldc+o] = sum
		}
	}
}

// checkMicro panics unless the kernel's reads and writes are in bounds:
// the assembly kernels index raw memory, and a call out of bounds is a bug
// in Sgemm, not a user error.
func checkMicro(mr, nr, k int, a, b, c []float32, ldc int) {
	if k < 1 || len(a) < k*mr || len(b) < k*nr || ldc < nr || len(c) < (mr-1)*ldc+nr {
		panic("gemm: micro-kernel call out of bounds")
	}
}

// goMR and goNR2 shape the pure-Go micro-kernel: a 4 x 4 block is 16
// sums, as many as the amd64 register file holds without spilling.
const goMR, goNR2 = 4, 4

// microGo is the portable micro-kernel, the same sums as microRef with
// the block held in locals.
func microGo(k int, a, b, c []float32, ldc int, accumulate bool) {
	checkMicro(goMR, goNR2, k, a, b, c, ldc)
	a, b = a[:k*goMR], b[:k*goNR2]
	var s [goMR][goNR2]float32
	for r := 0; r < goMR; r += 2 {
		var s00, s01, s02, s03, s10, s11, s12, s13 float32
		for l := 0; l < k; l++ {
			x0, x1 := a[l*goMR+r], a[l*goMR+r+1]
			w := b[l*goNR2 : l*goNR2+goNR2 : l*goNR2+goNR2]
			w0, w1, w2, w3 := w[0], w[1], w[2], w[3]
			s00 += x0 * w0
			s01 += x0 * w1
			s02 += x0 * w2
			s03 += x0 * w3
			s10 += x1 * w0
			s11 += x1 * w1
			s12 += x1 * w2
			s13 += x1 * w3
		}
		s[r] = [goNR2]float32{s00, s01, s02, s03}
		s[r+1] = [goNR2]float32{s10, s11, s12, s13}
	}
	for r := range s {
		row := c[r*ldc : r*ldc+goNR2]
		for o, v := range s[r] {
			if accumulate {
				v += row[o]
			}
			row[o] = v
		}
	}
}

var goMicro = Micro{Name: "go", MR: goMR, NR: goNR2, Run: microGo}

// DefaultMicro is the fastest micro-kernel this build and CPU can run;
// Sgemm uses it.
var DefaultMicro = Micros[0]
