package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/net/gemm"

	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/net"
)

// tol is the agreement required with (*net.Params).Reference: an absolute
// error of 1e-4 for outputs up to 1 in magnitude, relative beyond that,
// i.e. |got-want| <= 1e-4 * max(1, |want|).
const tol = 1e-4

// randomParams returns parameters with every BN statistic and bias
// randomised, so that folding is exercised (fresh He init has unit gamma,
// zero beta and mean, unit variance and zero biases).
func randomParams(t testing.TB, s net.Spec, seed uint64) *net.Params {
	t.Helper()
	p, err := net.NewParams(s, seed)
	if err != nil {
		t.Fatal(err)
	}
	p.Randomize(seed)
	return p
}

// liveParams returns randomParams for the first seed from seed on whose
// outputs depend on the input and whose values are not saturated: with
// one or two head channels ReLU can zero a head for every input, and a
// deep net with random BN statistics can drive tanh to +-1; a comparison
// would then only test the biases, or nothing.
func liveParams(t testing.TB, s net.Spec, seed uint64) *net.Params {
	t.Helper()
	for i := uint64(0); i < 100; i++ {
		p := randomParams(t, s, seed+i)
		planes := randomPlanes(s, 4, 1)
		pol, val := p.Reference(planes, 4)
		live := !slices.Equal(pol[:s.Actions], pol[s.Actions:2*s.Actions]) && val[0] != val[1]
		for _, v := range val {
			live = live && math.Abs(float64(v)) < 0.98
		}
		if live {
			return p
		}
	}
	t.Fatalf("%s: no seed gave input-dependent outputs", s.Game)
	return nil
}

// randomPlanes returns n inputs: mostly 0/1 like encoder planes, with some
// fractional values (move counters and the like).
func randomPlanes(s net.Spec, n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float32, n*s.Channels*s.Height*s.Width)
	for i := range x {
		switch r := rng.Float64(); {
		case r < 0.3:
			x[i] = 1
		case r < 0.4:
			x[i] = float32(rng.Float64())
		}
	}
	return x
}

