// Package liontb is `tabula liontb`: it builds, checks and queries the
// Catch the Lion tablebase (package game/lion/tablebase;
// docs/lion-tablebase.md).
//
//	tabula liontb -out lion.tb                  build the full game (about 250 MB)
//	tabula liontb -out sub.tb -material 1,1,0   a sub-game: chicks, giraffes, elephants
//	tabula liontb -verify lion.tb               check the file's checksum, print its counts
//	tabula liontb -probe lion.tb [-pos TEXT]    value and optimal moves of a position (default the start)
//	tabula liontb -testset lion.tb [-seed S]    the Lion oracle's test set on stdout (internal/liondata)
//	tabula liontb -testset lion.tb -heldout     its held-out set (heldout.txt)
package liontb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
	"github.com/tabula-zero/tabula/internal/atomicfile"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/internal/liondata"
)

// Run is `tabula liontb`: args are the flags after the command's name.
// The table's figures go to stdout, the build's progress to stderr.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("liontb", flag.ContinueOnError)
	fs.SetOutput(stdout)
	out := fs.String("out", "", "build the table into this file")
	material := fs.String("material", "2,2,2", "chicks,giraffes,elephants in play (0-2 each); 2,2,2 is the game")
	workers := fs.Int("workers", runtime.NumCPU(), "goroutines building")
	every := fs.Duration("progress", 30*time.Second, "interval of progress lines")
	verify := fs.String("verify", "", "verify this table file")
	probe := fs.String("probe", "", "probe this table file")
	text := fs.String("pos", lion.StartText, "position to probe")
	testset := fs.String("testset", "", "write the oracle's test set (internal/liondata) made with this table file to stdout")
	seed := fs.Uint64("seed", liondata.DefaultGen.Seed, "-testset: the seed of its games")
	heldOut := fs.Bool("heldout", false, "-testset: the held-out set instead (internal/liondata/heldout.txt: seed 2, none of the test set's positions)")
	cliflag.Usage(fs, "tabula liontb -out FILE [-material C,G,E] | tabula liontb -verify FILE | tabula liontb -probe FILE [-pos TEXT] | tabula liontb -testset FILE [-seed S | -heldout]",
		"Builds, verifies and probes the Catch the Lion tablebase (docs/lion-tablebase.md).", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var checks cliflag.Checks
	checks.Int("workers", *workers, 0, math.MaxInt) // 0: one per core
	checks.Duration("progress", *every, 0)          // 0: every 10 s
	if err := checks.Err(); err != nil {
		return err
	}
	switch {
	case *out != "":
		return build(ctx, stderr, *out, *material, *workers, *every)
	case *verify != "":
		return verifyFile(stdout, *verify)
	case *probe != "":
		return probeFile(stdout, *probe, *text)
	case *testset != "":
		o := liondata.DefaultGen
		o.Seed = *seed
		if *heldOut {
			o = liondata.HeldOutGen()
		}
		return writeTestSet(ctx, stdout, *testset, o)
	}
	return errors.New("nothing to do: give -out, -verify, -probe or -testset (tabula liontb -h)")
}

func build(ctx context.Context, log io.Writer, path, material string, workers int, every time.Duration) error {
	var m tablebase.Material
	if _, err := fmt.Sscanf(material, "%d,%d,%d", &m.Chicks, &m.Giraffes, &m.Elephants); err != nil {
		return fmt.Errorf("-material %q: want chicks,giraffes,elephants: %w", material, err)
	}
	// Minutes of building are not spent on a path that cannot be written:
	// a file renamed over a device or a FIFO would replace it.
	if err := atomicfile.CheckTarget(path); err != nil {
		return err
	}
	t, err := tablebase.Build(ctx, m, tablebase.Options{Workers: workers, Progress: log, Every: every})
	if err != nil {
		return err
	}
	if err := atomicfile.CheckTarget(path); err != nil {
		return err
	}
	if err := t.WriteFile(path); err != nil {
		return err
	}
	fmt.Fprintf(log, "liontb: wrote %s\n", path)
	return nil
}

func verifyFile(out io.Writer, path string) error {
	t, err := tablebase.Open(path)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := t.Verify(); err != nil {
		return err
	}
	s := t.Stats()
	fmt.Fprintf(out, "%s: checksum ok; material %v, %d entries\n", path, s.Material, s.Entries)
	fmt.Fprintf(out, "positions (side to move fixed): %d: %d wins (%d in 0 plies), %d losses, %d draws\n",
		s.Positions, s.Wins, s.Wins0, s.Losses, s.Draws)
	fmt.Fprintf(out, "longest win %d plies, longest loss %d plies\n", s.LongestWin, s.LongestLoss)
	return nil
}

func probeFile(out io.Writer, path, text string) error {
	t, err := tablebase.Open(path)
	if err != nil {
		return err
	}
	defer t.Close()
	p, err := lion.Parse(text, game.Options{lion.OptTryRule: lion.TrySafe})
	if err != nil {
		return err
	}
	moves, r, err := t.BestMoves(p, nil)
	if err != nil {
		return err
	}
	names := make([]string, len(moves))
	for i, m := range moves {
		names[i] = lion.FormatMove(m)
	}
	fmt.Fprintf(out, "%s: %v for the side to move; optimal moves: %s\n", text, r, strings.Join(names, " "))
	return nil
}

func writeTestSet(ctx context.Context, out io.Writer, path string, o liondata.GenOptions) error {
	t, err := tablebase.Open(path)
	if err != nil {
		return err
	}
	defer t.Close()
	lines, err := liondata.Generate(ctx, t, o)
	if err != nil {
		return err
	}
	return liondata.Write(out, liondata.Header(o, len(lines)), lines)
}
