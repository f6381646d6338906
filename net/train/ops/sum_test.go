package ops

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"
)

// The training engine's Add gives StdEng's results, in place, into a
// reuse tensor or into a new one, for tensors above and below the size
// it parallelises from, and leaves its operands as StdEng does.
func TestEngineAddMatchesStdEng(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	rnd := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.NormFloat64())
		}
		return s
	}
	dense := func(s []float32) *tensor.Dense {
		return tensor.New(tensor.WithShape(len(s)), tensor.WithBacking(append([]float32(nil), s...)))
	}
	e := Engine().(tensor.Adder)
	var std tensor.StdEng
	for _, n := range []int{7, minParallelSum - 1, minParallelSum, 3*minParallelSum + 5} {
		x, y := rnd(n), rnd(n)
		want, err := std.Add(dense(x), dense(y))
		if err != nil {
			t.Fatal(err)
		}
		ws := want.Data().([]float32)
		check := func(how string, got tensor.Tensor, err error, a, b *tensor.Dense, aKept bool) {
			t.Helper()
			if err != nil {
				t.Fatalf("n=%d %s: %v", n, how, err)
			}
			gs := got.Data().([]float32)
			for i := range ws {
				if gs[i] != ws[i] {
					t.Fatalf("n=%d %s: element %d is %v, want %v", n, how, i, gs[i], ws[i])
				}
			}
			if bs := b.Float32s(); bs[n/2] != y[n/2] {
				t.Fatalf("n=%d %s: the second operand changed", n, how)
			}
			if as := a.Float32s(); aKept && as[n/2] != x[n/2] {
				t.Fatalf("n=%d %s: the first operand changed", n, how)
			}
		}
		a, b := dense(x), dense(y)
		got, err := e.Add(a, b)
		check("safe", got, err, a, b, true)
		if got == tensor.Tensor(a) {
			t.Fatalf("n=%d: a safe Add returned its operand", n)
		}
		a, b = dense(x), dense(y)
		got, err = e.Add(a, b, tensor.UseUnsafe())
		check("unsafe", got, err, a, b, false)
		if got != tensor.Tensor(a) {
			t.Fatalf("n=%d: an unsafe Add did not write its first operand", n)
		}
		a, b, r := dense(x), dense(y), dense(rnd(n))
		got, err = e.Add(a, b, tensor.WithReuse(r))
		check("reuse", got, err, a, b, true)
		if got != tensor.Tensor(r) {
			t.Fatalf("n=%d: Add with reuse did not write the reuse tensor", n)
		}
		a, b, inc := dense(x), dense(y), dense(make([]float32, n))
		got, err = e.Add(a, b, tensor.WithIncr(inc))
		check("incr", got, err, a, b, true)
	}
}
