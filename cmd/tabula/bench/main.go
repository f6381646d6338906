// Package bench is `tabula bench`: it measures what this machine does for
// training runs, and with -budget sizes a preset's run to it (package
// bench at the module's root does the measuring and the sizing).
//
//	tabula bench [-each 3s] [-presets connect4,lion,xiangqi] [-json FILE]
//	tabula bench -budget 2h -game xiangqi [-out FILE.yaml] [-json FILE]
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/bench"
	"github.com/tabula-zero/tabula/configs"
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
	jsonOut := fs.String("json", "", "also write the figures (with -budget, and the plan) as JSON to `FILE`")
	budget := fs.Duration("budget", 0, "size a run of -game's preset to this much training time (tabula train -max-time) on this machine")
	gameName := fs.String("game", "", "the preset -budget sizes (connect4, lion, xiangqi, xiangqi-zero); without -budget, the one preset to measure")
	cfgOut := fs.String("out", "", "with -budget, write the sized config to `FILE` (tabula train -config FILE)")
	cliflag.Usage(fs, "tabula bench [-each D] [-presets LIST] [-train-batch N] [-json FILE]\n       tabula bench -budget D -game NAME [-each D] [-out FILE.yaml] [-json FILE]",
		"Measures this machine for training runs: net/gemm's fp32 peak (Sgemm on every core), and for\n"+
			"each preset the network's inference in each precision with a kernel here and its training\n"+
			"step (with their share of that peak), self-play with the network's own search, what\n"+
			"selfplay.precision auto picks here, the self-play a training run gets, alpha-beta and perft.\n\n"+
			"With -budget it measures briefly what sizing a run needs (inference, the training step, the\n"+
			"run's self-play), says what a run of the preset in that training time will do (steps,\n"+
			"generations, samples, evaluations) and writes the preset sized for this machine with -out.\n"+
			"docs/bench.md says how.", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: unexpected arguments %q", fs.Args())
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var checks cliflag.Checks
	checks.Duration("each", *each, 100*time.Millisecond)
	checks.Int("train-batch", *trainBatch, 0, 8192)
	if given["budget"] {
		checks.Duration("budget", *budget, time.Minute)
	}
	if err := checks.Err(); err != nil {
		return err
	}
	var names []string
	for _, n := range strings.Split(*presets, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	switch {
	case given["budget"] && *gameName == "":
		return errors.New("bench: -budget needs -game, the preset to size")
	case given["budget"] && given["presets"]:
		return errors.New("bench: -budget sizes the one preset -game names; -presets is for measuring several")
	case given["budget"] && *trainBatch != 0:
		return errors.New("bench: -budget sizes the run at its preset's batch; -train-batch measures another")
	case !given["budget"] && *cfgOut != "":
		return errors.New("bench: -out writes the config -budget sizes; give -budget and -game")
	case *gameName != "" && given["presets"]:
		return errors.New("bench: give -game or -presets, not both")
	}
	if *gameName != "" {
		names = []string{*gameName}
	}
	if len(names) == 0 {
		return errors.New("bench: -presets names no preset")
	}
	// A preset that does not exist is an error before any measuring.
	for _, n := range names {
		if _, err := configs.PresetBytes(n); err != nil {
			return fmt.Errorf("bench: no preset %q (the presets are configs/*.yaml: connect4, lion, xiangqi, xiangqi-zero)", n)
		}
	}
	r, err := bench.Run(ctx, bench.Options{Presets: names, Each: *each, TrainBatch: *trainBatch, Brief: given["budget"],
		Progress: func(s string) { fmt.Fprintln(out, "measuring "+s) }})
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintln(out)
	if err := r.WriteText(out); err != nil {
		return err
	}
	var plan *bench.Plan
	if given["budget"] {
		if plan, err = sizeRun(r, *gameName, *budget, *cfgOut, out); err != nil {
			return err
		}
	}
	if *jsonOut == "" {
		return nil
	}
	var v any = r
	if plan != nil {
		v = struct {
			Measured bench.Result `json:"measured"`
			Plan     *bench.Plan  `json:"plan"`
		}{r, plan}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(*jsonOut, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	_, err = fmt.Fprintf(out, "\nthe figures as JSON: %s\n", *jsonOut)
	return err
}

// sizeRun sizes the run of the one measured preset, says what it will
// do, and writes the config to path (none: says how to run it without
// one).
func sizeRun(r bench.Result, name string, budget time.Duration, path string, out io.Writer) (*bench.Plan, error) {
	p := r.Presets[0]
	text, err := configs.PresetBytes(name)
	if err != nil {
		return nil, err
	}
	m := bench.Machine{Cores: runtime.GOMAXPROCS(0), Precision: p.AutoPrecision}
	rates := bench.Rates{TrainStepsPerS: p.TrainStepsPerS, SelfPlaySamplesPerS: p.RunSelfPlaySamplesPerS, SamplesPerGame: p.SamplesPerGame}
	plan, err := bench.Size(name, text, m, rates, budget)
	if err != nil {
		return nil, err
	}
	var ref *bench.Plan
	if rb, ok := bench.References[name]; ok {
		// The reference budget may be too short here: then there is no
		// prediction to set beside it.
		ref, _ = bench.Size(name, text, m, rates, rb.Budget)
	}
	fmt.Fprintf(out, "\n%s", plan.Words(ref))
	if path == "" {
		fmt.Fprintf(out, "\nno config written (-out FILE.yaml writes it); the same run without a file:\n  %s\n", plan.Command(""))
		return plan, nil
	}
	if err := atomicfile.WriteBytes(path, plan.Text, 0o644); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(out, "\nthe config: %s\nrun it: %s\n", path, plan.Command(path))
	return plan, nil
}
