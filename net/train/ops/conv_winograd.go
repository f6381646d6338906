package ops

import (
	"os"

	"github.com/tabula-zero/tabula/internal/parallel"
	"github.com/tabula-zero/tabula/net/gemm"
)

// winoConv runs a 3x3 convolution's forward pass as Winograd's F(2x2,
// 3x3) in bfloat16 (net/gemm's WinogradInput, DotPairsBF16,
// WinogradOutput): 16 products a tile of 2x2 outputs and channel pair
// where the direct tiles take 36 and compute the compact layout's padding
// pixels besides. A chunk of whole images at a time goes through the
// three steps while its transformed input and sums stay in the
// second-level cache (Xiangqi at 48 channels, two images: 50 tiles, 86
// KiB and 172 KiB), each core its own chunks; the transformed weights
// (4.6 KiB an element at 48 channels) are made once a pass.
type winoConv struct {
	s       *convState
	th, tw  int // tile rows and columns of a board
	imgs    int // images a chunk
	rows    int // tiles a chunk, rounded up to whole groups of eight
	u       []gemm.BF16
	zero    []float32 // a padded row of zeros, the patches' rows past an image
	parts   []winoScratch
	runPart func(part int)
	cur     struct {
		x, y          []float32
		chunks, parts int
	}
}

type winoScratch struct {
	v []gemm.BF16
	m []float32
}

// winogradForward: the bf16 forward passes take Winograd's products where
// they fit (winogradFits). TABULA_WINOGRAD=off keeps the direct tiles, to
// measure one against the other.
var winogradForward = os.Getenv("TABULA_WINOGRAD") != "off"

// winoImages is the images a chunk: about 50 tiles.
func winoImages(b Board) int {
	per := (b.H + 1) / 2 * ((b.W + 1) / 2)
	return max(1, min(b.N, 50/per))
}

// winogradFits reports whether the forward pass takes Winograd's
// products: on VDPBF16PS (the AMX tiles' direct products are faster than
// these on vectors), channels in whole vectors of 16 and panels of at
// most three.
func winogradFits(s *convState) bool {
	return winogradForward && gemm.BF16Kernel() == "avx512bf16" && s.k == 3 &&
		s.in%16 == 0 && s.out%16 == 0 && s.out <= 48 && s.in <= 64
}

func newWinoConv(s *convState) *winoConv {
	b := s.b
	c := &winoConv{s: s, th: (b.H + 1) / 2, tw: (b.W + 1) / 2, imgs: winoImages(b)}
	c.rows = gemm.RoundUp(c.imgs*c.th*c.tw, 8)
	c.u = make([]gemm.BF16, 16*s.in*s.out)
	c.zero = make([]float32, (2*c.tw+2)*s.in)
	chunks := (b.N + c.imgs - 1) / c.imgs
	c.parts = make([]winoScratch, splits(chunks))
	for i := range c.parts {
		c.parts[i] = winoScratch{v: make([]gemm.BF16, 16*c.rows*s.in), m: make([]float32, 16*c.rows*s.out)}
	}
	c.runPart = c.runChunks
	return c
}

// transformWeights writes U = G g Gᵀ of every filter in pairs of input
// channels: u[ξ][c/2][o][c%2].
func (c *winoConv) transformWeights(w []float32) {
	in, out := c.s.in, c.s.out
	for o := range out {
		for ci := range in {
			g := w[(o*in+ci)*9:][:9]
			var h [4][3]float32 // G g
			for q := range 3 {
				h[0][q] = g[q]
				h[1][q] = 0.5 * (g[q] + g[3+q] + g[6+q])
				h[2][q] = 0.5 * (g[q] - g[3+q] + g[6+q])
				h[3][q] = g[6+q]
			}
			for i := range 4 {
				row := [4]float32{h[i][0], 0.5 * (h[i][0] + h[i][1] + h[i][2]), 0.5 * (h[i][0] - h[i][1] + h[i][2]), h[i][2]}
				for k, v := range row {
					c.u[(4*i+k)*in*out+((ci/2)*out+o)*2+ci%2] = gemm.ToBF16(v)
				}
			}
		}
	}
}

// forward: y = conv(x, w); y's padding is never written.
func (c *winoConv) forward(x, w, y []float32) {
	c.transformWeights(w)
	c.cur.x, c.cur.y = x, y
	c.cur.chunks = (c.s.b.N + c.imgs - 1) / c.imgs
	c.cur.parts = len(c.parts)
	parallel.For(c.cur.parts, c.runPart)
}

// runChunks is part of forward: a range of chunks of images.
func (c *winoConv) runChunks(part int) {
	b, in, out := c.s.b, c.s.in, c.s.out
	hp, wp := b.hp(), b.wp()
	sc := &c.parts[part]
	chunks, parts := c.cur.chunks, c.cur.parts
	for ch := chunks * part / parts; ch < chunks*(part+1)/parts; ch++ {
		n0, n1 := ch*c.imgs, min(b.N, (ch+1)*c.imgs)
		t := 0
		for n := n0; n < n1; n++ {
			for i := range c.th {
				var rows [4][]float32
				for r := range rows {
					// The bottom padding row, and a row past it (an odd
					// height), read as zeros; a row's last patch column
					// past its padding is the next row's left padding.
					if pr := 2*i + r; pr < hp-1 {
						rows[r] = c.cur.x[(n*hp+pr)*wp*in:]
					} else {
						rows[r] = c.zero
					}
				}
				gemm.WinogradInput(sc.v[t*in:], c.rows*in, rows, c.tw, in)
				t += c.tw
			}
		}
		padded := gemm.RoundUp(t, 8)
		for e := range 16 {
			gemm.DotPairsBF16(sc.m[e*c.rows*out:], out, sc.v[e*c.rows*in:], in, padded, c.u[e*in*out:], in/2, out/16)
		}
		t = 0
		for n := n0; n < n1; n++ {
			for i := range c.th {
				y0 := c.cur.y[((n*hp+2*i+1)*wp+1)*out:]
				var y1 []float32
				if 2*i+1 < b.H {
					y1 = c.cur.y[((n*hp+2*i+2)*wp+1)*out:]
				}
				gemm.WinogradOutput(y0, y1, sc.m[t*out:], c.rows*out, c.tw, b.W%2 == 1, out)
				t += c.tw
			}
		}
	}
}
