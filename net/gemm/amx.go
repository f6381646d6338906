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

// amxTile is one tile of a convolution: A + Row is the first tap of its
// first output pixel in the byte buffer, Coff the float index in C (and
// Res) of each of its 16 output pixels, or -1 for a row to drop.
type amxTile struct {
	Row  int
	Coff [AMXRows]int
}

// AMXTiles is a list of tiles checked once, with the furthest byte and
// float each prefix of it reaches, so that a call checks its bounds in
// constant time.
type AMXTiles struct {
	tiles             []amxTile
	perImage          int   // tiles of one image (Tiles' lists; 0: not by image)
	maxRow, maxWriter []int // over tiles[:i+1]: the largest Row and Coff
	// rowStride is the spacing of every tile's output rows when it is one
	// for all of them and no row is dropped (Coff[r] = Coff[0] +
	// r*rowStride), else 0.
	rowStride int
}

// Tiles lays out the tiles of images h x w images in padded NHWC buffers
// of pp pixels an image (the byte buffer read, the float buffers
// written; the convolution's channel stride and padded width): per
// image, 16 consecutive padded pixels from its first real one to its
// last, the rows on padding columns dropped (PixelTiles).
func (c *Conv3AMX) Tiles(h, w, pp, images int) *AMXTiles {
	return PixelTiles(h, w, c.wp, pp, images, c.cs, c.cs)
}

// newAMXTiles checks the tiles' offsets (Row >= 0, Coff >= -1) and
// records their extents and row spacing; it keeps the slice.
func newAMXTiles(tiles []amxTile) (*AMXTiles, error) {
	t := &AMXTiles{tiles: tiles, maxRow: make([]int, len(tiles)), maxWriter: make([]int, len(tiles))}
	row, wr := 0, -1
	if len(tiles) > 0 {
		t.rowStride = tiles[0].Coff[1] - tiles[0].Coff[0]
	}
	for i, tl := range tiles {
		if tl.Row < 0 {
			return nil, fmt.Errorf("gemm: AMX tile %d starts at byte %d", i, tl.Row)
		}
		row = max(row, tl.Row)
		for r, o := range tl.Coff {
			if o < -1 {
				return nil, fmt.Errorf("gemm: AMX tile %d row %d writes at %d", i, r, o)
			}
			if o < 0 || o != tl.Coff[0]+r*t.rowStride {
				t.rowStride = 0
			}
			wr = max(wr, o)
		}
		t.maxRow[i], t.maxWriter[i] = row, wr
	}
	if t.rowStride <= 0 {
		t.rowStride = 0
	}
	return t, nil
}

// PixelTiles lays out tiles of 16 consecutive padded pixels over images
// h x w images in padded NHWC buffers of pp pixels an image and padded
// width wp, from each image's first real pixel to its last: Row is the
// byte offset (rowBytes a pixel) of the pixel up and left of the row's
// output pixel (the first tap of a 3x3 patch), Coff the output pixel's
// float index (outStride floats a pixel), -1 on the padding columns.
func PixelTiles(h, w, wp, pp, images, rowBytes, outStride int) *AMXTiles {
	span := (h-1)*wp + w // padded pixels from the first real one to the last
	var tiles []amxTile
	for b := range images {
		for p0 := 0; p0 < span; p0 += AMXRows {
			t := amxTile{Row: (b*pp + p0) * rowBytes}
			for r := range AMXRows {
				y, x := (p0+r)/wp, (p0+r)%wp
				t.Coff[r] = -1
				if x < w && y < h {
					t.Coff[r] = (b*pp + (y+1)*wp + x + 1) * outStride
				}
			}
			tiles = append(tiles, t)
		}
	}
	t, err := newAMXTiles(tiles)
	if err != nil {
		panic(err) // offsets from non-negative sizes are never negative
	}
	t.perImage = (span + AMXRows - 1) / AMXRows
	return t
}

// NewAMXTiles makes a tile list from each tile's Row (bytes) and the
// float offsets of its 16 output rows (-1 for a row to drop).
func NewAMXTiles(rows []int, coff [][AMXRows]int) (*AMXTiles, error) {
	if len(rows) != len(coff) {
		return nil, fmt.Errorf("gemm: %d tile rows and %d output lists", len(rows), len(coff))
	}
	tiles := make([]amxTile, len(rows))
	for i := range rows {
		tiles[i] = amxTile{Row: rows[i], Coff: coff[i]}
	}
	return newAMXTiles(tiles)
}

// Len is the number of tiles.
func (t *AMXTiles) Len() int { return len(t.tiles) }

// PerImage is the number of tiles of one image in a list from Tiles.
func (t *AMXTiles) PerImage() int { return t.perImage }

// Run computes the first n tiles into out (ReLU'd; res added first when
// not nil). sum is scratch of AMXRows*cs int32s. The bounds are checked
// before the assembly runs; an out-of-range one panics, a caller's bug.
func (c *Conv3AMX) Run(a []uint8, tiles *AMXTiles, n int, sum []int32, out, res []float32) {
	if n == 0 {
		return
	}
	c.check(a, tiles, n, sum, out, res)
	ts := tiles.tiles[:n]
	if hasAMX() {
		c.runAsm(a, ts, sum, out, res)
		return
	}
	c.runGo(a, ts, out, res)
}

func (c *Conv3AMX) check(a []uint8, tiles *AMXTiles, n int, sum []int32, out, res []float32) {
	if n < 0 || n > tiles.Len() {
		panic(fmt.Sprintf("gemm: %d AMX tiles of %d", n, tiles.Len()))
	}
	if len(sum) < AMXRows*c.cs {
		panic(fmt.Sprintf("gemm: AMX scratch of %d sums, want %d", len(sum), AMXRows*c.cs))
	}
	if end := tiles.maxRow[n-1] + (AMXRows-1)*c.cs + c.taps[8] + c.cs; end > len(a) {
		panic(fmt.Sprintf("gemm: AMX tiles read to byte %d of %d", end, len(a)))
	}
	if end := tiles.maxWriter[n-1] + c.cs; end > len(out) || (res != nil && end > len(res)) {
		panic(fmt.Sprintf("gemm: AMX tiles write to %d of %d (residual %d)", end, len(out), len(res)))
	}
}

// runGo is Run in plain loops: the assembly's twin.
func (c *Conv3AMX) runGo(a []uint8, tiles []amxTile, out, res []float32) {
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
