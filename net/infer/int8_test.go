package infer

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/checkpoints"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/gemm"
)

// realPlanes encodes n positions of random games of the spec's game (in
// the spec's encoding).
func realPlanes(t testing.TB, s net.Spec, n int, seed uint64) []float32 {
	t.Helper()
	g, err := game.Lookup(s.Game)
	if err != nil {
		t.Fatal(err)
	}
	if g, err = g.WithEncoder(s.EncoderVersion); err != nil {
		t.Fatal(err)
	}
	start, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := s.Channels * s.Height * s.Width
	out := make([]float32, 0, n*in)
	for len(out) < n*in {
		for _, p := range gametest.RandomPositions(start, 20, 60, seed) {
			if len(out) == n*in {
				break
			}
			buf := make([]float32, in)
			g.Encoder.Encode(p, buf)
			out = append(out, buf...)
		}
		seed++
	}
	return out
}

// softmax of a row of logits.
func softmax(l []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range l {
		m = max(m, float64(v))
	}
	p := make([]float64, len(l))
	var sum float64
	for i, v := range l {
		p[i] = math.Exp(float64(v) - m)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

// The 8-bit tower agrees with fp32 on positions of each game's play
// (calibrated on other positions of its play): the policy's total
// variation distance and the value's difference stay within stated
// bounds, and the most probable move is the same on most positions.
func TestInt8AgreesWithFP32(t *testing.T) {
	for _, name := range presets {
		s := presetSpec(t, name)
		p, err := net.NewParams(s, 3) // He initialisation, as a run starts
		if err != nil {
			t.Fatal(err)
		}
		agreement(t, p, 96, untrained)
		agreement(t, asWDL(t, p, 4), 96, untrained)
	}
}

// tolerance is the agreement the 8-bit tower must keep with fp32: the
// mean total variation distance of the policy, the mean absolute
// difference of the value, and the share of positions with the same most
// probable move (an untrained network's policy is nearly flat, so its
// top move is a near tie that any rounding may flip: not asked of it).
type tolerance struct {
	policyTV, value, sameTop float64
}

var (
	untrained = tolerance{policyTV: 0.03, value: 0.03}
	trained   = tolerance{policyTV: 0.015, value: 0.01, sameTop: 0.95}
	// The 7-bit activations of the AVX2 kernel stray further: on the
	// shipped networks (256 positions) a policy TV of 0.012 / 0.011 /
	// 0.029 (Connect Four / Catch the Lion / Xiangqi) against the 8-bit
	// tower's 0.008 / 0.007 / 0.017, the same top move on 89% of Xiangqi's
	// positions against 94%.
	untrained7 = tolerance{policyTV: 0.045, value: 0.04}
	trained7   = tolerance{policyTV: 0.04, value: 0.015, sameTop: 0.85}
)

// agreement compares NewInt8 with New on n positions of p's game.
func agreement(t *testing.T, p *net.Params, n int, tol tolerance) {
	t.Helper()
	agreementOn(t, p, n, tol, gemm.Kernel8For(p.Spec.Filters))
}

// agreementOn is agreement with the 8-bit tower on the kernel k; a
// kernel of 7-bit activations is held to the 7-bit bounds.
func agreementOn(t *testing.T, p *net.Params, n int, tol tolerance, k gemm.Kernel8) {
	t.Helper()
	if t7, ok := map[tolerance]tolerance{untrained: untrained7, trained: trained7}[tol]; ok && k.MaxA < 255 {
		tol = t7
	}
	s := p.Spec
	n = n / 32 * 32
	ref, err := New(p, 32)
	if err != nil {
		t.Fatal(err)
	}
	q, err := newInt8(p, 32, realPlanes(t, s, 128, 100), 128, k)
	if err != nil {
		t.Fatal(err)
	}
	if q.Precision() == "fp32" {
		t.Fatal("NewInt8 made an fp32 net")
	}
	planes := realPlanes(t, s, n, 900)
	in := s.Channels * s.Height * s.Width
	var tvMax, tvSum, dvMax, dvSum, dwSum float64
	same := 0
	for lo := 0; lo < n; lo += 32 {
		pw, vw := make([]float32, 32*s.Actions), make([]float32, 32)
		pg, vg := make([]float32, 32*s.Actions), make([]float32, 32)
		var ww, wg []float32
		if s.WDLHead() {
			ww, wg = make([]float32, 3*32), make([]float32, 3*32)
		}
		if err := ref.ForwardWDL(planes[lo*in:(lo+32)*in], 32, pw, vw, ww); err != nil {
			t.Fatal(err)
		}
		if err := q.ForwardWDL(planes[lo*in:(lo+32)*in], 32, pg, vg, wg); err != nil {
			t.Fatal(err)
		}
		// The WDL probabilities' total variation, bound as the value's
		// difference is (|dW - dL| <= 2 TV).
		for b := range len(ww) / 3 {
			var tv float64
			for k := range 3 {
				tv += math.Abs(float64(ww[3*b+k]-wg[3*b+k])) / 2
			}
			dwSum += tv
		}
		for b := range 32 {
			a, c := softmax(pw[b*s.Actions:(b+1)*s.Actions]), softmax(pg[b*s.Actions:(b+1)*s.Actions])
			var tv float64
			best, bestQ := 0, 0
			for i := range a {
				tv += math.Abs(a[i]-c[i]) / 2
				if a[i] > a[best] {
					best = i
				}
				if c[i] > c[bestQ] {
					bestQ = i
				}
			}
			tvMax, tvSum = max(tvMax, tv), tvSum+tv
			if best == bestQ {
				same++
			}
			dv := math.Abs(float64(vw[b] - vg[b]))
			dvMax, dvSum = max(dvMax, dv), dvSum+dv
		}
	}
	t.Logf("%s (%s, value head %q): policy TV mean %.4f max %.4f, value |diff| mean %.4f max %.4f, WDL TV mean %.4f, same top move %d/%d",
		s.Game, q.Precision(), s.ValueHead, tvSum/float64(n), tvMax, dvSum/float64(n), dvMax, dwSum/float64(n), same, n)
	if dwSum/float64(n) > tol.value {
		t.Errorf("%s: the 8-bit tower's WDL probabilities stray: TV mean %.4f (bound %v)", s.Game, dwSum/float64(n), tol.value)
	}
	if tvSum/float64(n) > tol.policyTV || dvSum/float64(n) > tol.value || float64(same) < tol.sameTop*float64(n) {
		t.Errorf("%s: the 8-bit tower strays: policy TV mean %.4f (bound %v), value |diff| mean %.4f (%v), same top move %d/%d (%v)",
			s.Game, tvSum/float64(n), tol.policyTV, dvSum/float64(n), tol.value, same, n, tol.sameTop)
	}
}

// A position's 8-bit evaluation does not depend on the batch it comes
// in (the activation scales are fixed), and clones and Parallel give the
// same results bit for bit.
func TestInt8BatchIndependent(t *testing.T) {
	s := presetSpec(t, "xiangqi")
	p := liveParams(t, s, 5)
	q, err := NewInt8(p, 16, realPlanes(t, s, 32, 1), 32)
	if err != nil {
		t.Fatal(err)
	}
	planes := realPlanes(t, s, 16, 77)
	in := s.Channels * s.Height * s.Width
	pol, val := make([]float32, 16*s.Actions), make([]float32, 16)
	if err := q.Forward(planes, 16, pol, val); err != nil {
		t.Fatal(err)
	}
	one, v1 := make([]float32, s.Actions), make([]float32, 1)
	c := q.Clone()
	for b := range 16 {
		if err := c.Forward(planes[b*in:(b+1)*in], 1, one, v1); err != nil {
			t.Fatal(err)
		}
		if v1[0] != val[b] || one[7] != pol[b*s.Actions+7] {
			t.Fatalf("position %d alone: value %v, in the batch %v", b, v1[0], val[b])
		}
	}
	pl := ParallelOf(q.Clone(), 2)
	defer pl.Close()
	pp, pv := make([]float32, 16*s.Actions), make([]float32, 16)
	if err := pl.Forward(planes, 16, pp, pv); err != nil {
		t.Fatal(err)
	}
	for i := range pv {
		if pv[i] != val[i] {
			t.Fatalf("Parallel: value %d is %v, one Net %v", i, pv[i], val[i])
		}
	}
}

// Planes outside [0, 1], which no encoder here makes, cannot be bytes of
// the 8-bit input convolution: such a batch takes the fp32 one, bit for
// bit what a net without the 8-bit input convolution computes (read as
// bytes, a 3 would be 1 and a -1 would be 0); the game's own planes take
// the bytes.
func TestInt8InputOutsideUnit(t *testing.T) {
	s := presetSpec(t, "connect4")
	p := liveParams(t, s, 5)
	calib := realPlanes(t, s, 32, 1)
	q, err := NewInt8(p, 8, calib, 32)
	if err != nil {
		t.Fatal(err)
	}
	if q.t8.in == nil {
		t.Fatal("Connect Four's planes did not make an 8-bit input convolution")
	}
	fpIn, err := NewInt8(p, 8, calib, 32)
	if err != nil {
		t.Fatal(err)
	}
	w := *fpIn.weights
	t8 := *w.t8
	t8.in, w.t8 = nil, &t8
	fpIn = w.buffers()
	forward := func(n *Net, planes []float32) []float32 {
		pol, val := make([]float32, 8*s.Actions), make([]float32, 8)
		if err := n.Forward(planes, 8, pol, val); err != nil {
			t.Fatal(err)
		}
		return append(pol, val...)
	}
	planes := realPlanes(t, s, 8, 77)
	if slices.Equal(forward(q, planes), forward(fpIn, planes)) {
		t.Error("the game's own planes did not take the 8-bit input convolution")
	}
	for _, f := range []float32{3, -1, float32(math.NaN())} {
		odd := slices.Clone(planes)
		odd[len(odd)/2] = f
		a, b := forward(q, odd), forward(fpIn, odd)
		if !slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) }) {
			t.Errorf("a plane value %v: the 8-bit net differs from the one with the fp32 input convolution", f)
		}
	}
}

