// Package nnuelabel gives the learned evaluation's training positions new
// score labels from another judge: a policy/value network's value head,
// blended with the search's score in win-probability space. It asks
// whether what the conv net learned by self-play is a better teacher for
// the evaluation than the alpha-beta's own scores (docs/nnue.md).
package nnuelabel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/nnue/nnuedata"
)

// Forwarder is a batched forward pass of a policy/value network: value[i]
// is position i's value for its side to move, in [-1, 1].
type Forwarder interface {
	Forward(planes []float32, n int, policy, value []float32) error
}

// Options say how labels are blended.
type Options struct {
	// Weight is the value head's share of the target win probability: 0
	// keeps the search's score, 1 takes the network's value alone.
	Weight float64
	// K is the sigmoid's scale in centi-units, the trainer's -k: a score s
	// stands for the win probability 1/(1+exp(-s/K)).
	K float64
	// MaxScore caps the new scores (centi-units), below alphabeta's mate
	// scores so that no blended score reads as a mate.
	MaxScore int
	// Batch is the positions a forward pass takes.
	Batch int
	// Source names the network in the shards' headers.
	Source string
}

// DefaultOptions are an even blend at the trainer's usual scale.
func DefaultOptions() Options {
	return Options{Weight: 0.5, K: 680, MaxScore: 3000, Batch: 256}
}

func (o *Options) check() error {
	switch {
	case !(o.Weight >= 0 && o.Weight <= 1):
		return fmt.Errorf("nnuelabel: weight %v: want 0 to 1", o.Weight)
	case !(o.K > 0) || math.IsInf(o.K, 0):
		return fmt.Errorf("nnuelabel: K %v: want a positive scale", o.K)
	case o.MaxScore < 1 || o.MaxScore > 20000:
		return fmt.Errorf("nnuelabel: max score %d: want 1 to 20000", o.MaxScore)
	case o.Batch < 1 || o.Batch > 4096:
		return fmt.Errorf("nnuelabel: batch %d: want 1 to 4096", o.Batch)
	}
	return nil
}

// Blend returns the score whose win probability is the blend of the
// search's score's and the network's value's (value in [-1, 1] for the
// side to move), capped to ±o.MaxScore.
func (o *Options) Blend(score int, value float32) int {
	ps := 1 / (1 + math.Exp(-float64(score)/o.K))
	pv := (float64(max(-1, min(1, value))) + 1) / 2
	p := (1-o.Weight)*ps + o.Weight*pv
	const eps = 1e-9
	p = max(eps, min(1-eps, p))
	s := math.Round(o.K * math.Log(p/(1-p)))
	return int(max(-float64(o.MaxScore), min(float64(o.MaxScore), s)))
}

// Progress is told after each shard: shards done and to do in this call
// (those already in the output left out), and positions labelled so far.
type Progress func(done, total, positions int)

// Dir labels every shard of in into out under the same name and header
// (Labels set), the records unchanged but their scores: mate scores are
// kept, every other score blended with fwd's value of the position. enc
// is the network's encoder. A shard already in out is left as it is, so a
// stopped Dir goes on where it stopped; shards are written atomically.
func Dir(ctx context.Context, in, out string, fwd Forwarder, enc game.Encoder, opt Options, progress Progress) (shards, positions int, err error) {
	if err := opt.check(); err != nil {
		return 0, 0, err
	}
	if filepath.Clean(in) == filepath.Clean(out) {
		return 0, 0, fmt.Errorf("nnuelabel: the output directory %s is the input's: its scores would be replaced", out)
	}
	src, err := nnuedata.List(in)
	if err != nil {
		return 0, 0, err
	}
	if len(src) == 0 {
		return 0, 0, fmt.Errorf("nnuelabel: no shards in %s", in)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, 0, fmt.Errorf("nnuelabel: %w", err)
	}
	var todo []nnuedata.Shard
	for _, s := range src {
		_, err := os.Stat(filepath.Join(out, nnuedata.Name(s.Seq)))
		switch {
		case errors.Is(err, os.ErrNotExist):
			todo = append(todo, s)
		case err != nil:
			return 0, 0, fmt.Errorf("nnuelabel: %w", err)
		}
	}
	l := newLabeler(fwd, enc, opt)
	var dec nnuedata.Decoder
	if progress != nil {
		progress(0, len(todo), 0)
	}
	for i, s := range todo {
		if err := ctx.Err(); err != nil {
			return shards, positions, err
		}
		h, recs, err := dec.ReadFile(s.Path)
		if err != nil {
			return shards, positions, err
		}
		recs = append([]nnuedata.Record(nil), recs...) // the decoder's buffer is reused
		if err := l.label(recs); err != nil {
			return shards, positions, fmt.Errorf("nnuelabel: %s: %w", s.Path, err)
		}
		h.Labels = fmt.Sprintf("%s value %.3g blended with the search's score, K %g", opt.Source, opt.Weight, opt.K)
		if _, err := nnuedata.Write(out, h, recs); err != nil {
			return shards, positions, err
		}
		shards++
		positions += len(recs)
		if progress != nil {
			progress(i+1, len(todo), positions)
		}
	}
	return shards, positions, nil
}

// labeler holds the buffers of one batch.
type labeler struct {
	fwd    Forwarder
	enc    game.Encoder
	opt    Options
	size   int
	planes []float32
	policy []float32
	value  []float32
	idx    []int
}

func newLabeler(fwd Forwarder, enc game.Encoder, opt Options) *labeler {
	c, h, w := enc.Shape()
	size := c * h * w
	return &labeler{fwd: fwd, enc: enc, opt: opt, size: size,
		planes: make([]float32, opt.Batch*size), policy: make([]float32, opt.Batch*enc.ActionSize()),
		value: make([]float32, opt.Batch), idx: make([]int, 0, opt.Batch)}
}

// label blends the scores of recs in place, a batch at a time.
func (l *labeler) label(recs []nnuedata.Record) error {
	rules := xiangqi.DefaultRules
	flush := func() error {
		n := len(l.idx)
		if n == 0 {
			return nil
		}
		if err := l.fwd.Forward(l.planes[:n*l.size], n, l.policy[:n*l.enc.ActionSize()], l.value[:n]); err != nil {
			return err
		}
		for j, i := range l.idx {
			recs[i].SetScore(l.opt.Blend(int(recs[i].Score), l.value[j]))
		}
		l.idx = l.idx[:0]
		return nil
	}
	for i := range recs {
		if recs[i].Mate {
			continue
		}
		p, err := recs[i].Position(rules)
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		j := len(l.idx)
		l.enc.Encode(p, l.planes[j*l.size:(j+1)*l.size])
		l.idx = append(l.idx, i)
		if len(l.idx) == l.opt.Batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
