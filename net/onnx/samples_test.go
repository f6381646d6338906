package onnx

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

func TestSamplesDeterministic(t *testing.T) {
	g, p := preset(t, "lion", 1)
	a, err := Samples(g, p, 6, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Samples(g, p, 6, 42)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different samples")
	}
	c, err := Samples(g, p, 6, 43)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds, same samples")
	}
	if none, err := Samples(g, p, 0, 1); err != nil || len(none) != 0 {
		t.Errorf("zero samples: %v, %v", none, err)
	}
}

func TestSamplesPositions(t *testing.T) {
	for i, name := range game.Names() {
		t.Run(name, func(t *testing.T) {
			g, p := preset(t, name, uint64(i))
			n := 12
			if name == "xiangqi" {
				n = 4 // the reference forward pass is slow here
			}
			samples, err := Samples(g, p, n, uint64(100+i))
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != n {
				t.Fatalf("%d samples, want %d", len(samples), n)
			}
			start, err := g.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			c, h, w := g.Encoder.Shape()
			fens := map[string]bool{}
			for j, s := range samples {
				if s.Shape != [3]int{c, h, w} || len(s.Planes) != c*h*w || len(s.Policy) != g.Encoder.ActionSize() {
					t.Fatalf("sample %d: shape %v, %d planes, %d logits", j, s.Shape, len(s.Planes), len(s.Policy))
				}
				pol, val := p.Reference(s.Planes, 1)
				if !reflect.DeepEqual(pol, s.Policy) || val[0] != s.Value {
					t.Errorf("sample %d: outputs are not the reference's", j)
				}
				pos, err := g.Parse(s.FEN, nil)
				if err != nil {
					t.Fatalf("sample %d: FEN %q does not parse: %v", j, s.FEN, err)
				}
				if len(pos.GenerateMoves(nil)) == 0 {
					t.Errorf("sample %d: %q is a finished position", j, s.FEN)
				}
				fens[s.FEN] = true
			}
			delete(fens, start.String())
			if len(fens) < 2 {
				t.Errorf("only %d distinct positions besides the start: %v", len(fens), fens)
			}
		})
	}
}

func TestSamplesErrors(t *testing.T) {
	c4, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	_, lionNet := preset(t, "lion", 1)
	if _, err := Samples(c4, lionNet, 1, 1); err == nil || !strings.Contains(err.Error(), `does not fit game "connect4"`) {
		t.Errorf("wrong game: %v", err)
	}
	_, p := preset(t, "connect4", 1)
	if _, err := Samples(c4, p, -1, 1); err == nil || !strings.HasPrefix(err.Error(), "onnx: ") {
		t.Errorf("negative count: %v", err)
	}
	if _, err := Samples(c4, nil, 1, 1); err == nil {
		t.Error("nil params accepted")
	}
	p.PolicyFC.B = nil
	if _, err := Samples(c4, p, 1, 1); err == nil || !strings.Contains(err.Error(), "policy fc") {
		t.Errorf("bad params: %v", err)
	}
}

func TestWriteReadSamples(t *testing.T) {
	g, p := preset(t, "connect4", 3)
	samples, err := Samples(g, p, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSamples(&buf, samples); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.HasPrefix(text, "[\n{\"fen\":") || !strings.HasSuffix(text, "}\n]\n") || strings.Count(text, "\n") != len(samples)+2 {
		t.Errorf("unexpected layout:\n%.300s", text)
	}
	back, err := ReadSamples(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, samples) {
		t.Error("samples do not read back exactly")
	}
	buf.Reset()
	if err := WriteSamples(&buf, nil); err != nil || buf.String() != "[\n]\n" {
		t.Errorf("no samples: %q %v", buf.String(), err)
	}
	for _, bad := range []string{
		`[{"fen":"x","shape":[1,1,2],"planes":[1],"policy":[1],"value":0}]`,
		`[{"fen":"x","shape":[1,1,1],"planes":[1],"policy":[],"value":0}]`,
		`{"fen":"x"}`,
	} {
		if _, err := ReadSamples(strings.NewReader(bad)); err == nil || !strings.HasPrefix(err.Error(), "onnx: ") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
