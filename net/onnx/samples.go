package onnx

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/net"
)

// Sample is one encoded position with the native network's outputs, the
// element of a samples file: any runtime that loads the exported model
// can feed Planes (shape [1,C,H,W]) and compare its outputs with Policy
// and Value.
type Sample struct {
	FEN    string    `json:"fen"`    // the position in the game's text format
	Shape  [3]int    `json:"shape"`  // C, H, W
	Planes []float32 `json:"planes"` // C*H*W floats, channel-major
	Policy []float32 `json:"policy"` // A logits
	Value  float32   `json:"value"`  // tanh output, or W - L with the WDL head
	// WDL holds the win, draw and loss probabilities of a network with
	// the WDL head (the model's wdl output); absent without it.
	WDL []float32 `json:"wdl,omitempty"`
}

// maxSamplePlies bounds the random games that Samples plays.
const maxSamplePlies = 40

// Samples returns n positions of g reached by seeded random play (each
// from the start position after 0 to 39 uniformly random legal moves,
// never a finished position unless it is the start position) with p's
// reference outputs (net.Params.Reference). The same seed gives the same
// samples. p must be a network for g's encoder.
func Samples(g game.Game, p *net.Params, n int, seed uint64) ([]Sample, error) {
	if n < 0 {
		return nil, fmt.Errorf("onnx: negative sample count %d", n)
	}
	if p == nil {
		return nil, errors.New("onnx: nil params")
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("onnx: invalid params: %w", err)
	}
	if g.Encoder == nil || g.New == nil {
		return nil, fmt.Errorf("onnx: game %q has no encoder", g.Name)
	}
	s := p.Spec
	c, h, w := g.Encoder.Shape()
	if s.Game != g.Name || s.EncoderVersion != g.Encoder.Version() || s.Channels != c || s.Height != h || s.Width != w || s.Actions != g.Encoder.ActionSize() {
		return nil, fmt.Errorf("onnx: network (game %q, encoder %d, input %dx%dx%d, %d actions) does not fit game %q (encoder %d, input %dx%dx%d, %d actions)",
			s.Game, s.EncoderVersion, s.Channels, s.Height, s.Width, s.Actions,
			g.Name, g.Encoder.Version(), c, h, w, g.Encoder.ActionSize())
	}
	rng := rand.New(rand.NewPCG(seed, 0x73616d706c6573))
	out := make([]Sample, 0, n)
	var moves []game.Move
	for len(out) < n {
		pos, err := g.New(nil)
		if err != nil {
			return nil, fmt.Errorf("onnx: %w", err)
		}
		plies := rng.IntN(maxSamplePlies)
		for i := 0; i < plies; i++ {
			if pos.Status().Over() {
				break
			}
			moves = pos.GenerateMoves(moves)
			if len(moves) == 0 {
				break
			}
			pos.Make(moves[rng.IntN(len(moves))])
		}
		if pos.Ply() > 0 && (pos.Status().Over() || len(pos.GenerateMoves(moves)) == 0) {
			pos.Unmake()
		}
		planes := make([]float32, c*h*w)
		g.Encoder.Encode(pos, planes)
		pol, val, wdl := p.ReferenceWDL(planes, 1)
		out = append(out, Sample{FEN: pos.String(), Shape: [3]int{c, h, w}, Planes: planes, Policy: pol, Value: val[0], WDL: wdl})
	}
	return out, nil
}

// WriteSamples writes samples as a JSON array, one sample per line.
// Floats are written in the shortest form that reads back as the same
// float32.
func WriteSamples(w io.Writer, samples []Sample) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("[")
	for i, s := range samples {
		b, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("onnx: sample %d: %w", i, err)
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		bw.Write(b)
	}
	bw.WriteString("\n]\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("onnx: writing samples: %w", err)
	}
	return nil
}

// ReadSamples reads a samples file written by WriteSamples and checks
// that every sample's arrays have the sizes its shape says.
func ReadSamples(r io.Reader) ([]Sample, error) {
	var samples []Sample
	if err := json.NewDecoder(r).Decode(&samples); err != nil {
		return nil, fmt.Errorf("onnx: reading samples: %w", err)
	}
	for i, s := range samples {
		if s.Shape[0] <= 0 || s.Shape[1] <= 0 || s.Shape[2] <= 0 || len(s.Planes) != s.Shape[0]*s.Shape[1]*s.Shape[2] {
			return nil, fmt.Errorf("onnx: sample %d: %d planes for shape %v", i, len(s.Planes), s.Shape)
		}
		if len(s.Policy) == 0 {
			return nil, fmt.Errorf("onnx: sample %d has no policy", i)
		}
		if s.WDL != nil && len(s.WDL) != 3 {
			return nil, fmt.Errorf("onnx: sample %d has %d win/draw/loss probabilities, not 3", i, len(s.WDL))
		}
	}
	return samples, nil
}
