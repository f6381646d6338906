package main

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/cliflag/cliflagtest"
	"github.com/tabula-zero/tabula/uci"
)

func TestPerftFlag(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-variant", "lion", "-rules", "TryRule=immediate", "-perft", "4"}, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	// Published count for Catch the Lion, immediate try rule, depth 4.
	if !strings.Contains(out.String(), "Nodes searched: 898\n") {
		t.Fatalf("output:\n%s", out.String())
	}
	out.Reset()
	if err := run([]string{"-variant", "connect4", "-fen", "4453", "-perft", "1"}, strings.NewReader(""), &out); err != nil {
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
	if err := run([]string{"-variant", "connect4", "-solve", "-", "-hash", "16"}, strings.NewReader(in), &out); err != nil {
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
		if err := run(args, strings.NewReader(""), &out); err == nil {
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
		if err := run(c.args, strings.NewReader(""), &out); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}

// untilBestmove runs the engine on input and returns its output up to the
// first bestmove. Input stays open until then: end of input stops a search.
func untilBestmove(t *testing.T, input string) *strings.Builder {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(nil, inR, outW); outW.Close() }()
	go io.WriteString(inW, input)
	var text strings.Builder
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		text.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "bestmove") {
			break
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return &text
}

// TestSearchTranscript drives the real engine with the alpha-beta searcher.
// Input stays open until bestmove arrives: end of input stops a search.
func TestSearchTranscript(t *testing.T) {
	text := untilBestmove(t, "setoption name UCI_Variant value xiangqi\n"+
		"position fen 3k5/R8/9/9/9/9/9/9/9/R3K4 w\n"+
		"go depth 3\n")
	if !strings.Contains(text.String(), "score mate 1") {
		t.Fatalf("no mate in one found:\n%s", text.String())
	}
	// The best move must end the game: Black has no legal move after it.
	g, _ := game.Lookup("xiangqi")
	p, err := g.Parse("3k5/R8/9/9/9/9/9/9/9/R3K4 w", nil)
	if err != nil {
		t.Fatal(err)
	}
	best := strings.Fields(text.String()[strings.LastIndex(text.String(), "bestmove"):])[1]
	if err := game.Play(p, best); err != nil || p.Status().Result != game.Loss {
		t.Fatalf("bestmove %s does not mate: %v %+v", best, err, p.Status())
	}
}

func TestSearchOptions(t *testing.T) {
	s := newSearcher()
	for _, o := range s.SearchOptions() {
		if slices.Contains(s.StringOptions(), o.Name) {
			continue // free text, not checked
		}
		if err := o.Check(o.Default); err != nil {
			t.Errorf("default of %s rejected: %v", o.Name, err)
		}
	}
	if err := s.SetSearchOption(optAlgorithm, "mtdf"); err != nil || s.opts.Algorithm != "mtdf" {
		t.Fatalf("Algorithm: %v", err)
	}
	g, _ := game.Lookup("connect4")
	p, _ := g.New(nil)
	res, err := s.Search(t.Context(), p, uci.Limits{Depth: 4}, func(string) {})
	if err != nil || !game.IsLegal(p, res.Best) {
		t.Fatalf("mtdf search: %v %v", res.Best, err)
	}
}

func TestMoveTime(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		lim  uci.Limits
		want time.Duration
	}{
		{uci.Limits{MoveTime: 500 * ms}, 500 * ms},
		{uci.Limits{}, 0},
		{uci.Limits{Time: [2]time.Duration{30 * time.Second, 0}}, time.Second - 20*ms},
		{uci.Limits{Time: [2]time.Duration{0, 10 * time.Second}, MovesToGo: 1}, 5*time.Second - 20*ms},
		// A given clock at zero: move at once; without a clock, no limit.
		{uci.Limits{Clocked: [2]bool{true, true}}, minMoveTime},
		{uci.Limits{Inc: [2]time.Duration{100 * ms, 0}, Clocked: [2]bool{true, false}}, minMoveTime},
		{uci.Limits{Inc: [2]time.Duration{100 * ms, 0}}, 0},
	} {
		us := game.First
		if c.lim.Time[1] > 0 {
			us = game.Second
		}
		if got := moveTime(c.lim, us); got != c.want {
			t.Errorf("%+v: %v, want %v", c.lim, got, c.want)
		}
	}
}

// -h is help, not an error (the command exits 0), and says what matters.
func TestHelp(t *testing.T) {
	var b bytes.Buffer
	err := run([]string{"-h"}, strings.NewReader(""), &b)
	text := b.String()
	cliflagtest.Help(t, err, text, "speaks UCI on stdin", "UCCI", "-solve FILE")
}
