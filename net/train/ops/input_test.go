package ops

import (
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Bad shapes get an error naming the problem: when a graph is built and
// when an op runs on values it was not built for.
func TestBadInputs(t *testing.T) {
	g := G.NewGraph()
	node := func(name string, shape ...int) *G.Node {
		return G.NewTensor(g, G.Float32, len(shape), G.WithShape(shape...), G.WithName(name))
	}
	b := Board{N: 2, H: 3, W: 4}
	x := node("x", b.N, b.hp(), b.wp(), 5)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"conv 5x5", func() error { _, err := Conv(x, node("w5", 6, 5, 5, 5), b, 5, true, FP32); return err }(), "convolution weights of shape (6, 5, 5, 5) for k = 5"},
		{"conv channels", func() error { _, err := Conv(x, node("w3", 6, 4, 3, 3), b, 3, true, FP32); return err }(), "convolution input of shape (2, 5, 6, 5), want (2, 5, 6, 4)"},
		{"dense", func() error { _, err := Dense(node("f", 2, 7), node("wd", 3, 8), node("bd", 3), false); return err }(), "dense layer of input (2, 7) and weights (3, 8)"},
		{"dense bias", func() error { _, err := Dense(node("f2", 2, 8), node("wd2", 3, 8), node("bd2", 4), false); return err }(), "dense layer bias of shape (4), want (3)"},
		{"bn scale", func() error {
			_, _, err := BatchNorm(x, node("g", 1, 4, 1, 1), node("be", 1, 5, 1, 1), nil, b, 0.1, 1e-5)
			return err
		}(), "batch norm scale or shift of shape (1, 4, 1, 1), want (1, 5, 1, 1)"},
		{"residual gradient to a non-convolution", residualGradient(t, g, b, x, "dense"), "not a convolution"},
		{"residual gradient to the input planes' convolution", residualGradient(t, g, b, x, "planes"), "input takes no gradient"},
		{"residual gradient from another input", residualGradient(t, g, b, x, "other"), "not the batch norm's residual"},
		{"residual gradient twice", residualGradient(t, g, b, x, "twice"), "added twice"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, c.err, c.want)
		}
	}

	y, err := Dense(node("f3", 2, 8), node("wd3", 3, 8), node("bd3", 3), true)
	if err != nil {
		t.Fatal(err)
	}
	op := y.Op()
	dense := func(shape ...int) G.Value { return tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float32)) }
	for _, c := range []struct {
		vals []G.Value
		want string
	}{
		{[]G.Value{dense(2, 8), dense(3, 8)}, "dense layer takes 3 inputs, got 2"},
		{[]G.Value{dense(2, 8), dense(3, 9), dense(3)}, "dense weights has shape (3, 9), want (3, 8)"},
		{[]G.Value{dense(2, 8), dense(3, 8), tensor.New(tensor.WithShape(3), tensor.Of(tensor.Float64))}, "dense bias holds float64, want float32"},
	} {
		if _, err := op.Do(c.vals...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Do: error %v, want %q", err, c.want)
		}
	}
	if _, err := op.Do(dense(2, 8), dense(3, 8), dense(3)); err != nil {
		t.Errorf("Do on good values: %v", err)
	}
}

// residualGradient builds a block on x (a convolution and a batch norm
// with x as its residual) and links them with AddResidualGradient, wrong
// in the way named.
func residualGradient(t *testing.T, g *G.ExprGraph, b Board, x *G.Node, wrong string) error {
	t.Helper()
	node := func(shape ...int) *G.Node { return G.NewTensor(g, G.Float32, len(shape), G.WithShape(shape...)) }
	conv, err := Conv(x, node(5, 5, 3, 3), b, 3, wrong != "planes", FP32)
	if err != nil {
		t.Fatal(err)
	}
	res := x
	if wrong == "other" {
		res = node(b.N, b.hp(), b.wp(), 5)
	}
	_, bn, err := BatchNorm(conv, node(1, 5, 1, 1), node(1, 5, 1, 1), res, b, 0.1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	switch wrong {
	case "dense":
		d, err := Dense(node(2, 8), node(3, 8), node(3), false)
		if err != nil {
			t.Fatal(err)
		}
		return AddResidualGradient(d, bn)
	case "twice":
		if err := AddResidualGradient(conv, bn); err != nil {
			t.Fatal(err)
		}
	}
	return AddResidualGradient(conv, bn)
}
