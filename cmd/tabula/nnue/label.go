package nnue

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/progress"
	"github.com/tabula-zero/tabula/nnue/nnuelabel"
	"github.com/tabula-zero/tabula/player"
)

const labelSynopsis = "tabula nnue label -data DIR -out DIR [-net xiangqi|CHECKPOINT|RUN] [-weight W] [-k K] [-batch B] [-precision P]"

func runLabel(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	def := nnuelabel.DefaultOptions()
	fs := flag.NewFlagSet("nnue label", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "`DIR` of shards (tabula nnue gen's; required)")
	out := fs.String("out", "", "`DIR` the relabelled shards go to, under the same names (required; run again to go on)")
	netName := fs.String("net", "xiangqi", "the policy/value network whose value labels the positions: a shipped model's name, a checkpoint file or a run directory (its best network)")
	weight := fs.Float64("weight", def.Weight, "the network value's share of each position's target win probability (0: the search's score alone, 1: the network's value alone)")
	k := fs.Float64("k", def.K, "centi-units of the sigmoid's scale that turns a score into a win probability and back (the trainer's -k)")
	maxScore := fs.Int("max-score", def.MaxScore, "new scores capped to +-this (centi-units)")
	batch := fs.Int("batch", def.Batch, "positions a forward pass")
	precision := fs.String("precision", "auto", "the network's arithmetic: auto, fp32 or int8")
	cliflag.Usage(fs, labelSynopsis,
		"Writes DIR's shards again into -out with new scores: each position's win probability is\n"+
			"the blend of the search's score's (sigmoid(score/K)) and the network's value's, and its score\n"+
			"K*logit of that. Mate scores and everything else of a record are kept, so the same trainer\n"+
			"flags train on either set and hold out the same games (docs/nnue.md, \"Labels from the\n"+
			"conv net\"). Run again, the same command goes on from the shards written.", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *out == "" || fs.NArg() > 0 {
		return errors.New("usage: " + labelSynopsis + " (see -h)")
	}
	g, err := game.Lookup("xiangqi")
	if err != nil {
		return err
	}
	n, err := player.LoadNetwork(*netName, g, *precision, *batch)
	if err != nil {
		return fmt.Errorf("-net %s: %w", *netName, err)
	}
	opt := nnuelabel.Options{Weight: *weight, K: *k, MaxScore: *maxScore, Batch: *batch, Source: n.File}
	fwd, err := player.OpenForwarder(n.Params, *batch, *precision)
	if err != nil {
		return fmt.Errorf("-net %s: %w", *netName, err)
	}
	defer fwd.Close()

	start := time.Now()
	track := progress.New()
	fmt.Fprintf(stderr, "nnue label: %s into %s, %s's value at weight %g, K %g\n", *data, *out, n.File, opt.Weight, opt.K)
	shards, positions, err := nnuelabel.Dir(ctx, *data, *out, fwd, n.Game.Encoder, opt, func(done, total, positions int) {
		if done == 0 {
			track.Begin("nnue label", "shards", int64(total))
			return
		}
		track.Set(int64(done))
		eta := ""
		if left, ok := track.Phase().Left(time.Now()); ok {
			eta = ", ETA " + left.Round(time.Second).String()
		}
		fmt.Fprintf(stderr, "shard %d of %d: %d positions, %.0f positions/s%s\n",
			done, total, positions, float64(positions)/time.Since(start).Seconds(), eta)
	})
	track.End()
	fmt.Fprintf(stdout, "%d shards, %d positions labelled into %s in %s\n", shards, positions, *out, time.Since(start).Round(time.Second))
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stdout, "stopped: the same command goes on")
		return nil
	}
	return err
}
