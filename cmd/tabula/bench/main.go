// Command tabula is the project's command line: `tabula bench` measures
// what this machine does for training runs. (The other commands are
// cmd/train, cmd/selfplay, cmd/arena, cmd/engine, cmd/export, cmd/dashboard
// and cmd/tune.)
//
//	go run ./cmd/tabula bench [-each 3s] [-presets connect4,lion,xiangqi] [-o FILE]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tabula-zero/tabula/bench"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/cliflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	cliflag.Exit("tabula", err)
}

const usage = `usage: tabula COMMAND [flags]

commands:
  bench   measure this machine: the fp32 peak, and per preset inference, a training
          step, self-play, alpha-beta and perft (about a minute; tabula bench -h)`

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "bench":
		return runBench(ctx, args[1:], out)
	case "-h", "-help", "--help", "help":
		_, err := fmt.Fprintln(out, usage)
		return err
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

func runBench(ctx context.Context, args []string, out io.Writer) error {
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
