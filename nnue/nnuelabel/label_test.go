package nnuelabel

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/nnue/nnuedata"
	"github.com/tabula-zero/tabula/player"
)

// TestBlendEnds: weight 0 gives back the search's score, weight 1 a score
// whose win probability is the network's, and the blend moves the same
// way as each of its parts.
func TestBlendEnds(t *testing.T) {
	o := DefaultOptions()
	o.Weight = 0
	for s := -o.MaxScore; s <= o.MaxScore; s += 7 {
		if got := o.Blend(s, 0.3); got != s {
			t.Fatalf("weight 0: Blend(%d) = %d", s, got)
		}
	}
	o.Weight = 1
	for _, v := range []float32{-0.9, -0.5, 0, 0.25, 0.8} {
		got := o.Blend(123, v)
		p := 1 / (1 + math.Exp(-float64(got)/o.K))
		want := (float64(v) + 1) / 2
		// A centi-unit of score moves the probability by at most 1/(4K).
		if math.Abs(p-want) > 1/(4*o.K)+1e-12 {
			t.Errorf("weight 1, value %v: score %d stands for %v, want %v", v, got, p, want)
		}
	}
	if got := o.Blend(0, 1); got != o.MaxScore {
		t.Errorf("a certain win: %d, want the cap %d", got, o.MaxScore)
	}
	o.Weight = 0.5
	prev := math.MinInt
	for v := float32(-1); v <= 1; v += 0.125 {
		got := o.Blend(200, v)
		if got < prev {
			t.Fatalf("not monotonic in the value: %d after %d at %v", got, prev, v)
		}
		prev = got
	}
	prev = math.MinInt
	for s := -2000; s <= 2000; s += 50 {
		got := o.Blend(s, 0.1)
		if got < prev {
			t.Fatalf("not monotonic in the score: %d after %d at %d", got, prev, s)
		}
		prev = got
	}
}

// TestDir labels real generated shards with the shipped network in odd
// batches and checks each record against the network's value of its
// position evaluated alone, through the player's evaluator: every score
// but the mates blended, every other field and the header kept.
func TestDir(t *testing.T) {
	in, out := t.TempDir(), filepath.Join(t.TempDir(), "labelled")
	g := nnuedata.DefaultOptions()
	g.Budget = nnuedata.Budget{Depth: 1}
	g.Search.HashMiB = 1
	g.ShardRecords = 60
	g.Seed = 5
	if _, err := nnuedata.Generate(context.Background(), in, 150, g, nnuedata.Events{}); err != nil {
		t.Fatal(err)
	}
	xq, err := game.Lookup("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	n, err := player.LoadNetwork("xiangqi", xq, "fp32", 7)
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := player.OpenForwarder(n.Params, 7, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	defer fwd.Close()
	opt := DefaultOptions()
	opt.Weight, opt.Batch, opt.Source = 0.75, 7, "shipped"
	shards, positions, err := Dir(context.Background(), in, out, fwd, n.Game.Encoder, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	src, err := nnuedata.List(in)
	if err != nil {
		t.Fatal(err)
	}
	if shards != len(src) || positions < 150 {
		t.Fatalf("%d shards, %d positions; want %d shards, at least 150", shards, positions, len(src))
	}
	eval := n.Evaluator()
	var moves []game.Move
	priors := make([]float32, 256)
	blended := 0
	for _, s := range src {
		h0, r0, err := nnuedata.Read(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		h1, r1, err := nnuedata.Read(filepath.Join(out, filepath.Base(s.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if h1.Labels == "" {
			t.Errorf("shard %d: no labels named", s.Seq)
		}
		h1.Labels = ""
		if !reflect.DeepEqual(h0, h1) {
			t.Errorf("shard %d: header changed:\n%+v\n%+v", s.Seq, h0, h1)
		}
		for i := range r0 {
			a, b := r0[i], r1[i]
			if a.Mate {
				if a != b {
					t.Errorf("shard %d record %d: a mate record changed", s.Seq, i)
				}
				continue
			}
			sa, sb := a.Score, b.Score
			a.Score, b.Score = 0, 0
			if a != b {
				t.Fatalf("shard %d record %d: more than the score changed", s.Seq, i)
			}
			p, err := r0[i].Position(xiangqi.DefaultRules)
			if err != nil {
				t.Fatal(err)
			}
			moves = p.GenerateMoves(moves[:0])
			v, err := eval.Evaluate(p, moves, priors[:len(moves)])
			if err != nil {
				t.Fatal(err)
			}
			// Batched and single forward passes may differ in the last bits.
			if want := opt.Blend(int(sa), v); abs(int(sb)-want) > 1 {
				t.Errorf("shard %d record %d: score %d, want %d (search %d, value %v)", s.Seq, i, sb, want, sa, v)
			}
			if sb != sa {
				blended++
			}
		}
	}
	if blended == 0 {
		t.Error("no score changed")
	}
	// Run again, it finds everything done.
	if shards, _, err := Dir(context.Background(), in, out, fwd, n.Game.Encoder, opt, nil); err != nil || shards != 0 {
		t.Errorf("again: %d shards, %v; want none", shards, err)
	}
	if _, _, err := Dir(context.Background(), in, in, fwd, n.Game.Encoder, opt, nil); err == nil {
		t.Error("labelling a directory into itself was not refused")
	}
	opt.Weight = 1.5
	if _, _, err := Dir(context.Background(), in, t.TempDir(), fwd, n.Game.Encoder, opt, nil); err == nil {
		t.Error("weight 1.5 was not refused")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
