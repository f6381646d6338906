package c4solver

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/internal/ponsdata"
)

// long reports whether the whole-set tiers run (TABULA_LONG=1).
func long() bool { return os.Getenv("TABULA_LONG") == "1" }

type testPos struct {
	line  int
	moves string
	pos   *connect4.Position
	score int
}

// loadSet reads Pons' set name, keeping every step-th line (from the
// first).
func loadSet(tb testing.TB, name string, step int) []testPos {
	tb.Helper()
	f, err := ponsdata.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []testPos
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if (line-1)%step != 0 {
			continue
		}
		moves, score, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			tb.Fatalf("%s:%d: no score", name, line)
		}
		v, err := strconv.Atoi(score)
		if err != nil {
			tb.Fatalf("%s:%d: %v", name, line, err)
		}
		p, err := connect4.Parse(moves)
		if err != nil {
			tb.Fatalf("%s:%d: %v", name, line, err)
		}
		out = append(out, testPos{line, moves, p, v})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
