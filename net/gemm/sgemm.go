package gemm

import (
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/tabula-zero/tabula/internal/parallel"
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

// Products smaller than this many multiply-adds run as plain loops:
// packing and the scratch output cost more than they save there.
const minKernelWork = 32 * 32 * 32

// kc is the depth of one pass over the packed panels: a kc x nr block of
// B (32 KiB at nr = 32) stays in the first-level cache while the tiles
// stream past it; longer products accumulate pass by pass.
const kc = 256

// Sgemm is BLAS.Sgemm with booleans for the transpositions. It panics on
// inconsistent arguments, as every BLAS does: they are programming errors.
// Its scratch space comes from a pool, which the garbage collector empties
// now and then; a caller that multiplies the same shapes again and again
// keeps a Workspace of its own instead.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ws := workspaces.Get().(*Workspace)
	ws.Sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	workspaces.Put(ws)
}

// Sgemm is the package's Sgemm on w's scratch space: it allocates nothing
// once the space has grown to the largest shapes. A Workspace is used by
// one goroutine at a time.
func (ws *Workspace) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 || m*n*k < minKernelWork {
		small(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	kern := Default
	nr := kern.NR
	panels := (n + nr - 1) / nr
	npad := panels * nr
	mpad := RoundUp(m, MR)

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
	ws.call = sgemmCall{kern: kern, m: m, n: n, k: k, panels: panels, npad: npad, tiles: mpad / MR,
		arows: arows, astride: astride, packed: packed, prod: prod, direct: direct,
		alpha: alpha, beta: beta, c: c, ldc: ldc}
	ws.call.workers = min(runtime.GOMAXPROCS(0), ws.call.tiles, max(1, m*n*k/(1<<20)), len(ws.scratch))
	parallel.For(ws.call.workers, ws.part)
	ws.call = sgemmCall{}
}

// sgemmCall is one Sgemm call's arguments for its parts.
type sgemmCall struct {
	kern                         Kernel
	m, n, k, panels, npad, tiles int
	workers                      int
	arows                        []float32
	astride                      int
	packed, prod                 []float32
	direct                       bool
	alpha, beta                  float32
	c                            []float32
	ldc                          int
}

// run computes part w of the call's tiles (a contiguous range of them).
func (ws *Workspace) run(w int) {
	a := &ws.call
	nr := a.kern.NR
	t0, t1 := a.tiles*w/a.workers, a.tiles*(w+1)/a.workers
	s := &ws.scratch[w]
	t, aoff, coff := &s.t, &s.aoff, &s.coff
	*t = Tile{A: a.arows, NSeg: 1, Bias: zeroBias[:nr], C: a.prod, Aoff: aoff[:], Coff: coff[:]}
	for k0 := 0; k0 < a.k; k0 += kc {
		kb := min(kc, a.k-k0)
		t.SegLen = kb
		if k0 > 0 {
			t.Res = a.prod
		}
		for p := 0; p < a.panels; p++ {
			t.W = a.packed[(p*a.k+k0)*nr : (p*a.k+k0+kb)*nr]
			for ti := t0; ti < t1; ti++ {
				for r := 0; r < MR; r++ {
					i := ti*MR + r
					// Rows past m repeat row 0; their sums land in the
					// scratch padding and are never read.
					src := i
					if i >= a.m {
						src = 0
					}
					aoff[r] = src*a.astride + k0
					coff[r] = i*a.npad + p*nr
				}
				a.kern.Run(t)
			}
		}
	}
	if a.direct {
		return
	}
	for i := t0 * MR; i < min(t1*MR, a.m); i++ {
		dst := a.c[i*a.ldc : i*a.ldc+a.n]
		src := a.prod[i*a.npad : i*a.npad+a.n]
		switch {
		case a.beta == 0 && a.alpha == 1:
			copy(dst, src)
		case a.beta == 0:
			for j, v := range src {
				dst[j] = a.alpha * v
			}
		default:
			for j, v := range src {
				dst[j] = a.alpha*v + a.beta*dst[j]
			}
		}
	}
}

// small computes a product with plain loops, each sum in k order. It
// replaces gonum's Sgemm for small products because gonum's assembly dot
// product first steps to a 16-byte boundary, so its rounding depends on
// where the operands lie in memory, and training must not.
func small(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	ai, al := lda, 1 // A[i][l] is a[i*ai + l*al]
	if transA {
		ai, al = 1, lda
	}
	bl, bj := ldb, 1 // B[l][j] is b[l*bl + j*bj]
	if transB {
		bl, bj = 1, ldb
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		for j := range row {
			var sum float32
			if alpha != 0 {
				for l := 0; l < k; l++ {
					sum += a[i*ai+l*al] * b[l*bl+j*bj]
				}
			}
			if beta == 0 {
				row[j] = alpha * sum
			} else {
				row[j] = alpha*sum + beta*row[j]
			}
		}
	}
}

// zeroBias is the bias of every tile of a product (the kernels only read
// it).
var zeroBias [64]float32

// Workspace holds one call's scratch buffers, reused across calls, and
// its loop body for parallel.For, made once.
type Workspace struct {
	at, packed, prod []float32
	call             sgemmCall
	part             func(w int)
	// scratch holds each part's tile: parts run concurrently, and a tile
	// handed to a kernel through a func value would be allocated per call
	// if it were a local.
	scratch []tileScratch
}

type tileScratch struct {
	t          Tile
	aoff, coff [MR]int
}

// NewWorkspace returns an empty workspace.
func NewWorkspace() *Workspace {
	ws := &Workspace{scratch: make([]tileScratch, 64)}
	ws.part = ws.run
	return ws
}

var workspaces = sync.Pool{New: func() any { return NewWorkspace() }}

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
