package nnuetrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/nnue"
)

// refLoss is the mean loss of samples under the weights w (laid out as
// p), computed in float64 straight from the definitions: the reference
// the trainer's gradient is checked against by finite differences.
func refLoss(p *params, w []float64, samples []Sample, lambda, k float64) float64 {
	l1, l2, l3 := p.L1, p.L2, p.L3
	clamp := func(x float64) float64 { return min(max(x, 0), 1) }
	var sum float64
	for i := range samples {
		s := &samples[i]
		us, _ := features(nil, s, game.Color(s.Side))
		them, _ := features(nil, s, game.Color(s.Side^1))
		x := make([]float64, 2*l1)
		for h, fs := range [2][]uint16{us, them} {
			a := x[h*l1 : h*l1+l1]
			copy(a, w[p.ftb:p.ftb+l1])
			for _, f := range fs {
				rows := []int{p.ft + int(f)*l1}
				if p.factor {
					ps, pc := virtualRows(int(f))
					rows = append(rows, p.vps+ps*l1, p.vp+pc*l1)
				}
				for _, r := range rows {
					for c := range a {
						a[c] += w[r+c]
					}
				}
			}
			for c := range a {
				a[c] = clamp(a[c])
			}
		}
		h1 := make([]float64, l2)
		for o := range l2 {
			a := w[p.b1+o]
			for i := range 2 * l1 {
				a += w[p.w1+o*2*l1+i] * x[i]
			}
			h1[o] = clamp(a)
		}
		y := w[p.b3]
		for j := range l3 {
			a := w[p.b2+j]
			for o := range l2 {
				a += w[p.w2+j*l2+o] * h1[o]
			}
			y += w[p.w3+j] * clamp(a)
		}
		pr := 1 / (1 + math.Exp(-y*nnue.OutputScale/k))
		t := lambda/(1+math.Exp(-float64(s.Score)/k)) + (1-lambda)*(float64(s.Result)+1)/2
		sum += (pr - t) * (pr - t)
	}
	return sum / float64(len(samples))
}

