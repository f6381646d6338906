package gemm

import (
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BLAS is gonum's BLAS with Sgemm replaced by the tile kernels below.
// gorgonia runs every convolution (forward and both backward products)
// and dense layer of the training graph through Sgemm, where gonum's pure-Go
// product spent about 60% of a training step (profile of the Connect
// Four preset at batch 64); everything else stays gonum's.
type BLAS struct{ gonum.Implementation }

// Sgemm computes C = alpha * op(A) * op(B) + beta * C for row-major
// matrices, op(A) m x k and op(B) k x n, as blas.Float32Level3 specifies.
func (BLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	Sgemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Products smaller than this many multiply-adds go to gonum: packing and
// the scratch output cost more than they save there.
const minKernelWork = 32 * 32 * 32

// kc is the depth of one pass over the packed panels: a kc x nr block of
// B (32 KiB at nr = 32) stays in the first-level cache while the tiles
// stream past it; longer products accumulate pass by pass.
const kc = 256

// Sgemm is BLAS.Sgemm with booleans for the transpositions. It panics on
// inconsistent arguments, as every BLAS does: they are programming errors.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 || m*n*k < minKernelWork {
		tr := func(t bool) blas.Transpose {
			if t {
				return blas.Trans
			}
			return blas.NoTrans
		}
		gonum.Implementation{}.Sgemm(tr(transA), tr(transB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	ws := workspaces.Get().(*workspace)
	defer workspaces.Put(ws)
	kern := Default
	nr := kern.NR
	panels := (n + nr - 1) / nr
	npad := panels * nr
	mpad := (m + MR - 1) / MR * MR

	// op(A) as k-long rows: A itself, or a transposed copy.
	arows, astride := a, lda
	if transA {
		at := grow(&ws.at, m*k)
		for kk := 0; kk < k; kk++ {
			row := a[kk*lda : kk*lda+m]
			for i, v := range row {
				at[i*k+kk] = v
			}
		}
		arows, astride = at, k
	}

	// op(B) packed into panels [panel][k][nr], zero beyond column n.
	packed := grow(&ws.packed, panels*k*nr)
	for p := 0; p < panels; p++ {
		dst := packed[p*k*nr : (p+1)*k*nr]
		j0 := p * nr
		w := min(nr, n-j0)
		for kk := 0; kk < k; kk++ {
			d := dst[kk*nr : kk*nr+nr]
			if transB {
				for o := 0; o < w; o++ {
					d[o] = b[(j0+o)*ldb+kk]
				}
			} else {
				copy(d[:w], b[kk*ldb+j0:kk*ldb+j0+w])
			}
			clear(d[w:])
		}
	}

	// The kernels write whole tiles into a padded scratch product; the
	// last step scales it into C. When the tiles cover C exactly and C is
	// neither scaled nor added to, they write straight into C: with a
	// short k (a convolution's input gradient) the scratch and its copy
	// cost as much as the multiplication.
	direct := beta == 0 && alpha == 1 && mpad == m && npad == n && ldc == n
	var prod []float32
	if direct {
		prod = c[:m*n]
	} else {
		prod = grow(&ws.prod, mpad*npad)
	}
	tiles := mpad / MR
	workers := min(runtime.GOMAXPROCS(0), tiles, max(1, m*n*k/(1<<20)))
	run := func(t0, t1 int) {
		var t Tile
		var aoff, coff [MR]int
		var bias [32]float32
		t.A, t.NSeg, t.SegStride, t.Bias, t.C = arows, 1, 0, bias[:nr], prod
		t.Aoff, t.Coff = aoff[:], coff[:]
		for k0 := 0; k0 < k; k0 += kc {
			kb := min(kc, k-k0)
			t.SegLen = kb
			if k0 > 0 {
				t.Res = prod
			}
			for p := 0; p < panels; p++ {
				t.W = packed[(p*k+k0)*nr : (p*k+k0+kb)*nr]
				for ti := t0; ti < t1; ti++ {
					for r := 0; r < MR; r++ {
						i := ti*MR + r
						// Rows past m repeat row 0; their sums land in
						// the scratch padding and are never read.
						src := i
						if i >= m {
							src = 0
						}
						aoff[r] = src*astride + k0
						coff[r] = i*npad + p*nr
					}
					kern.Run(&t)
				}
			}
		}
		if direct {
			return
		}
		for i := t0 * MR; i < min(t1*MR, m); i++ {
			dst := c[i*ldc : i*ldc+n]
			src := prod[i*npad : i*npad+n]
			switch {
			case beta == 0 && alpha == 1:
				copy(dst, src)
			case beta == 0:
				for j, v := range src {
					dst[j] = alpha * v
				}
			default:
				for j, v := range src {
					dst[j] = alpha*v + beta*dst[j]
				}
			}
		}
	}
	if workers <= 1 {
		run(0, tiles)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		t0, t1 := tiles*w/workers, tiles*(w+1)/workers
		wg.Go(func() { run(t0, t1) })
	}
	wg.Wait()
}

// workspace holds one call's scratch buffers, reused across calls.
type workspace struct{ at, packed, prod []float32 }

var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// grow returns (*buf)[:n], reallocating when it is too short.
func grow(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}

// storedShapes returns the shapes of A and B as stored, for op(A) m x k
// and op(B) k x n.
func storedShapes(transA, transB bool, m, n, k int) (rowsA, colsA, rowsB, colsB int) {
	rowsA, colsA, rowsB, colsB = m, k, k, n
	if transA {
		rowsA, colsA = k, m
	}
	if transB {
		rowsB, colsB = n, k
	}
	return
}

func checkArgs(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	rowsA, colsA, rowsB, colsB := storedShapes(transA, transB, m, n, k)
	switch {
	case m < 0 || n < 0 || k < 0:
		panic(fmt.Sprintf("gemm: negative dimension m=%d n=%d k=%d", m, n, k))
	case lda < max(1, colsA) || ldb < max(1, colsB) || ldc < max(1, n):
		panic(fmt.Sprintf("gemm: leading dimension too small (lda %d, ldb %d, ldc %d)", lda, ldb, ldc))
	case rowsA > 0 && len(a) < (rowsA-1)*lda+colsA:
		panic("gemm: A too short")
	case rowsB > 0 && len(b) < (rowsB-1)*ldb+colsB:
		panic("gemm: B too short")
	case m > 0 && len(c) < (m-1)*ldc+n:
		panic("gemm: C too short")
	}
}
