// Command liontb builds, checks and queries the Catch the Lion tablebase
// (package game/lion/tablebase; docs/lion-tablebase.md).
//
//	liontb -out lion.tb                  build the full game (about 250 MB)
//	liontb -out sub.tb -material 1,1,0   a sub-game: chicks, giraffes, elephants
//	liontb -verify lion.tb               check the file's checksum, print its counts
//	liontb -probe lion.tb [-pos TEXT]    value and optimal moves of a position (default the start)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/lion"
	"github.com/tabula-zero/tabula/game/lion/tablebase"
)

func main() {
	out := flag.String("out", "", "build the table into this file")
	material := flag.String("material", "2,2,2", "chicks,giraffes,elephants in play (0-2 each); 2,2,2 is the game")
	workers := flag.Int("workers", runtime.NumCPU(), "goroutines building")
	every := flag.Duration("progress", 30*time.Second, "interval of progress lines")
	verify := flag.String("verify", "", "verify this table file")
	probe := flag.String("probe", "", "probe this table file")
	text := flag.String("pos", lion.StartText, "position to probe")
	flag.Parse()
	var err error
	switch {
	case *out != "":
		err = build(*out, *material, *workers, *every)
	case *verify != "":
		err = verifyFile(*verify)
	case *probe != "":
		err = probeFile(*probe, *text)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "liontb:", err)
		os.Exit(1)
	}
}

func build(path, material string, workers int, every time.Duration) error {
	var m tablebase.Material
	if _, err := fmt.Sscanf(material, "%d,%d,%d", &m.Chicks, &m.Giraffes, &m.Elephants); err != nil {
		return fmt.Errorf("-material %q: want chicks,giraffes,elephants: %w", material, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	t, err := tablebase.Build(ctx, m, tablebase.Options{Workers: workers, Progress: os.Stderr, Every: every})
	if err != nil {
		return err
	}
	if err := t.WriteFile(path); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "liontb: wrote %s\n", path)
	return nil
}

func verifyFile(path string) error {
	t, err := tablebase.Open(path)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := t.Verify(); err != nil {
		return err
	}
	s := t.Stats()
	fmt.Printf("%s: checksum ok; material %v, %d entries\n", path, s.Material, s.Entries)
	fmt.Printf("positions (side to move fixed): %d: %d wins (%d in 0 plies), %d losses, %d draws\n",
		s.Positions, s.Wins, s.Wins0, s.Losses, s.Draws)
	fmt.Printf("longest win %d plies, longest loss %d plies\n", s.LongestWin, s.LongestLoss)
	return nil
}

func probeFile(path, text string) error {
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
	fmt.Printf("%s: %v for the side to move; optimal moves: %s\n", text, r, strings.Join(names, " "))
	return nil
}