// Bad calibration input is refused with the reason.
func TestInt8Errors(t *testing.T) {
	s := presetSpec(t, "connect4")
	p := liveParams(t, s, 1)
	if _, err := NewInt8(p, 8, make([]float32, 3), 1); err == nil {
		t.Error("calibration planes of the wrong length accepted")
	}
	if _, err := NewInt8(p, 8, nil, 0); err == nil {
		t.Error("no calibration positions accepted")
	}
}

// TestInt8Checkpoint measures the 8-bit tower on a trained network: set
// TABULA_INT8_CHECKPOINT to a checkpoint file (skipped otherwise).
func TestInt8Checkpoint(t *testing.T) {
	path := os.Getenv("TABULA_INT8_CHECKPOINT")
	if path == "" {
		t.Skip("set TABULA_INT8_CHECKPOINT to a checkpoint file to measure a trained network")
	}
	c, err := checkpoints.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	agreement(t, c.Params, 256, trained)
}

// BenchmarkInt8 compares the 8-bit tower with fp32 on the presets at the
// self-play batch (32), one Net, in positions a second.
func BenchmarkInt8(b *testing.B) {
	const batch = 32
	for _, name := range presets {
		s := presetSpec(b, name)
		p, err := net.NewParams(s, 1)
		if err != nil {
			b.Fatal(err)
		}
		f32, err := New(p, batch)
		if err != nil {
			b.Fatal(err)
		}
		i8, err := NewInt8(p, batch, realPlanes(b, s, 64, 1), 64)
		if err != nil {
			b.Fatal(err)
		}
		planes := realPlanes(b, s, batch, 2)
		pol, val := make([]float32, batch*s.Actions), make([]float32, batch)
		for _, n := range []*Net{f32, i8} {
			b.Run(name+"/"+strings.Fields(n.Precision())[0], func(b *testing.B) {
				for b.Loop() {
					if err := n.Forward(planes, batch, pol, val); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "pos/s")
			})
		}
	}
}

