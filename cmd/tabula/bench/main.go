// Package bench is `tabula bench`: it measures what this machine does for
// training runs (package bench at the module's root does the measuring).
//
//	tabula bench [-each 3s] [-presets connect4,lion,xiangqi] [-o FILE]
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/bench"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/cliflag"
)

// Run is `tabula bench`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(ctx, args, stdout)
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(out)
	each := fs.Duration("each", 3*time.Second, "time of each measurement (a preset takes about five)")
	presets := fs.String("presets", "connect4,lion,xiangqi", "the game presets to measure, comma-separated")
	trainBatch := fs.Int("train-batch", 0, "the training step's batch (0: the preset's), e.g. to read it against docs/repro/torch-train.py's")
	jsonOut := fs.String("o", "tabula-bench.json", "write the figures as JSON to `FILE` (\"\": do not)")
	cliflag.Usage(fs, "tabula bench [-each D] [-presets LIST] [-train-batch N] [-o FILE]",
		"Measures this machine for training runs: net/gemm's fp32 peak (Sgemm on every core), and for\n"+
			"each preset the network's inference and training step (with their share of that peak),\n"+
			"self-play with the network's own search, alpha-beta and perft. docs/bench.md says how to\n"+
			"size a run from the figures.", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: unexpected arguments %q", fs.Args())
	}
	var checks cliflag.Checks
	checks.Duration("each", *each, 100*time.Millisecond)
	checks.Int("train-batch", *trainBatch, 0, 8192)
	if err := checks.Err(); err != nil {
		return err
	}
	var names []string
	for _, n := range strings.Split(*presets, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return errors.New("bench: -presets names no preset")
	}
	r, err := bench.Run(ctx, bench.Options{Presets: names, Each: *each, TrainBatch: *trainBatch,
		Progress: func(s string) { fmt.Fprintln(out, "measuring "+s) }})
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintln(out)
	if err := r.WriteText(out); err != nil {
		return err
	}
	if *jsonOut == "" {
		return nil
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(*jsonOut, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	_, err = fmt.Fprintf(out, "\nthe figures as JSON: %s\n", *jsonOut)
	return err
}
