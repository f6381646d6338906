// Package engine is `tabula engine`, the UCI front-end for every game: perft, and
// search behind the usual `go` commands. The option Mover picks the
// search: ab (alpha-beta, the default), mcts or abzero (both play the
// option Network, a checkpoint file, run directory or shipped model's
// name, by default the game's shipped model; see engine/movers.go for
// how each honours the `go` limits and what its info lines mean). For
// Chinese Xiangqi GUIs the engine speaks UCCI instead when the first
// command is `ucci`: ICCS move text (h2e2), UCCI's setoption, go time and
// banmoves, nobestmove and bye (see package uci). When the first command
// is `xboard` it speaks CECP for Xiangqi (package cecp), so that xboard
// hosts it: xboard -variant xiangqi -fcp "tabula engine" -fd DIR. The option
// MoveOverhead (milliseconds, default 50) is kept back from movetime, the
// clock and xboard's st, which xboard holds as a hard limit. A rejected
// position (or setboard) leaves no position: go then answers an error
// and no move.
//
//	tabula engine [-variant xiangqi|connect4|lion]    UCI on stdin/stdout
//	tabula engine -variant xiangqi -perft 5 [-fen F]  perft with speed, then exit
//	tabula engine -variant connect4 -solve FILE       solve Pons-format lines exactly
package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/alphabeta/c4solver"
	"github.com/tabula-zero/tabula/cecp"
	"github.com/tabula-zero/tabula/engine"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/inputfile"
	"github.com/tabula-zero/tabula/uci"
)

// maxPerftDepth bounds -perft (as `go perft` is bounded).
const maxPerftDepth = 20

// Run is `tabula engine`: args are the flags after the command's name.
// The protocol is stdin and stdout alone; nothing else is written to
// stdout.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(ctx, args, stdin, stdout)
}

func run(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("engine", flag.ContinueOnError)
	variant := fs.String("variant", game.EngineDefault(), "game: "+strings.Join(game.Names(), ", "))
	perft := fs.Int("perft", 0, "run perft to this depth from the start position (or -fen), print the divide and speed, and exit")
	fen := fs.String("fen", "", "position text for -perft (FEN for Xiangqi)")
	rules := fs.String("rules", "", "rule options as name=value,name=value (for example TryRule=immediate)")
	solve := fs.String("solve", "", "connect4: solve each line \"MOVES [SCORE]\" of `FILE` exactly (- for stdin); prints \"MOVES SCORE NODES MICROSECONDS\" a line and a summary")
	algo := fs.String("algo", "negacstar-opt", "connect4 -solve: algorithm ("+strings.Join(c4solver.Algorithms(), ", ")+")")
	hash := fs.Int("hash", 256, "connect4 -solve: transposition table size in MiB")
	fs.SetOutput(out)
	cliflag.Usage(fs, "tabula engine [-variant GAME] [-rules K=V,...] | tabula engine -perft N [-fen TEXT] | tabula engine -variant connect4 -solve FILE",
		"Without -perft or -solve, the engine speaks UCI on stdin and stdout (a GUI or arena starts it);\n"+
			"a first command \"ucci\" switches to UCCI for Xiangqi GUIs. Options (see \"uci\"): UCI_Variant,\n"+
			"the game's rules, Mover (ab, mcts, abzero), Network (a checkpoint, run directory or a game's name;\n"+
			"default: the game's shipped model, models/), Hash, Algorithm, MultiPV, Simulations, MoveOverhead\n"+
			"(ms kept back from every time limit, default 50), Eval (classical, learned: Xiangqi's learned\n"+
			"evaluation for alpha-beta) and EvalFile (its network file, .nnue; default: the shipped one,\n"+
			"models/xiangqi.nnue).", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var checks cliflag.Checks
	checks.Int("perft", *perft, 0, maxPerftDepth)
	checks.Int("hash", *hash, 1, c4solver.MaxTTMiB)
	if err := checks.Err(); err != nil {
		return err
	}
	opts, err := game.ParseOptions(*rules)
	if err != nil {
		return err
	}
	if *perft > 0 {
		return runPerft(ctx, out, *variant, opts, *fen, *perft)
	}
	if *solve != "" {
		if *variant != connect4.Name {
			return fmt.Errorf("-solve needs -variant connect4")
		}
		return runSolve(ctx, in, out, *solve, *algo, *hash)
	}
	// The first command picks the protocol: xboard (CECP, as xboard and
	// WinBoard start an engine) or UCI/UCCI. Only maxFirstLine bytes are
	// read to tell: a longer first line is not xboard, and UCI skips it
	// (as any over-long line) without holding it.
	br := bufio.NewReaderSize(in, maxFirstLine)
	first, err := br.ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return err
	}
	whole := !errors.Is(err, bufio.ErrBufferFull)
	first = bytes.Clone(first)
	if whole && strings.TrimSpace(string(first)) == "xboard" {
		e, err := cecp.New(br, out, engine.New(), "tabula")
		if err != nil {
			return err
		}
		return untilStopped(ctx, e.Run)
	}
	e, err := uci.NewEngine(io.MultiReader(bytes.NewReader(first), br), out, uci.WithVariant(*variant), uci.WithRuleOptions(opts), uci.WithSearcher(engine.New()))
	if err != nil {
		return err
	}
	return untilStopped(ctx, e.Run)
}

// maxFirstLine bounds what is read of the first line to recognise
// xboard: a 1 GB first line was once read whole (2 GB of memory).
const maxFirstLine = 4096

// stopGrace is how long the protocol loop gets to return after ctx ends
// (SIGTERM, Ctrl-C) before the engine returns without it.
var stopGrace = 3 * time.Second

// untilStopped runs a protocol loop and returns when it does, or at most
// stopGrace after ctx ends: a command that blocks (a file that never
// answers, a search that ignores its stop) must not keep the engine
// alive past SIGTERM.
func untilStopped(ctx context.Context, run func(context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done:
		return err
	case <-time.After(stopGrace):
		return fmt.Errorf("%w (the engine did not stop within %v: left behind)", ctx.Err(), stopGrace)
	}
}

// maxSolveBytes bounds a -solve file: Pons' sets are 10-40 KB each.
const maxSolveBytes = 256 << 20

// runSolve solves a file of Connect Four positions and prints the summary.
func runSolve(ctx context.Context, in io.Reader, out io.Writer, path, algo string, mib int) error {
	r := in
	if path != "-" {
		// A regular file only (a FIFO or device: pipe it to -solve -).
		f, _, err := inputfile.Open(path, "positions file", maxSolveBytes)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	sum, err := c4solver.SolveFile(ctx, r, out, algo, mib)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, sum)
	return nil
}

// runPerft prints a divide and the total with its speed.
func runPerft(ctx context.Context, out io.Writer, variant string, opts game.Options, text string, depth int) error {
	g, err := game.Lookup(variant)
	if err != nil {
		return err
	}
	p, err := g.Start(text, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s perft %d from %q\n", g.Name, depth, p.String())
	start := time.Now()
	var total uint64
	for _, e := range game.Divide(p, depth) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(out, "%s: %d\n", e.Move, e.Count)
		total += e.Count
	}
	el := time.Since(start)
	fmt.Fprintf(out, "\nNodes searched: %d\nTime: %.3f s (%.1f M leaves/s)\n", total, el.Seconds(), float64(total)/el.Seconds()/1e6)
	return nil
}
