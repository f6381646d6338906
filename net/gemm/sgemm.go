package gemm

import (
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/tabula-zero/tabula/internal/parallel"
)

// BLAS is gonum's BLAS with Sgemm replaced by the package's (packed
// operands and the micro-kernels of micro.go).
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

// kc is the depth of one pass over the packed operands; longer products
// accumulate pass by pass, each pass reading and writing C once. A panel
// of B is then 64 KiB at NR = 32, in the second-level cache with the tiles
// of A. On the AVX-512 machine none of 192, 256, 384, 768 or 1024 was
// ahead of 512 at 2048² (medians of interleaved rounds, 0.93-0.98 of it).
const kc = 512

// ncPanels is how many panels of B one tile of A meets before the next
// tile: the tile (12 x kc floats, 24 KiB) stays in the first-level cache
// while they stream past it from the second-level cache, which keeps the
// group (8 panels of 32 x kc, 512 KiB) for every tile of the part.
const ncPanels = 8

// mcTiles is how many tiles of A one worker packs at a time: 8 tiles of
// 12 rows are 96 x kc floats (192 KiB), which the second-level cache
// keeps while every panel of B passes over them.
const mcTiles = 8

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
	mk := DefaultMicro
	mr, nr := mk.MR, mk.NR
	panels := (n + nr - 1) / nr
	tiles := (m + mr - 1) / mr

	// op(B) packed pass by pass, panel by panel: [pass][panel][kb][nr],
	// zero beyond column n, so that a pass's panels are one run.
	packed := grow(&ws.packed, panels*nr*k)
	// The kernels write whole blocks. When C is not scaled they write
	// into C itself (blocks cut short by m or n go through a tile of
	// scratch), also when the product is added to C in one pass (beta 1,
	// k within a pass: the kernel adds C's old value after the sum, as
	// the scratch path would); otherwise into a scratch product that the
	// last step scales into C, as BLAS defines.
	direct := alpha == 1 && (beta == 0 || beta == 1 && k <= kc)
	prod, ldp := c, ldc
	if !direct {
		ldp = panels * nr
		prod = grow(&ws.prod, tiles*mr*ldp)
	}
	ws.call = sgemmCall{mk: mk, m: m, n: n, k: k, panels: panels, tiles: tiles,
		a: a, lda: lda, transA: transA, b: b, ldb: ldb, transB: transB, packed: packed, prod: prod, ldp: ldp, direct: direct,
		alpha: alpha, beta: beta, c: c, ldc: ldc}
	ws.call.workers = ws.workers(m, n, k, tiles)
	parallel.For(min(ws.call.workers, panels), ws.packPart)
	parallel.For(ws.call.workers, ws.part)
	ws.call = sgemmCall{}
}

// workers is the cores a product of m x n x k in tiles of rows runs on:
// a megaflop's work or more each, at most the workspace's.
func (ws *Workspace) workers(m, n, k, tiles int) int {
	return min(runtime.GOMAXPROCS(0), tiles, max(1, m*n*k/(1<<20)), len(ws.scratch))
}

// sgemmCall is one Sgemm call's arguments for its parts.
type sgemmCall struct {
	mk                     Micro
	m, n, k, panels, tiles int
	workers                int
	a, b                   []float32
	lda, ldb               int
	transA, transB         bool
	packed, prod           []float32
	ldp                    int
	direct                 bool
	alpha, beta            float32
	c                      []float32
	ldc                    int
}

// run computes part w of the call's tiles (a contiguous range of them):
// pass by pass, it packs up to mcTiles tiles of A and runs every panel of
// B over them.
func (ws *Workspace) run(w int) {
	call := &ws.call
	mr, nr := call.mk.MR, call.mk.NR
	t0, t1 := call.tiles*w/call.workers, call.tiles*(w+1)/call.workers
	s := &ws.scratch[w]
	// Written straight into C, a one-pass product is added to C's old
	// value from the first pass (beta 1); every later pass adds to the
	// passes before it.
	addToC := call.direct && call.beta == 1
	for k0 := 0; k0 < call.k; k0 += kc {
		kb := min(kc, call.k-k0)
		bpass := call.packed[k0*call.panels*nr:]
		accumulate := k0 > 0 || addToC
		for c0 := t0; c0 < t1; c0 += mcTiles {
			c1 := min(c0+mcTiles, t1)
			pa := grow(&s.a, (c1-c0)*mr*kb)
			call.packA(pa, c0, c1, k0, kb)
			for p0 := 0; p0 < call.panels; p0 += ncPanels {
				p1 := min(p0+ncPanels, call.panels)
				for ti := c0; ti < c1; ti++ {
					at := pa[(ti-c0)*mr*kb : (ti-c0+1)*mr*kb]
					for p := p0; p < p1; p++ {
						call.block(s, at, bpass[p*kb*nr:(p+1)*kb*nr], ti, p, kb, accumulate)
					}
				}
			}
		}
	}
	if call.direct {
		return
	}
	for i := t0 * mr; i < min(t1*mr, call.m); i++ {
		dst := call.c[i*call.ldc : i*call.ldc+call.n]
		src := call.prod[i*call.ldp : i*call.ldp+call.n]
		if call.beta == 0 {
			for j, v := range src {
				dst[j] = call.alpha * v
			}
			continue
		}
		for j, v := range src {
			dst[j] = call.alpha*v + call.beta*dst[j]
		}
	}
}