func presetSpec(t testing.TB, name string) net.Spec {
	t.Helper()
	g, err := game.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := configs.PresetSpec(g.Name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var presets = game.Names()

// oddSpecs cover shapes the presets do not: no blocks, one block, filter
// and head counts that are no multiple of any panel width, a board with
// fewer pixels than a tile has rows, and single-channel heads.
var oddSpecs = []net.Spec{
	{Game: "odd-1block", Channels: 3, Height: 5, Width: 4, Actions: 11, Blocks: 1, Filters: 20, PolicyChannels: 3, ValueChannels: 2, ValueHidden: 10},
	{Game: "odd-0blocks", Channels: 1, Height: 3, Width: 3, Actions: 9, Blocks: 0, Filters: 7, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 5},
	{Game: "odd-33filters", Channels: 5, Height: 4, Width: 7, Actions: 40, Blocks: 2, Filters: 33, PolicyChannels: 17, ValueChannels: 16, ValueHidden: 33},
	{Game: "odd-tiny", Channels: 2, Height: 2, Width: 2, Actions: 3, Blocks: 1, Filters: 5, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 1},
	{Game: "odd-1x1", Channels: 4, Height: 1, Width: 1, Actions: 2, Blocks: 2, Filters: 16, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 3},
	{Game: "odd-tall", Channels: 2, Height: 9, Width: 1, Actions: 9, Blocks: 1, Filters: 48, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 64},
	oddFromTo,
	oddWDL,
}

// oddWDL has the win/draw/loss value head, its hidden layer no multiple
// of any panel width.
var oddWDL = net.Spec{Game: "odd-wdl", Channels: 3, Height: 4, Width: 5, Actions: 13, Blocks: 1, Filters: 12,
	PolicyChannels: 2, ValueChannels: 3, ValueHidden: 7, ValueHead: net.ValueWDL}

// asWDL is p with the WDL value head in place of its scalar one: the
// same tower and policy, the last value layer three fresh He-initialised
// logits (a network drawn with the head from the start would draw its
// tower from a shifted random stream, another network altogether).
func asWDL(t testing.TB, p *net.Params, seed uint64) *net.Params {
	t.Helper()
	fresh, err := net.NewParams(withWDL(p.Spec), seed)
	if err != nil {
		t.Fatal(err)
	}
	w := *p
	w.Spec, w.ValueFC2 = fresh.Spec, fresh.ValueFC2
	return &w
}

// withWDL is s with the WDL value head.
func withWDL(s net.Spec) net.Spec {
	s.ValueHead = net.ValueWDL
	return s
}

// oddFromTo has the from-to policy head on a non-square board.
var oddFromTo = net.Spec{Game: "odd-fromto", Channels: 3, Height: 3, Width: 5, Actions: 225, Blocks: 1, Filters: 10,
	PolicyChannels: 5, ValueChannels: 2, ValueHidden: 4, PolicyHead: net.PolicyFromTo}

func allSpecs(t testing.TB) []net.Spec {
	var ss []net.Spec
	for _, name := range presets {
		ss = append(ss, presetSpec(t, name))
	}
	return append(ss, oddSpecs...)
}

// quickSpecs is allSpecs without the Xiangqi preset in -short mode (its
// reference pass dominates the run time, and it runs the same code as the
// smaller nets).
func quickSpecs(t testing.TB) []net.Spec {
	ss := allSpecs(t)
	if testing.Short() {
		return append(ss[:2:2], ss[3:]...)
	}
	return ss
}

// compare checks got against want within tol and returns the largest
// absolute error.
func compare(t *testing.T, what string, got, want []float32) float64 {
	t.Helper()
	return compareTol(t, what, got, want, tol)
}

// fromToTol is the policy tolerance of a from-to head on a preset-sized
// network: each logit is a sum of c*c products of two features and a
// weight that mostly cancel (random BN parameters make features of
// several units), so the float32 rounding of the tower's features
// reaches a few 1e-4 of a logit (4e-4 on the Xiangqi preset, against a
// float64 reference). A wrong index or product is off by a whole logit.
const fromToTol = 1e-3

// policyTol is the policy tolerance of s: fromToTol for a from-to head.
func policyTol(s net.Spec) float64 {
	if s.FromToHead() {
		return fromToTol
	}
	return tol
}

func compareTol(t *testing.T, what string, got, want []float32, tol float64) float64 {
	t.Helper()
	var worst float64
	bad := 0
	for i := range want {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		worst = math.Max(worst, d)
		if !(d <= tol*math.Max(1, math.Abs(float64(want[i])))) {
			if bad++; bad <= 3 {
				t.Errorf("%s[%d] = %g, want %g", what, i, got[i], want[i])
			}
		}
	}
	return worst
}

func TestForwardMatchesReference(t *testing.T) {
	batches := []int{1, 3, 16, 64}
	for _, s := range allSpecs(t) {
		t.Run(s.Game, func(t *testing.T) {
			p := liveParams(t, s, 1)
			for _, batch := range batches {
				if testing.Short() && s.Game == "xiangqi" && batch > 3 {
					continue
				}
				planes := randomPlanes(s, batch, uint64(batch))
				// The reference pass is slow for the Xiangqi net (about
				// 0.1 s a position): at batch 64 it checks a sample of
				// positions, the first and last tiles' among them.
				check := make([]int, batch)
				for i := range check {
					check[i] = i
				}
				if s.Game == "xiangqi" && batch == 64 {
					check = []int{0, 1, 2, 20, 41, 61, 62, 63}
				}
				per := s.Channels * s.Height * s.Width
				sample := make([]float32, 0, len(check)*per)
				for _, i := range check {
					sample = append(sample, planes[i*per:(i+1)*per]...)
				}
				wantP, wantV, wantW := p.ReferenceWDL(sample, len(check))
				for _, k := range gemm.Kernels {
					n := newNet(p, 64, k)
					pol := make([]float32, batch*s.Actions)
					val := make([]float32, batch)
					var wdl []float32
					if s.WDLHead() {
						wdl = make([]float32, 3*batch)
					}
					if err := n.ForwardWDL(planes, batch, pol, val, wdl); err != nil {
						t.Fatal(err)
					}
					gotP := make([]float32, 0, len(wantP))
					gotV := make([]float32, 0, len(wantV))
					var gotW []float32
					for _, i := range check {
						gotP = append(gotP, pol[i*s.Actions:(i+1)*s.Actions]...)
						gotV = append(gotV, val[i])
						if wdl != nil {
							gotW = append(gotW, wdl[3*i:3*i+3]...)
						}
					}
					what := fmt.Sprintf("%s/b=%d", k.Name, batch)
					ep := compareTol(t, what+" policy", gotP, wantP, policyTol(s))
					ev := compare(t, what+" value", gotV, wantV)
					compare(t, what+" wdl", gotW, wantW)
					t.Logf("%s: max abs error policy %.2g, value %.2g", what, ep, ev)
				}
			}
		})
	}
}

// TestBatchIndependence checks that a position's outputs do not depend on
// the batch it is in or on what earlier calls left in the buffers: every
// row is computed by the same operations in the same order, so the results
// are bit-identical.
func TestBatchIndependence(t *testing.T) {
	for _, s := range quickSpecs(t) {
		p := liveParams(t, s, 2)
		for _, k := range gemm.Kernels {
			n := newNet(p, 16, k)
			planes := randomPlanes(s, 16, 3)
			pol16 := make([]float32, 16*s.Actions)
			val16 := make([]float32, 16)
			if err := n.Forward(planes, 16, pol16, val16); err != nil {
				t.Fatal(err)
			}
			per := s.Channels * s.Height * s.Width
			for _, i := range []int{0, 5, 15} {
				pol := make([]float32, s.Actions)
				val := make([]float32, 1)
				if err := n.Forward(planes[i*per:(i+1)*per], 1, pol, val); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(pol, pol16[i*s.Actions:(i+1)*s.Actions]) || val[0] != val16[i] {
					t.Errorf("%s/%s: position %d alone differs from position %d of a batch of 16", s.Game, k.Name, i, i)
				}
			}
		}
	}
}

func TestKernelsAgree(t *testing.T) {
	// Whole passes with different gemm.Kernels agree with each other (same
	// folding and layout, sums in different orders).
	for _, s := range quickSpecs(t) {
		p := liveParams(t, s, 4)
		planes := randomPlanes(s, 5, 5)
		var first []float32
		for _, k := range gemm.Kernels {
			n := newNet(p, 5, k)
			pol := make([]float32, 5*s.Actions)
			val := make([]float32, 5)
			if err := n.Forward(planes, 5, pol, val); err != nil {
				t.Fatal(err)
			}
			out := append(pol, val...)
			if first == nil {
				first = out
				continue
			}
			for i := range out {
				if d := math.Abs(float64(out[i] - first[i])); d > policyTol(s)*math.Max(1, math.Abs(float64(first[i]))) {
					t.Errorf("%s: kernel %s output %d = %g, kernel %s gave %g", s.Game, k.Name, i, out[i], gemm.Kernels[0].Name, first[i])
					break
				}
			}
		}
	}
}

func TestClone(t *testing.T) {
	s := presetSpec(t, "connect4")
	p := randomParams(t, s, 6)
	n, err := New(p, 8)
	if err != nil {
		t.Fatal(err)
	}
	const workers = 4
	planes := make([][]float32, workers)
	wantP := make([][]float32, workers)
	wantV := make([][]float32, workers)
	for w := range planes {
		planes[w] = randomPlanes(s, 8, uint64(10+w))
		wantP[w] = make([]float32, 8*s.Actions)
		wantV[w] = make([]float32, 8)
		if err := n.Forward(planes[w], 8, wantP[w], wantV[w]); err != nil {
			t.Fatal(err)
		}
	}
	// Clones used concurrently (run with -race) give the original's results
	// bit for bit.
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		c := n.Clone()
		wg.Add(1)
		go func() {
			defer wg.Done()
			pol := make([]float32, 8*s.Actions)
			val := make([]float32, 8)
			for range 20 {
				if err := c.Forward(planes[w], 8, pol, val); err != nil {
					t.Error(err)
					return
				}
				if !slices.Equal(pol, wantP[w]) || !slices.Equal(val, wantV[w]) {
					t.Errorf("clone %d: results differ from the original's", w)
					return
				}
			}
		}()
	}
	wg.Wait()
	if c := n.Clone(); c.MaxBatch() != 8 || c.Spec() != s || c.Kernel() != n.Kernel() {
		t.Errorf("clone: max batch %d, kernel %s, spec %+v", c.MaxBatch(), c.Kernel(), c.Spec())
	}
}

func TestNewCopiesParams(t *testing.T) {
	testNewCopiesParams(t, presetSpec(t, "lion"))
	testNewCopiesParams(t, oddFromTo)
}

func testNewCopiesParams(t *testing.T, s net.Spec) {
	p := randomParams(t, s, 7)
	n, err := New(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	planes := randomPlanes(s, 2, 1)
	pol1, val1 := make([]float32, 2*s.Actions), make([]float32, 2)
	if err := n.Forward(planes, 2, pol1, val1); err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Layers() {
		for i := range c.W {
			c.W[i] = 0
		}
	}
	p.ValueFC2.W[0] = 5
	if s.FromToHead() {
		p.FromTo.W[0], p.FromTo.B[0] = 5, 5
	} else {
		p.PolicyFC.B[0] = 5
	}
	pol2, val2 := make([]float32, 2*s.Actions), make([]float32, 2)
	if err := n.Forward(planes, 2, pol2, val2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pol1, pol2) || !slices.Equal(val1, val2) {
		t.Error("changing the params after New changed the Net's outputs")
	}
}

func TestZeroAllocs(t *testing.T) {
	for _, s := range append(quickSpecs(t)[:3:3], oddFromTo) {
		name := s.Game
		p := randomParams(t, s, 8)
		for _, k := range gemm.Kernels {
			n := newNet(p, 16, k)
			for _, batch := range []int{1, 16} {
				planes := randomPlanes(s, batch, 9)
				pol := make([]float32, batch*s.Actions)
				val := make([]float32, batch)
				allocs := testing.AllocsPerRun(5, func() {
					if err := n.Forward(planes, batch, pol, val); err != nil {
						t.Fatal(err)
					}
				})
				if allocs != 0 {
					t.Errorf("%s/%s/b=%d: %v allocations per Forward", name, k.Name, batch, allocs)
				}
			}
		}
	}
}

func TestForwardErrors(t *testing.T) {
	s := presetSpec(t, "connect4")
	p := randomParams(t, s, 9)
	n, err := New(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	per := s.Channels * s.Height * s.Width
	ok := func(b int) ([]float32, []float32, []float32) {
		return make([]float32, b*per), make([]float32, b*s.Actions), make([]float32, b)
	}
	pl, po, va := ok(2)
	for _, c := range []struct {
		name          string
		planes        []float32
		batch         int
		policy, value []float32
		want          string
	}{
		{"batch 0", pl[:0], 0, po[:0], va[:0], "batch 0 out of range"},
		{"negative batch", pl, -1, po, va, "batch -1 out of range"},
		{"batch above max", make([]float32, 5*per), 5, make([]float32, 5*s.Actions), make([]float32, 5), "batch 5 out of range [1, 4]"},
		{"short planes", pl[:per], 2, po, va, "planes"},
		{"long planes", make([]float32, 3*per), 2, po, va, "planes"},
		{"short policy", pl, 2, po[:s.Actions], va, "policy"},
		{"long policy", pl, 2, make([]float32, 3*s.Actions), va, "policy"},
		{"short value", pl, 2, po, va[:1], "value"},
		{"nil value", pl, 2, po, nil, "value"},
	} {
		err := n.Forward(c.planes, c.batch, c.policy, c.value)
		if err == nil || !strings.HasPrefix(err.Error(), "infer: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if err := n.Forward(pl, 2, po, va); err != nil {
		t.Errorf("valid call after errors: %v", err)
	}
	// Win/draw/loss probabilities of a scalar head, or of the wrong
	// length, are refused.
	if err := n.ForwardWDL(pl, 2, po, va, make([]float32, 6)); err == nil || !strings.Contains(err.Error(), "without the WDL head") {
		t.Errorf("WDL of a scalar head: %v", err)
	}
	w, err := New(randomParams(t, withWDL(s), 9), 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ForwardWDL(pl, 2, po, va, make([]float32, 5)); err == nil || !strings.Contains(err.Error(), "wdl has length 5 for batch 2, want 6") {
		t.Errorf("a short WDL buffer: %v", err)
	}
	if !w.HasWDL() || n.HasWDL() {
		t.Errorf("HasWDL: %v with the head, %v without", w.HasWDL(), n.HasWDL())
	}
}

func TestNewErrors(t *testing.T) {
	s := presetSpec(t, "connect4")
	good := func() *net.Params { return randomParams(t, s, 10) }
	broken := good()
	broken.Blocks[1].A.Var = broken.Blocks[1].A.Var[:3]
	badSpec := good()
	badSpec.Spec.Filters = 0
	big, err := net.NewParams(net.Spec{Game: "big", Channels: 1, Height: 100, Width: 100, Actions: 1,
		Filters: 64, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		p        *net.Params
		maxBatch int
	}{
		{"nil params", nil, 1},
		{"max batch 0", good(), 0},
		{"negative max batch", good(), -3},
		{"huge max batch", good(), 1 << 30},
		{"wrong slice length", broken, 1},
		{"invalid spec", badSpec, 1},
		{"buffers too large", big, 1 << 16}, // 65542 padded 102x102 boards of 64+ channels
	} {
		n, err := New(c.p, c.maxBatch)
		if err == nil || n != nil || !strings.HasPrefix(err.Error(), "infer: ") {
			t.Errorf("%s: New = %v, %v; want an error beginning with \"infer: \"", c.name, n, err)
		}
	}
}
