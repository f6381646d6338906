package c4solver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestSolveFile(t *testing.T) {
	in := strings.Join([]string{
		"2252576253462244111563365343671351441 -1", // L3_R1, right
		"67152117737262713366376314254 6",          // L3_R1, right
		"",                                         // blank: skipped
		"23163416124767223154467471272416755633 5", // wrong: Pons says 0
		"445566",            // no score: just solved (18)
		"  4455661   -17  ", // spaces around
	}, "\n") + "\n"
	var out bytes.Buffer
	sum, err := SolveFile(context.Background(), strings.NewReader(in), &out, Fastest, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Positions != 5 || sum.Scored != 4 || sum.Mismatches != 1 ||
		len(sum.Mismatched) != 1 || sum.Mismatched[0] != 4 || sum.Algorithm != Fastest {
		t.Errorf("summary %+v", sum)
	}
	if sum.Nodes == 0 || sum.MeanNodes() != float64(sum.Nodes)/5 {
		t.Errorf("nodes %d, mean %v", sum.Nodes, sum.MeanNodes())
	}
	if s := sum.String(); !strings.Contains(s, "1 mismatches (lines 4)") || !strings.Contains(s, "5 positions") {
		t.Errorf("String() = %q", s)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{"2252576253462244111563365343671351441 -1", "67152117737262713366376314254 6",
		"23163416124767223154467471272416755633 0", "445566 18", "4455661 -17"}
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s", out.String())
	}
	var nodes uint64
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 4 || f[0]+" "+f[1] != want[i] {
			t.Errorf("output line %d: %q, want %q <nodes> <µs>", i+1, l, want[i])
			continue
		}
		n, err1 := strconv.ParseUint(f[2], 10, 64)
		_, err2 := strconv.ParseUint(f[3], 10, 64)
		if err1 != nil || err2 != nil || (n == 0) != (i == 3) { // an immediate win takes no node
			t.Errorf("output line %d: %q", i+1, l)
		}
		nodes += n
	}
	if nodes != sum.Nodes {
		t.Errorf("lines sum to %d nodes, summary says %d", nodes, sum.Nodes)
	}
}

func TestSolveFileErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"445566 18\n4458 3\n", "c4solver: line 2: "},             // 8 is no column
		{"445566 18\n\n445 x\n", "c4solver: line 3: score \"x\""}, // not a number
		{"4 1 2 3\n", "c4solver: line 1: 4 fields"},
		{"4455667 0\n44556677 0\n", "c4solver: line 2: "}, // a move after the four
		{"1111111 0\n", "c4solver: line 1: "},             // full column
	} {
		var out bytes.Buffer
		sum, err := SolveFile(context.Background(), strings.NewReader(c.in), &out, Fastest, 1)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want prefix %q", c.in, err, c.want)
		}
		// The lines before the bad one are solved and written.
		if got := strings.Count(out.String(), "\n"); got != sum.Positions {
			t.Errorf("%q: %d output lines, %d positions", c.in, got, sum.Positions)
		}
	}
	if _, err := SolveFile(context.Background(), strings.NewReader(""), &bytes.Buffer{}, "nope", 1); err == nil ||
		!strings.HasPrefix(err.Error(), "c4solver: unknown algorithm") {
		t.Errorf("unknown algorithm: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := SolveFile(ctx, strings.NewReader("\n\n"+"3 0\n"), &bytes.Buffer{}, Fastest, 1)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "c4solver: line 3: ") {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := SolveFile(context.Background(), strings.NewReader("445566 18\n"), failWriter{}, Fastest, 1); err == nil ||
		!strings.HasPrefix(err.Error(), "c4solver: ") {
		t.Errorf("write error: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

func TestSummaryEmpty(t *testing.T) {
	var s Summary
	if s.MeanNodes() != 0 || s.MeanTime() != 0 {
		t.Error("empty summary has means")
	}
	s = Summary{Positions: 200, Mismatches: 150, Mismatched: make([]int, maxMismatched)}
	if !strings.Contains(s.String(), ", ...)") {
		t.Errorf("String() = %q", s.String())
	}
}