// NewParallelPrecision builds the tower it is asked for, calibrated as
// NewPrecision calibrates it on the network's own game (the same outputs
// bit for bit), and names what it cannot build.
func TestNewParallelPrecision(t *testing.T) {
	s := presetSpec(t, "connect4")
	p := liveParams(t, s, 1)
	g, err := game.Lookup(s.Game)
	if err != nil {
		t.Fatal(err)
	}
	start, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	const batch = 8
	planes := realPlanes(t, s, batch, 5)
	for _, prec := range append([]string{""}, Precisions...) {
		want, err := NewPrecision(p, batch, prec, start, g.Encoder)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewParallelPrecision(p, batch, 2, prec)
		if err != nil {
			t.Fatal(err)
		}
		if got.first.Precision() != want.Precision() {
			t.Errorf("precision %q: built %s, want %s", prec, got.first.Precision(), want.Precision())
		}
		wp, wv := make([]float32, batch*s.Actions), make([]float32, batch)
		gp, gv := make([]float32, batch*s.Actions), make([]float32, batch)
		if err := want.Forward(planes, batch, wp, wv); err != nil {
			t.Fatal(err)
		}
		if err := got.Forward(planes, batch, gp, gv); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(wp, gp) || !slices.Equal(wv, gv) {
			t.Errorf("precision %q: outputs differ from NewPrecision's", prec)
		}
		got.Close()
	}
	if _, err := NewParallelPrecision(p, batch, 1, "fp8"); err == nil || !strings.Contains(err.Error(), `"fp8"`) {
		t.Errorf("precision fp8: err %v, want one naming it", err)
	}
	q := *p
	q.Spec.Game = "chess960"
	if _, err := NewParallelPrecision(&q, batch, 1, "int8"); err == nil || !strings.Contains(err.Error(), "chess960") {
		t.Errorf("unknown game: err %v, want one naming it", err)
	}
}

