package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The AMX convolution agrees with its plain-loop twin and with the
// convolution's definition, on every channel stride it takes, with and
// without a residual; dropped rows and the padding of C stay untouched.
func TestConv3AMXMatchesDefinition(t *testing.T) {
	if !hasAMX() {
		t.Log("no AMX here (or -tags noasm, or TABULA_ISA below amx): only the Go twin is checked")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	const h, w, batch = 10, 9, 3
	wp, pp := w+2, (h+2)*(w+2)
	for _, cs := range []int{16, 32, 48} {
		for _, withRes := range []bool{false, true} {
			// A padded NHWC byte buffer with zero padding and slack past the
			// last image for the last tile's dropped rows.
			a := make([]uint8, (batch*pp+AMXRows+2*wp+2)*cs)
			for b := range batch {
				for y := range h {
					for x := range w {
						px := a[(b*pp+(y+1)*wp+x+1)*cs:][:cs]
						for i := range px {
							px[i] = uint8(rng.IntN(256))
						}
					}
				}
			}
			wt := make([]int8, cs*9*cs) // [o][k]
			for i := range wt {
				wt[i] = int8(rng.IntN(256) - 128)
			}
			scale, bias := make([]float32, cs), make([]float32, cs)
			for o := range cs {
				scale[o], bias[o] = float32(rng.Float64()*1e-4), float32(rng.NormFloat64())
			}
			c, err := NewConv3AMX(cs, wp, func(o, k int) int8 { return wt[o*9*cs+k] }, scale, bias)
			if err != nil {
				t.Fatal(err)
			}
			plan := c.Tiles(h, w, pp, batch)
			if plan.Len() != batch*plan.PerImage() || plan.PerImage() != ((h-1)*wp+w+AMXRows-1)/AMXRows {
				t.Fatalf("cs %d: %d tiles, %d an image, for %d images", cs, plan.Len(), plan.PerImage(), batch)
			}
			var res []float32
			if withRes {
				res = make([]float32, batch*pp*cs)
				for i := range res {
					res[i] = float32(rng.NormFloat64())
				}
			}
			const untouched = -7
			got, twin := make([]float32, batch*pp*cs), make([]float32, batch*pp*cs)
			for i := range got {
				got[i], twin[i] = untouched, untouched
			}
			c.Run(a, plan, plan.Len(), make([]int32, AMXRows*cs), got, res)
			c.runGo(a, plan.tiles, twin, res)
			for b := range batch {
				for y := -1; y <= h; y++ {
					for x := -1; x <= w; x++ {
						q := b*pp + (y+1)*wp + x + 1
						inside := y >= 0 && y < h && x >= 0 && x < w
						for o := range cs {
							g, tw := got[q*cs+o], twin[q*cs+o]
							if !inside {
								if g != untouched || tw != untouched {
									t.Fatalf("cs %d: padding pixel (%d,%d) channel %d written: %v, twin %v", cs, y, x, o, g, tw)
								}
								continue
							}
							var s int32
							for ky := range 3 {
								for kx := range 3 {
									px := a[(b*pp+(y+ky)*wp+x+kx)*cs:][:cs]
									for ci, v := range px {
										s += int32(v) * int32(wt[o*9*cs+(ky*3+kx)*cs+ci])
									}
								}
							}
							want := bias[o] + scale[o]*float32(s)
							if res != nil {
								want += res[q*cs+o]
							}
							want = max(want, 0)
							tol := 1e-5 * (1 + math.Abs(float64(want)))
							if math.Abs(float64(g-want)) > tol || math.Abs(float64(tw-want)) > tol {
								t.Fatalf("cs %d res %v: pixel (%d,%d) of image %d channel %d: %v, twin %v, definition %v", cs, withRes, y, x, b, o, g, tw, want)
							}
						}
					}
				}
			}
		}
	}
}

// Channel strides the tiles cannot take are refused with a reason.
func TestConv3AMXRefuses(t *testing.T) {
	for _, cs := range []int{0, 8, 24, 64} {
		if _, err := NewConv3AMX(cs, 11, func(o, k int) int8 { return 0 }, make([]float32, 64), make([]float32, 64)); err == nil {
			t.Errorf("channel stride %d accepted", cs)
		}
	}
}

// BenchmarkConv3AMX runs one tower convolution of 32 Xiangqi boards (48
// channels) on AMX tiles and on the 8-bit tile kernel, in GMAC/s of the
// real pixels.
func BenchmarkConv3AMX(b *testing.B) {
	const h, w, batch, cs = 10, 9, 32, 48
	wp, pp := w+2, (h+2)*(w+2)
	a := make([]uint8, (batch*pp+AMXRows+2*wp+2)*cs)
	for i := range a {
		a[i] = uint8(i * 7)
	}
	ones := make([]float32, cs)
	c, err := NewConv3AMX(cs, wp, func(o, k int) int8 { return int8(o - k) }, ones, ones)
	if err != nil {
		b.Fatal(err)
	}
	plan := c.Tiles(h, w, pp, batch)
	var aoff, coff []int
	for bi := range batch {
		for q := range h * w {
			px := bi*pp + (q/w+1)*wp + q%w + 1
			aoff, coff = append(aoff, (px-wp-1)*cs), append(coff, px*cs)
		}
	}
	for len(aoff)%MR != 0 {
		aoff, coff = append(aoff, aoff[0]), append(coff, coff[0])
	}
	out, sum := make([]float32, batch*pp*cs), make([]int32, AMXRows*cs)
	macs := float64(batch * h * w * 9 * cs * cs)
	b.Run("amx", func(b *testing.B) {
		if !hasAMX() {
			b.Skip("no AMX")
		}
		for b.Loop() {
			c.Run(a, plan, plan.Len(), sum, out, nil)
		}
		b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
	})
	k := Kernel8For(cs)
	wk := make([]int8, 9*cs*k.NR*(cs/k.NR))
	t := &Tile8{A: a, NSeg: 3, SegLen: 3 * cs, SegStride: wp * cs, Scale: ones, Bias: ones, C: out, ReLU: true}
	b.Run(k.Name, func(b *testing.B) {
		for b.Loop() {
			for j := 0; j < cs/k.NR; j++ {
				t.W = wk[j*9*cs*k.NR:]
				for r := 0; r < len(aoff); r += MR {
					t.Aoff, t.Coff = aoff[r:r+MR], coff[r:r+MR]
					k.Run(t)
				}
			}
		}
		b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
	})
}

// Tiles that start before the buffer or write before C are refused;
// reads and writes past the end panic before the assembly runs.
func TestAMXTilesBounds(t *testing.T) {
	if _, err := newAMXTiles([]amxTile{{Row: -1}}); err == nil {
		t.Error("a tile at byte -1 accepted")
	}
	bad := amxTile{}
	bad.Coff[3] = -2
	if _, err := newAMXTiles([]amxTile{bad}); err == nil {
		t.Error("a row writing at -2 accepted")
	}
	ones := make([]float32, 16)
	c, err := NewConv3AMX(16, 5, func(o, k int) int8 { return 1 }, ones, ones)
	if err != nil {
		t.Fatal(err)
	}
	var ok amxTile
	for r := range ok.Coff {
		ok.Coff[r] = r * 16
	}
	plan, err := newAMXTiles([]amxTile{ok})
	if err != nil {
		t.Fatal(err)
	}
	need := 15*16 + (2*5+2)*16 + 16
	for _, c2 := range []struct {
		name   string
		a, out int
		n      int
		panics bool
	}{{"fits", need, 16 * 16, 1, false}, {"reads past A", need - 1, 16 * 16, 1, true}, {"writes past C", need, 16*16 - 1, 1, true}, {"more tiles than planned", need, 16 * 16, 2, true}} {
		func() {
			defer func() {
				if p := recover(); (p != nil) != c2.panics {
					t.Errorf("%s: panic %v", c2.name, p)
				}
			}()
			c.Run(make([]uint8, c2.a), plan, c2.n, make([]int32, 16*16), make([]float32, c2.out), nil)
		}()
	}
}
