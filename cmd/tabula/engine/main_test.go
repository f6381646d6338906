package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/internal/cliflag/cliflagtest"
)

func TestPerftFlag(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-variant", "lion", "-rules", "TryRule=immediate", "-perft", "4"}, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	// Published count for Catch the Lion, immediate try rule, depth 4.
	if !strings.Contains(out.String(), "Nodes searched: 898\n") {
		t.Fatalf("output:\n%s", out.String())
	}
	out.Reset()
	if err := run(t.Context(), []string{"-variant", "connect4", "-fen", "4453", "-perft", "1"}, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Nodes searched: 7\n") {
		t.Fatalf("output:\n%s", out.String())
	}
}

func TestSolveFlag(t *testing.T) {
	// Three of Pons' L3 lines; the last with a wrong score (his is 0).
	in := "2252576253462244111563365343671351441 -1\n7422341735647741166133573473242566 1\n23163416124767223154467471272416755633 5\n"
	var out bytes.Buffer
	if err := run(t.Context(), []string{"-variant", "connect4", "-solve", "-", "-hash", "16"}, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "2252576253462244111563365343671351441 -1 ") {
		t.Fatalf("output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "23163416124767223154467471272416755633 0 ") || !strings.Contains(out.String(), "1 mismatches (lines 3)") {
		t.Fatalf("the wrong score is not reported:\n%s", out.String())
	}
}

func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-variant", "chess", "-perft", "1"},
		{"-rules", "TryRule", "-perft", "1"},
		{"-variant", "lion", "-rules", "TryRule=never", "-perft", "1"},
		{"-variant", "xiangqi", "-fen", "9/9 w", "-perft", "1"},
		{"stray"},
		{"-variant", "xiangqi", "-solve", "x"},
		{"-variant", "connect4", "-solve", "/nonexistent"},
	} {
		var out bytes.Buffer
		if err := run(t.Context(), args, strings.NewReader(""), &out); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	// Once ignored (-perft -1 started the engine) or out of memory: now
	// refused up front, naming the flag and its range.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-perft", "-1"}, "-perft -1: want 0 to 20"},
		{[]string{"-perft", "21"}, "-perft 21: want 0 to 20"},
		{[]string{"-variant", "connect4", "-solve", "-", "-hash", "100000000"}, "-hash 100000000: want 1 to 4096"},
		{[]string{"-variant", "connect4", "-solve", "-", "-hash", "-5"}, "-hash -5: want 1 to 4096"},
	} {
		var out bytes.Buffer
		if err := run(t.Context(), c.args, strings.NewReader(""), &out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}

// -h is help, not an error (the command exits 0), and says what matters.
func TestHelp(t *testing.T) {
	var b bytes.Buffer
	err := run(t.Context(), []string{"-h"}, strings.NewReader(""), &b)
	text := b.String()
	cliflagtest.Help(t, err, text, "speaks UCI on stdin", "UCCI", "-solve FILE")
}