// The core correctness test: the hand-written backward pass (sparse first
// layer, clipped ReLUs, both losses, a batch split into parts and column
// blocks) against central finite differences of refLoss, on a tiny
// network, parameter by parameter in every tensor.
func TestGradientFiniteDifferences(t *testing.T) {
	samples := testSamples(t, 6, 11)[:300] // two parts of the forward-backward pass
	idx := make([]uint32, len(samples))
	for i := range idx {
		idx[i] = uint32(i)
	}
	for _, factor := range []bool{false, true} {
		t.Run(fmt.Sprintf("factorize=%v", factor), func(t *testing.T) {
			cfg := Config{Sizes: nnue.Sizes{L1: 64, L2: 4, L3: 3}, Batch: 512, LR: 1e-3, LRDecay: 1,
				Lambda: 0.6, K: 300, Factorize: factor, Seed: 5, Threads: 2}
			tr, err := New(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			// Some feature transformer rows large enough that accumulators
			// pass 1, so both clips are exercised; virtual rows not zero.
			for i := range tr.p.FTB(tr.p.w) {
				tr.p.FTB(tr.p.w)[i] += 0.3
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for i := tr.p.vps; i < tr.p.n; i++ {
				tr.p.w[i] = float32(rng.Float64()-0.5) * 0.05
			}
			tr.effStale = tr.p.factor
			tr.gradient(samples, idx)
			p := &tr.p
			w := make([]float64, p.n)
			for i, x := range p.w {
				w[i] = float64(x)
			}
			// The active rows: a gradient is checked in them; in the other
			// rows it must be exactly zero.
			active := map[int]bool{}
			for i := range samples {
				for c := range game.Color(2) {
					fs, _ := features(nil, &samples[i], c)
					for _, f := range fs {
						active[int(f)] = true
					}
				}
			}
			var picks []int
			var rows []int
			for f := range active {
				rows = append(rows, f)
			}
			for range 24 {
				f := rows[rng.IntN(len(rows))]
				picks = append(picks, p.ft+f*p.L1+rng.IntN(p.L1))
				if p.factor {
					ps, pc := virtualRows(f)
					picks = append(picks, p.vps+ps*p.L1+rng.IntN(p.L1), p.vp+pc*p.L1+rng.IntN(p.L1))
				}
			}
			for _, r := range [][2]int{{p.ftb, p.w1}, {p.w1, p.b1}, {p.b1, p.w2}, {p.w2, p.b2}, {p.b2, p.w3}, {p.w3, p.b3}, {p.b3, p.b3 + 1}} {
				for range min(12, r[1]-r[0]) {
					picks = append(picks, r[0]+rng.IntN(r[1]-r[0]))
				}
			}
			const eps = 1e-4
			checked, nonzero := 0, 0
			for _, i := range picks {
				f := func(d float64) float64 {
					old := w[i]
					w[i] = old + d
					l := refLoss(p, w, samples, cfg.Lambda, cfg.K)
					w[i] = old
					return l
				}
				l0, lp, lm := f(0), f(eps), f(-eps)
				right, left := (lp-l0)/eps, (l0-lm)/eps
				if math.Abs(right-left) > 1e-3*max(math.Abs(right), math.Abs(left))+1e-7 {
					continue // a clip's kink between the two points
				}
				num := (lp - lm) / (2 * eps)
				got := float64(tr.g[i])
				if math.Abs(got-num) > 2e-3*math.Abs(num)+1e-7 {
					t.Errorf("parameter %d (%s): gradient %g, finite differences %g", i, p.name(i), got, num)
				}
				checked++
				if num != 0 {
					nonzero++
				}
			}
			if checked < len(picks)*9/10 || nonzero < len(picks)/2 {
				t.Fatalf("checked %d of %d parameters, %d with a nonzero gradient", checked, len(picks), nonzero)
			}
			for f := range nnue.NumFeatures {
				if active[f] {
					continue
				}
				for _, g := range tr.g[p.ft+f*p.L1 : p.ft+(f+1)*p.L1] {
					if g != 0 {
						t.Fatalf("row %d of no position has gradient %g", f, g)
					}
				}
			}
		})
	}
}

// The trainer's forward pass is FloatNet.Forward's.
func TestForwardMatchesFloatNet(t *testing.T) {
	samples := testSamples(t, 2, 3)
	tr, err := New(Config{Sizes: nnue.DefaultSizes, Batch: 64, LR: 1e-3, LRDecay: 1, Lambda: 1, K: 400, Seed: 9, Threads: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	f := tr.Float()
	pt := &tr.parts[0]
	for i := range samples {
		s := &samples[i]
		us, _ := features(nil, s, game.Color(s.Side))
		them, _ := features(nil, s, game.Color(s.Side^1))
		got := tr.forward(pt.sc.acc, us, them, &pt.sc)
		want := f.Forward(us, them)
		if math.Abs(float64(got-want)) > 1e-4 {
			t.Fatalf("sample %d: forward %v, FloatNet %v", i, got, want)
		}
	}
}

// Quantisation-aware, the gradient is the one at the rounded dense
// weights (passed straight through to the float ones): exactly a plain
// trainer's whose dense weights are the rounded ones.
func TestQuantAwareGradient(t *testing.T) {
	samples := testSamples(t, 3, 12)[:200]
	idx := make([]uint32, len(samples))
	for i := range idx {
		idx[i] = uint32(i)
	}
	cfg := Config{Sizes: nnue.Sizes{L1: 64, L2: 8, L3: 4}, Batch: 256, LR: 1e-3, LRDecay: 1,
		Lambda: 1, K: 600, Factorize: true, QuantAware: true, Seed: 8, Threads: 2}
	qa, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer qa.Close()
	cfg.QuantAware = false
	plain, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	qa.refresh()
	p := &plain.p
	copy(p.W1(p.w), qa.dv.w1)
	copy(p.B1(p.w), qa.dv.b1)
	copy(p.W2(p.w), qa.dv.w2)
	copy(p.B2(p.w), qa.dv.b2)
	copy(p.W3(p.w), qa.dv.w3)
	rounded := 0
	for i, x := range qa.p.W1(qa.p.w) {
		if x != qa.dv.w1[i] {
			rounded++
		}
		if d := float64(x - qa.dv.w1[i]); d > 0.5/64 || d < -0.5/64 {
			t.Fatalf("W1[%d] %v rounded to %v", i, x, qa.dv.w1[i])
		}
	}
	if rounded == 0 {
		t.Fatal("no weight rounded")
	}
	qa.gradient(samples, idx)
	plain.gradient(samples, idx)
	for i := range qa.g {
		if math.Float32bits(qa.g[i]) != math.Float32bits(plain.g[i]) {
			t.Fatalf("%s value %d: gradient %v, at the rounded weights %v", p.name(i), i, qa.g[i], plain.g[i])
		}
	}
}
