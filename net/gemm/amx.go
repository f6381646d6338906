package gemm

import "fmt"

// Conv3AMX is a 3x3 convolution of the 8-bit tower on AMX (Advanced
// Matrix Extensions: TDPBUSD multiplies a 16-row tile of unsigned bytes
// by a tile of signed bytes into 16x16 exact 32-bit sums, sixteen times
// a 512-bit VNNI instruction's work). It reads a padded NHWC byte buffer
// (channel stride CS, a multiple of 16 up to 48; padded width Wp) in
// tiles of 16 consecutive padded pixels: the row of output pixel (y, x)
// is p = y*Wp + x, and its tap (ky, kx) reads input pixel p + ky*Wp + kx
// relative to the image's first padded pixel, so every tap of a tile is
// one strided tile load and nothing is copied into an im2col matrix.
// Rows on the padding columns are computed and dropped; the epilogue is
// the 8-bit tile's (scale, bias, residual, ReLU) on the rows kept.
type Conv3AMX struct {
	cfg          [64]byte // the tile configuration
	cs, wp, np   int
	w            []int8 // tap t, panel j: a B tile at (t*np+j)*cs*16
	scale, bias  []float32
	taps         [9]int // byte offsets of the taps from a row's first one
	wstep, sumRS int
}

// HasAMX reports whether Conv3AMX runs on the tile registers here (AMX-INT8,
// granted by the OS); elsewhere it runs its plain-loop twin, far slower
// than the 8-bit tile kernels.
func HasAMX() bool { return hasAMX() }

// AMXRows is the number of output pixels in one tile: a TDPBUSD's rows.
const AMXRows = 16

// NewConv3AMX prepares a convolution of cs input and cs output channels
// (both padded to the stride cs: a multiple of 16, at most 48) from its
// 8-bit weights w(o, k), k = (ky*3+kx)*cs + ci as in Pack8's rows, and
// the per-column scale and bias of the 8-bit tile (length cs).
func NewConv3AMX(cs, wp int, w func(o, k int) int8, scale, bias []float32) (*Conv3AMX, error) {
	if cs%16 != 0 || cs < 16 || cs > 48 {
		return nil, fmt.Errorf("gemm: AMX convolution needs a channel stride of 16, 32 or 48, have %d", cs)
	}
	if len(scale) < cs || len(bias) < cs {
		return nil, fmt.Errorf("gemm: AMX convolution has %d scales and %d biases for %d channels", len(scale), len(bias), cs)
	}
	c := &Conv3AMX{cs: cs, wp: wp, np: cs / 16, scale: scale[:cs], bias: bias[:cs]}
	c.wstep = cs * 16 // a B tile: cs/4 rows of 64 bytes
	c.sumRS = c.np * 64
	c.w = make([]int8, 9*c.np*c.wstep)
	for t := range 9 {
		c.taps[t] = ((t/3)*wp + t%3) * cs
		for j := range c.np {
			b := c.w[(t*c.np+j)*c.wstep:][:c.wstep]
			for ci := range cs {
				for o := range 16 {
					b[(ci/4)*64+o*4+ci%4] = w(16*j+o, t*cs+ci)
				}
			}
		}
	}
	// Palette 1; tiles 0..np-1 the sums (16 rows of 16 int32), 3 the
	// activations (16 rows of cs bytes), 4..3+np the weights (cs/4 rows
	// of 64 bytes).
	c.cfg[0] = 1
	for j := range c.np {
		c.cfg[16+2*j], c.cfg[48+j] = 64, AMXRows
		c.cfg[16+2*(4+j)], c.cfg[48+4+j] = 64, byte(cs/4)
	}
	c.cfg[16+2*3], c.cfg[48+3] = byte(cs), AMXRows
	return c, nil
}

// AMXTile is one tile of a convolution: A + Row is the first tap of its
// first output pixel in the byte buffer, Coff the float index in C (and
// Res) of each of its 16 output pixels, or -1 for a row to drop.
type AMXTile struct {
	Row  int
	Coff [AMXRows]int
}

// Run computes the tiles into c (ReLU'd; res added first when not nil).
// sum is scratch of AMXRows*cs int32s. Every index is checked before
// the assembly runs; an out-of-range one panics, a caller's bug.
func (c *Conv3AMX) Run(a []uint8, tiles []AMXTile, sum []int32, out, res []float32) {
	c.check(a, tiles, sum, out, res)
	if len(tiles) == 0 {
		return
	}
	if hasAMX() {
		c.runAsm(a, tiles, sum, out, res)
		return
	}
	c.runGo(a, tiles, out, res)
}

func (c *Conv3AMX) check(a []uint8, tiles []AMXTile, sum []int32, out, res []float32) {
	if len(sum) < AMXRows*c.cs {
		panic(fmt.Sprintf("gemm: AMX scratch of %d sums, want %d", len(sum), AMXRows*c.cs))
	}
	last := (AMXRows-1)*c.cs + c.taps[8] + c.cs
	for i, t := range tiles {
		if t.Row < 0 || t.Row+last > len(a) {
			panic(fmt.Sprintf("gemm: AMX tile %d reads bytes [%d, %d) of %d", i, t.Row, t.Row+last, len(a)))
		}
		for r, o := range t.Coff {
			if o < -1 || o+c.cs > len(out) || (res != nil && o+c.cs > len(res)) {
				panic(fmt.Sprintf("gemm: AMX tile %d row %d writes past C at %d", i, r, o))
			}
		}
	}
}

// runGo is Run in plain loops: the assembly's twin.
func (c *Conv3AMX) runGo(a []uint8, tiles []AMXTile, out, res []float32) {
	for _, t := range tiles {
		for r, off := range t.Coff {
			if off < 0 {
				continue
			}
			for o := range c.cs {
				j, oo := o/16, o%16
				var s int32
				for tap := range 9 {
					px := a[t.Row+r*c.cs+c.taps[tap]:][:c.cs]
					b := c.w[(tap*c.np+j)*c.wstep:]
					for ci, v := range px {
						s += int32(v) * int32(b[(ci/4)*64+oo*4+ci%4])
					}
				}
				v := c.bias[o] + c.scale[o]*float32(s)
				if res != nil {
					v += res[off+o]
				}
				out[off+o] = max(v, 0)
			}
		}
	}
}