// packB packs part w of op(B)'s panels (a contiguous range of them) for
// every pass.
func (ws *Workspace) packB(w int) {
	call := &ws.call
	nr := call.mk.NR
	parts := min(call.workers, call.panels)
	p0, p1 := call.panels*w/parts, call.panels*(w+1)/parts
	for k0 := 0; k0 < call.k; k0 += kc {
		kb := min(kc, call.k-k0)
		pass := call.packed[k0*call.panels*nr:]
		// Whole panels of a B stored k x n: row by row, each row's
		// stretch of panels read in one forward run (a panel's
		// column by column down B's rows would step a page a row).
		full := p0
		if !call.transB {
			full = min(p1, call.n/nr)
			for kk := 0; kk < kb && p0 < full; kk++ {
				row := call.b[(k0+kk)*call.ldb:]
				for p := p0; p < full; p++ {
					copyPanelRow(pass[(p*kb+kk)*nr:(p*kb+kk+1)*nr], row[p*nr:p*nr+nr])
				}
			}
		}
		for p := max(p0, full); p < p1; p++ {
			dst := pass[p*kb*nr : (p+1)*kb*nr]
			j0 := p * nr
			cols := min(nr, call.n-j0)
			for kk := 0; kk < kb; kk++ {
				d := dst[kk*nr : kk*nr+nr]
				if call.transB {
					col := call.b[j0*call.ldb+k0+kk:]
					for o := 0; o < cols; o++ {
						d[o] = col[o*call.ldb]
					}
				} else {
					copy(d[:cols], call.b[(k0+kk)*call.ldb+j0:][:cols])
				}
				clear(d[cols:])
			}
		}
	}
}

// packA copies rows of op(A) for tiles c0..c1 and depths k0..k0+kb into
// dst as [tile][kb][mr], zero past row m.
func (call *sgemmCall) packA(dst []float32, c0, c1, k0, kb int) {
	mr := call.mk.MR
	for ti := c0; ti < c1; ti++ {
		d := dst[(ti-c0)*mr*kb : (ti-c0+1)*mr*kb]
		rows := min(mr, call.m-ti*mr)
		if call.transA {
			// A is stored k x m: a depth's mr rows are adjacent. Whole
			// tiles of the kernels' heights copy as arrays, which the
			// compiler inlines, where copy would call memmove for every
			// 24 or 48 bytes.
			if rows == mr && packDepths(d, call.a[k0*call.lda+ti*mr:], call.lda, mr, kb) {
				continue
			}
			for kk := 0; kk < kb; kk++ {
				src := call.a[(k0+kk)*call.lda+ti*mr:]
				copy(d[kk*mr:kk*mr+rows], src[:rows])
				clear(d[kk*mr+rows : kk*mr+mr])
			}
			continue
		}
		if rows == mr && packRows(d, call.a[ti*mr*call.lda+k0:], call.lda, mr, kb) {
			continue
		}
		for r := 0; r < rows; r++ {
			src := call.a[(ti*mr+r)*call.lda+k0:][:kb]
			for kk, v := range src {
				d[kk*mr+r] = v
			}
		}
		for r := rows; r < mr; r++ {
			for kk := 0; kk < kb; kk++ {
				d[kk*mr+r] = 0
			}
		}
	}
}

// copyPanelRow copies one depth's row of a panel: a fixed-size copy for
// the micro-kernels' widths, which the compiler inlines, where copy would
// call memmove for every 64 or 128 bytes.
func copyPanelRow(dst, src []float32) {
	switch len(dst) {
	case 32:
		*(*[32]float32)(dst) = *(*[32]float32)(src)
	case 16:
		*(*[16]float32)(dst) = *(*[16]float32)(src)
	default:
		copy(dst, src)
	}
}

