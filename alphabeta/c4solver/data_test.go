package c4solver

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game/connect4"
)

// Pons' test sets live in ../shared/data/connect4 next to the repository
// (TABULA_C4_DATA overrides the folder).
func dataDir() string {
	if d := os.Getenv("TABULA_C4_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "data", "connect4")
}

// long reports whether the whole-set tiers run (TABULA_LONG=1).
func long() bool { return os.Getenv("TABULA_LONG") == "1" }

type testPos struct {
	line  int
	moves string
	pos   *connect4.Position
	score int
}

// loadSet reads Pons' set name, keeping every step-th line (from the
// first); it skips the test when the data is missing.
func loadSet(tb testing.TB, name string, step int) []testPos {
	tb.Helper()
	path := filepath.Join(dataDir(), name)
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("Pons' test set not available (set TABULA_C4_DATA): %v", err)
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