// On AMX tiles the 8-bit tower computes the same sums as on the 8-bit
// tile kernels: the outputs agree up to the epilogue's rounding (and a
// byte of the next layer's input that rounding may tip), for every preset.
func TestInt8AMXMatchesTiles(t *testing.T) {
	if !gemm.HasAMX() {
		t.Skip("no AMX-INT8 on this CPU (or -tags noasm, or TABULA_ISA below amx)")
	}
	for _, name := range presets {
		s := presetSpec(t, name)
		p := liveParams(t, s, 3)
		const batch = 24
		onAMX, err := NewInt8(p, batch, realPlanes(t, s, 64, 1), 64)
		if err != nil {
			t.Fatal(err)
		}
		if onAMX.t8.amx == nil {
			t.Errorf("%s: channel stride %d, and the tower is not on AMX", name, onAMX.fp)
			continue
		}
		wt := *onAMX.weights
		t8 := *wt.t8
		t8.amx = nil
		wt.t8 = &t8
		onTiles := wt.buffers()
		planes := realPlanes(t, s, batch, 5)
		for _, b := range []int{batch, 1, 7} {
			pa, va := make([]float32, b*s.Actions), make([]float32, b)
			pt, vt := make([]float32, b*s.Actions), make([]float32, b)
			in := planes[:b*s.Channels*s.Height*s.Width]
			if err := onAMX.Forward(in, b, pa, va); err != nil {
				t.Fatal(err)
			}
			if err := onTiles.Forward(in, b, pt, vt); err != nil {
				t.Fatal(err)
			}
			for i := range va {
				if d := math.Abs(float64(va[i] - vt[i])); d > 2e-3 {
					t.Errorf("%s batch %d: value %d is %v on AMX, %v on %s", name, b, i, va[i], vt[i], onTiles.Precision())
				}
			}
			for i := range pa {
				if d := math.Abs(float64(pa[i] - pt[i])); d > 2e-3*(1+math.Abs(float64(pt[i]))) {
					t.Fatalf("%s batch %d: logit %d is %v on AMX, %v on %s", name, b, i, pa[i], pt[i], onTiles.Precision())
				}
			}
		}
		if got := onAMX.Precision(); got != "int8 (amx)" {
			t.Errorf("%s: precision %q", name, got)
		}
	}
}

// kernel7Go is the pure-Go 8-bit kernel held to the AVX2 kernel's 7-bit
// activations (MaxA 127): the same bytes and scales, so the same sums.
func kernel7Go() gemm.Kernel8 {
	k := gemm.Kernel8Go(16)
	k.Name, k.MaxA = "go7x16", 127
	return k
}

// The tower on the AVX2 kernel (7-bit activations, where the CPU has no
// VNNI) agrees with fp32 within its own bounds (untrained7, trained7), on
// every preset and on the shipped trained networks, and computes what the pure-Go twin does
// on the same 7-bit bytes (up to the epilogue's fused rounding, and a byte
// of the next layer's input that rounding may tip). Runs on any AVX2
// CPU, VNNI or not; TABULA_ISA=avx2 makes NewInt8 itself choose it.
func TestInt8AVX2Tower(t *testing.T) {
	var k gemm.Kernel8
	for _, c := range gemm.Kernels8() {
		if c.MaxA == 127 {
			k = c
		}
	}
	if k.Run == nil {
		t.Skip("no AVX2 (or -tags noasm): the 7-bit kernel is not here")
	}
	for _, name := range presets {
		s := presetSpec(t, name)
		p, err := net.NewParams(s, 3)
		if err != nil {
			t.Fatal(err)
		}
		agreementOn(t, p, 96, untrained7, k)
		matchTwin7(t, p, k)
	}
	for _, name := range []string{"connect4", "lion", "xiangqi"} {
		c, err := checkpoints.Load("../../models/" + name + ".ckpt")
		if err != nil {
			t.Fatal(err)
		}
		agreementOn(t, c.Params, 256, trained7, k)
	}
}

