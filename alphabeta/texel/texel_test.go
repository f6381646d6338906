package texel

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/game/xiangqi"
)

// synthetic draws samples whose results follow the logistic model with
// weights want and slope k: the fit must find the model again.
func synthetic(n int, want []float64, k, scale float64, seed uint64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]Sample, n)
	for i := range out {
		x := make([]float64, len(want))
		for j := range x {
			x[j] = float64(rng.IntN(21) - 10)
		}
		r := 0.0
		if rng.Float64() < predict(k, dot(want, x)/scale) {
			r = 1
		}
		out[i] = Sample{Terms: x, Result: r}
	}
	return out
}

func TestFitRecoversTheModel(t *testing.T) {
	const scale, k = 16, 0.01
	want := []float64{50 * scale, -20 * scale, 5 * scale}
	pr := &Problem{Samples: synthetic(40000, want, k, scale, 1), Scale: scale}
	gotK, err := pr.FitK(want)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(gotK-k) > 0.1*k {
		t.Errorf("slope %.5f, want %.5f", gotK, k)
	}
	w, before, after, err := pr.Fit(make([]float64, 3), k)
	if err != nil {
		t.Fatal(err)
	}
	if after >= before {
		t.Errorf("error %.5f after, %.5f before", after, before)
	}
	for i := range want {
		if math.Abs(w[i]-want[i]) > 0.1*math.Abs(want[i])+scale {
			t.Errorf("weight %d: %.1f, want %.1f", i, w[i]/scale, want[i]/scale)
		}
	}
	// A fixed weight keeps its value while the others still fit.
	pr.Fixed = []bool{false, true, false}
	w, _, _, err = pr.Fit([]float64{0, want[1], 0}, k)
	if err != nil {
		t.Fatal(err)
	}
	if w[1] != want[1] || math.Abs(w[0]-want[0]) > 0.1*want[0] {
		t.Errorf("with weight 1 fixed: %v, want %v", w, want)
	}
}

func TestFitErrors(t *testing.T) {
	pr := &Problem{Scale: 1}
	if _, _, _, err := pr.Fit([]float64{1}, 1); err == nil {
		t.Error("no samples: no error")
	}
	pr.Samples = []Sample{{Terms: []float64{1, 2}, Result: 1}}
	if _, _, _, err := pr.Fit([]float64{1}, 1); err == nil || !strings.Contains(err.Error(), "terms") {
		t.Errorf("wrong term count: %v", err)
	}
}

func TestPositions(t *testing.T) {
	g, err := game.Lookup(xiangqi.Name)
	if err != nil {
		t.Fatal(err)
	}
	// Red's cannon takes the horse and Black's chariot retakes: the
	// position after the capture is not quiet; the others are.
	moves := []string{"h3h10", "i10h10", "h1g3", "a10a9"}
	samples, err := Positions(g, nil, []Game{{Moves: moves, Result: 1}}, SampleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := xiangqi.New(xiangqi.DefaultRules)
	var want []Sample
	for ply, mv := range moves {
		if ply != 1 {
			r := 1.0
			if ply%2 == 1 {
				r = 0
			}
			want = append(want, Sample{Terms: toFloat(p.EvalTerms(nil)), Result: r})
		}
		if err := game.Play(p, mv); err != nil {
			t.Fatal(err)
		}
	}
	if len(samples) != len(want) {
		t.Fatalf("%d samples, want %d (the start, and the positions after moves 2 and 3)", len(samples), len(want))
	}
	for i := range want {
		if samples[i].Result != want[i].Result || !slices.Equal(samples[i].Terms, want[i].Terms) {
			t.Errorf("sample %d: %+v, want %+v", i, samples[i], want[i])
		}
	}
	if _, err := Positions(g, nil, []Game{{Moves: []string{"h3h10", "e2e3"}}}, SampleOptions{}); err == nil || !strings.Contains(err.Error(), "ply 2") {
		t.Errorf("illegal move: %v", err)
	}
	if _, err := Positions(g, nil, []Game{{Result: 2}}, SampleOptions{}); err == nil {
		t.Error("result 2: no error")
	}
	c4, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Positions(c4, nil, []Game{{Moves: []string{"4"}}}, SampleOptions{}); err == nil || !strings.Contains(err.Error(), "no linear evaluation") {
		t.Errorf("connect4: %v", err)
	}
}
