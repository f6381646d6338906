package net

import "math"

// Reference computes the forward pass (inference mode: BN with running
// statistics) with plain loops: the slow, obviously correct twin that
// net/train's gorgonia model, the fast path and the ONNX export are
// checked against. planes holds n inputs [n][c][h][w]; it returns
// logits [n][actions] and values [n] (W - L with the WDL head).
func (p *Params) Reference(planes []float32, n int) (policy, value []float32) {
	policy, value, _ = p.ReferenceWDL(planes, n)
	return policy, value
}

// ReferenceWDL is Reference that also returns, for a network with the
// WDL head, the probabilities of a win, a draw and a loss [n][3] (nil
// without the head).
func (p *Params) ReferenceWDL(planes []float32, n int) (policy, value, wdl []float32) {
	s := p.Spec
	hw := s.Height * s.Width
	policy = make([]float32, n*s.Actions)
	value = make([]float32, n)
	if s.WDLHead() {
		wdl = make([]float32, 3*n)
	}
	for i := 0; i < n; i++ {
		x := planes[i*s.Channels*hw : (i+1)*s.Channels*hw]
		h := relu(p.Input.reference(x, s.Height, s.Width))
		for _, b := range p.Blocks {
			y := relu(b.A.reference(h, s.Height, s.Width))
			y = b.B.reference(y, s.Height, s.Width)
			for j := range y {
				y[j] += h[j]
			}
			h = relu(y)
		}
		f := relu(p.PolicyConv.reference(h, s.Height, s.Width))
		if s.FromToHead() {
			p.FromTo.reference(f, hw, policy[i*s.Actions:(i+1)*s.Actions])
		} else {
			copy(policy[i*s.Actions:], p.PolicyFC.reference(f))
		}
		v := relu(p.ValueFC1.reference(relu(p.ValueConv.reference(h, s.Height, s.Width))))
		out := p.ValueFC2.reference(v)
		if s.WDLHead() {
			value[i] = WDL(out, wdl[3*i:3*i+3])
		} else {
			value[i] = float32(math.Tanh(float64(out[0])))
		}
	}
	return policy, value, wdl
}

// WDL writes the softmax of a WDL head's three logits (win, draw, loss)
// into wdl and returns the value W - L; sums in float64, so that every
// forward pass turns logits into probabilities the same way.
func WDL(logits, wdl []float32) float32 {
	mx := float64(max(logits[0], logits[1], logits[2]))
	var e [3]float64
	sum := 0.0
	for k := range e {
		e[k] = math.Exp(float64(logits[k]) - mx)
		sum += e[k]
	}
	for k := range e {
		wdl[k] = float32(e[k] / sum)
	}
	return float32((e[0] - e[2]) / sum)
}

// reference applies convolution (zero padding k/2) and batch norm to one
// input [in][h][w].
func (c *ConvBN) reference(x []float32, h, w int) []float32 {
	out := make([]float32, c.Out*h*w)
	pad := c.K / 2
	for o := 0; o < c.Out; o++ {
		scale := c.Gamma[o] / float32(math.Sqrt(float64(c.Var[o])+BNEpsilon))
		for y := 0; y < h; y++ {
			for xx := 0; xx < w; xx++ {
				var sum float32
				for i := 0; i < c.In; i++ {
					for ky := 0; ky < c.K; ky++ {
						for kx := 0; kx < c.K; kx++ {
							yy, xs := y+ky-pad, xx+kx-pad
							if yy < 0 || yy >= h || xs < 0 || xs >= w {
								continue
							}
							sum += c.W[((o*c.In+i)*c.K+ky)*c.K+kx] * x[(i*h+yy)*w+xs]
						}
					}
				}
				out[(o*h+y)*w+xx] = (sum-c.Mean[o])*scale + c.Beta[o]
			}
		}
	}
	return out
}

func (d *Dense) reference(x []float32) []float32 {
	out := make([]float32, d.Out)
	for o := 0; o < d.Out; o++ {
		sum := d.B[o]
		for i := 0; i < d.In; i++ {
			sum += d.W[o*d.In+i] * x[i]
		}
		out[o] = sum
	}
	return out
}

// reference writes the logits of features f [C][hw] into out [hw*hw],
// each a sum of C*C products accumulated in float64.
func (ft *FromTo) reference(f []float32, hw int, out []float32) {
	c := ft.C
	for i := 0; i < hw; i++ {
		for j := 0; j < hw; j++ {
			sum := float64(ft.B[i*hw+j])
			for a := 0; a < c; a++ {
				for d := 0; d < c; d++ {
					sum += float64(f[a*hw+i]) * float64(ft.W[a*c+d]) * float64(f[d*hw+j])
				}
			}
			out[i*hw+j] = float32(sum)
		}
	}
}

func relu(x []float32) []float32 {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
	return x
}
