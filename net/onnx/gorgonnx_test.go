package onnx

import (
	"fmt"
	"testing"

	onnxgo "github.com/owulveryck/onnx-go"
	"github.com/owulveryck/onnx-go/backend/x/gorgonnx"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/net"
)

// runGorgonnx decodes model with onnx-go into a fresh gorgonia backend and
// runs it on planes [n][C][H][W]. A fresh decode per call matters: the
// backend's Gemm writes its result into the bias initializer when the
// output has as many elements as the bias (batch 1), so a second Run of
// the same decoded model adds the previous output to the bias.
func runGorgonnx(model []byte, s net.Spec, planes []float32, n int) (policy, value []float32, err error) {
	backend := gorgonnx.NewGraph()
	m := onnxgo.NewModel(backend)
	if err := m.UnmarshalBinary(model); err != nil {
		return nil, nil, fmt.Errorf("decode: %w", err)
	}
	in := tensor.New(tensor.WithShape(n, s.Channels, s.Height, s.Width), tensor.WithBacking(append([]float32(nil), planes...)))
	if err := m.SetInput(0, in); err != nil {
		return nil, nil, fmt.Errorf("set input: %w", err)
	}
	if err := backend.Run(); err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	outs, err := m.GetOutputTensors()
	if err != nil {
		return nil, nil, fmt.Errorf("outputs: %w", err)
	}
	if len(outs) != 2 {
		return nil, nil, fmt.Errorf("%d outputs, want 2", len(outs))
	}
	if got, want := outs[0].Shape(), (tensor.Shape{n, s.Actions}); !got.Eq(want) {
		return nil, nil, fmt.Errorf("policy shape %v, want %v", got, want)
	}
	if got, want := outs[1].Shape(), (tensor.Shape{n, 1}); !got.Eq(want) {
		return nil, nil, fmt.Errorf("value shape %v, want %v", got, want)
	}
	policy = append(policy, outs[0].Data().([]float32)...)
	value = append(value, outs[1].Data().([]float32)...)
	return policy, value, nil
}

func checkGorgonnx(t *testing.T, p *net.Params, samples []Sample) {
	t.Helper()
	model, err := Marshal(p, Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for i, smp := range samples {
		pol, val, err := runGorgonnx(model, p.Spec, smp.Planes, 1)
		if err != nil {
			t.Fatalf("sample %d: onnx-go: %v", i, err)
		}
		dp, dv := maxDiff(pol, smp.Policy), maxDiff(val, []float32{smp.Value})
		if dp > 1e-4 || dv > 1e-4 {
			t.Errorf("sample %d: onnx-go differs from the reference: policy by %g, value by %g\n got %v %v\nwant %v %v", i, dp, dv, pol, val, smp.Policy, smp.Value)
		}
		worst = max(worst, dp, dv)
	}
	// The backend has no softmax here, so larger batches work as well.
	if len(samples) >= 3 {
		var planes, wantP, wantV []float32
		for _, smp := range samples[:3] {
			planes = append(planes, smp.Planes...)
			wantP = append(wantP, smp.Policy...)
			wantV = append(wantV, smp.Value)
		}
		pol, val, err := runGorgonnx(model, p.Spec, planes, 3)
		if err != nil {
			t.Fatalf("batch 3: onnx-go: %v", err)
		}
		dp, dv := maxDiff(pol, wantP), maxDiff(val, wantV)
		if dp > 1e-4 || dv > 1e-4 {
			t.Errorf("batch 3: onnx-go differs from the reference: policy by %g, value by %g", dp, dv)
		}
		worst = max(worst, dp, dv)
	}
	var values []float32
	for _, smp := range samples {
		values = append(values, smp.Value)
	}
	t.Logf("%d samples at batch 1 (and 3): max abs difference %.3g; values %v", len(samples), worst, values)
}

func TestGorgonnxMatchesReference(t *testing.T) {
	p := randomParams(t, tinySpec, 1)
	checkGorgonnx(t, p, randomSamples(p, 8, 2))
}

func TestGorgonnxNoBlocks(t *testing.T) {
	s := tinySpec
	s.Blocks = 0
	p := randomParams(t, s, 3)
	checkGorgonnx(t, p, randomSamples(p, 3, 4))
}

func TestGorgonnxPresetSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	g, p := preset(t, "connect4", 5)
	samples, err := Samples(g, p, 4, 6)
	if err != nil {
		t.Fatal(err)
	}
	checkGorgonnx(t, p, samples)
}