// matchTwin7 compares p's tower on the 7-bit kernel k with the pure-Go
// twin on 7-bit bytes.
func matchTwin7(t *testing.T, p *net.Params, k gemm.Kernel8) {
	t.Helper()
	s := p.Spec
	const batch = 16
	calib := realPlanes(t, s, 64, 1)
	onK, err := newInt8(p, batch, calib, 64, k)
	if err != nil {
		t.Fatal(err)
	}
	onGo, err := newInt8(p, batch, calib, 64, kernel7Go())
	if err != nil {
		t.Fatal(err)
	}
	if onK.t8.amx != nil {
		// AMX tiles take the layers here: there is no 7-bit kernel's
		// tower to hold to the twin, but the agreement checks of the
		// caller go on (a Skip would end them too).
		t.Logf("%s: the tower runs on AMX tiles here, not %s", s.Game, k.Name)
		return
	}
	if onK.t8.kern.Name != k.Name {
		t.Fatalf("%s: the tower runs on %s, not %s (channel stride %d)", s.Game, onK.t8.kern.Name, k.Name, onK.fp)
	}
	planes := realPlanes(t, s, batch, 5)
	pk, vk := make([]float32, batch*s.Actions), make([]float32, batch)
	pg, vg := make([]float32, batch*s.Actions), make([]float32, batch)
	if err := onK.Forward(planes, batch, pk, vk); err != nil {
		t.Fatal(err)
	}
	if err := onGo.Forward(planes, batch, pg, vg); err != nil {
		t.Fatal(err)
	}
	for i := range vk {
		if d := math.Abs(float64(vk[i] - vg[i])); d > 2e-3 {
			t.Errorf("%s: value %d is %v on %s, %v on the twin", s.Game, i, vk[i], k.Name, vg[i])
		}
	}
	for i := range pk {
		if d := math.Abs(float64(pk[i] - pg[i])); d > 2e-3*(1+math.Abs(float64(pg[i]))) {
			t.Fatalf("%s: logit %d is %v on %s, %v on the twin", s.Game, i, pk[i], k.Name, pg[i])
		}
	}
}

// Under TABULA_ISA=avx2 (or on an AVX2 CPU without VNNI) NewInt8 builds
// the tower on the 7-bit AVX2 kernel: its activation bytes never pass
// 127, a plane's 1 is the byte 126 (254 on the other kernels).
func TestInt8ChoosesKernel(t *testing.T) {
	s := presetSpec(t, "xiangqi")
	p := liveParams(t, s, 5)
	q, err := NewInt8(p, 8, realPlanes(t, s, 32, 1), 32)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s, Resolve(auto) = %s", q.Precision(), Resolve(Auto))
	k := gemm.Kernel8For(s.Filters)
	if q.t8.amx == nil && q.t8.kern.Name != k.Name {
		t.Errorf("the tower runs on %s, Kernel8For says %s", q.t8.kern.Name, k.Name)
	}
	unit := map[uint8]uint8{255: 254, 127: 126}[k.MaxA]
	if unit == 0 {
		t.Fatalf("Kernel8For gives %s, of MaxA %d", k.Name, k.MaxA)
	}
	planes := realPlanes(t, s, 8, 3)
	pol, val := make([]float32, 8*s.Actions), make([]float32, 8)
	if err := q.Forward(planes, 8, pol, val); err != nil {
		t.Fatal(err)
	}
	for i, b := range q.x8 {
		if b > q.t8.kern.MaxA {
			t.Fatalf("activation byte %d is %d, past the kernel's %d", i, b, q.t8.kern.MaxA)
		}
	}
	// Xiangqi's piece planes hold 1s and every plane lies in [0, 1]: the
	// largest input byte is a plane's 1.
	if top := slices.Max(q.planes8); top != unit {
		t.Errorf("the largest input byte is %d, want %d for %s (MaxA %d)", top, unit, k.Name, k.MaxA)
	}
}

// auto is int8 exactly where NewInt8's kernel is an 8-bit assembly one
// (VNNI): not on the pure-Go twin, nor on the AVX2 kernel's 7 bits.
func TestResolve(t *testing.T) {
	k := gemm.Kernel8For(presetSpec(t, "xiangqi").Filters)
	want := "fp32"
	if k.MaxA == 255 && k.Name != gemm.Kernel8Go(16).Name {
		want = "int8"
	}
	if got := Resolve(Auto); got != want {
		t.Errorf("Resolve(auto) = %s with the kernel %s, want %s", got, k.Name, want)
	}
	for _, p := range []string{"", "fp32", "int8", "fp16"} {
		if got := Resolve(p); got != p {
			t.Errorf("Resolve(%q) = %q", p, got)
		}
	}
}