// packDepths packs a whole tile of mr rows of a stored k x m A (depth kk
// at a[kk*lda:]) as [kb][mr]. It reports false for a tile height it has
// no loop for.
func packDepths(d, a []float32, lda, mr, kb int) bool {
	switch mr {
	case 6:
		for kk := range kb {
			*(*[6]float32)(d[kk*6:]) = *(*[6]float32)(a[kk*lda:])
		}
	case 12:
		for kk := range kb {
			*(*[12]float32)(d[kk*12:]) = *(*[12]float32)(a[kk*lda:])
		}
	default:
		return false
	}
	return true
}

// packRows packs a whole tile of mr rows of a stored m x k A (row r at
// a[r*lda:]) as [kb][mr], depth by depth: every row read forward, the tile
// written forward. It reports false for a tile height it has no loop for.
func packRows(d, a []float32, lda, mr, kb int) bool {
	switch mr {
	case 12:
		r0, r1, r2, r3 := a[:kb], a[lda:][:kb], a[2*lda:][:kb], a[3*lda:][:kb]
		r4, r5, r6, r7 := a[4*lda:][:kb], a[5*lda:][:kb], a[6*lda:][:kb], a[7*lda:][:kb]
		r8, r9, r10, r11 := a[8*lda:][:kb], a[9*lda:][:kb], a[10*lda:][:kb], a[11*lda:][:kb]
		d = d[:kb*12]
		for kk := range kb {
			t := (*[12]float32)(d[kk*12:])
			t[0], t[1], t[2], t[3] = r0[kk], r1[kk], r2[kk], r3[kk]
			t[4], t[5], t[6], t[7] = r4[kk], r5[kk], r6[kk], r7[kk]
			t[8], t[9], t[10], t[11] = r8[kk], r9[kk], r10[kk], r11[kk]
		}
	case 6:
		r0, r1, r2 := a[:kb], a[lda:][:kb], a[2*lda:][:kb]
		r3, r4, r5 := a[3*lda:][:kb], a[4*lda:][:kb], a[5*lda:][:kb]
		d = d[:kb*6]
		for kk := range kb {
			t := (*[6]float32)(d[kk*6:])
			t[0], t[1], t[2], t[3], t[4], t[5] = r0[kk], r1[kk], r2[kk], r3[kk], r4[kk], r5[kk]
		}
	default:
		return false
	}
	return true
}

// block runs the micro-kernel for tile ti and panel p of one pass. A block
// that C's edge cuts short (direct only: the scratch product is padded)
// goes through s.edge.
func (call *sgemmCall) block(s *partScratch, pa, pb []float32, ti, p, kb int, accumulate bool) {
	mr, nr := call.mk.MR, call.mk.NR
	i0, j0 := ti*mr, p*nr
	rows, cols := mr, nr
	if call.direct {
		rows, cols = min(mr, call.m-i0), min(nr, call.n-j0)
	}
	if rows == mr && cols == nr {
		call.mk.Run(kb, pa, pb, call.prod[i0*call.ldp+j0:], call.ldp, accumulate)
		return
	}
	edge := s.edge[:mr*nr]
	if accumulate {
		for r := 0; r < rows; r++ {
			copy(edge[r*nr:r*nr+cols], call.prod[(i0+r)*call.ldp+j0:][:cols])
		}
	}
	call.mk.Run(kb, pa, pb, edge, nr, accumulate)
	for r := 0; r < rows; r++ {
		copy(call.prod[(i0+r)*call.ldp+j0:][:cols], edge[r*nr:r*nr+cols])
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

// Workspace holds one call's scratch buffers, reused across calls, and
// its loop body for parallel.For, made once.
type Workspace struct {
	packed, prod []float32
	call         sgemmCall
	part         func(w int)
	packPart     func(w int)
	// scratch holds each part's packed tiles of A and its edge block.
	scratch []partScratch
}

type partScratch struct {
	a    []float32
	edge [32 * 32]float32
}

// NewWorkspace returns an empty workspace.
func NewWorkspace() *Workspace { return NewWorkspaceOn(64) }

// NewWorkspaceOn returns an empty workspace whose calls run on at most
// workers cores (at least one).
func NewWorkspaceOn(workers int) *Workspace {
	ws := &Workspace{scratch: make([]partScratch, max(1, workers))}
	ws.part, ws.packPart = ws.run, ws.packB
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
