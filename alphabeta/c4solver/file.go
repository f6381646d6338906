package c4solver

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game/connect4"
)

// Summary describes a SolveFile run.
type Summary struct {
	Algorithm  string
	Positions  int           // positions solved
	Scored     int           // of which the input gave a score
	Mismatches int           // given scores that differ from the solver's
	Mismatched []int         // their line numbers (the first maxMismatched)
	Nodes      uint64        // total nodes
	Elapsed    time.Duration // total solve time (parsing and output excluded)
}

const maxMismatched = 100

// MeanNodes returns the mean number of nodes per position.
func (s Summary) MeanNodes() float64 {
	if s.Positions == 0 {
		return 0
	}
	return float64(s.Nodes) / float64(s.Positions)
}

// MeanTime returns the mean solve time per position.
func (s Summary) MeanTime() time.Duration {
	if s.Positions == 0 {
		return 0
	}
	return s.Elapsed / time.Duration(s.Positions)
}

// String is a one-line report, e.g. "negacstar-opt: 1000 positions, 1000
// scored, 0 mismatches, mean 1234.5 nodes, mean 56.789µs".
func (s Summary) String() string {
	m := fmt.Sprintf("%d mismatches", s.Mismatches)
	if s.Mismatches > 0 {
		lines := make([]string, len(s.Mismatched))
		for i, l := range s.Mismatched {
			lines[i] = strconv.Itoa(l)
		}
		m += " (lines " + strings.Join(lines, ", ")
		if s.Mismatches > len(s.Mismatched) {
			m += ", ..."
		}
		m += ")"
	}
	return fmt.Sprintf("%s: %d positions, %d scored, %s, mean %.1f nodes, mean %v",
		s.Algorithm, s.Positions, s.Scored, m, s.MeanNodes(), s.MeanTime())
}

// SolveFile solves every position of r, a file in Pons' test format: one
// position a line, `<moves> [score]`, moves the columns 1-7 played from
// the empty board (blank lines are skipped). For each it writes
// `<moves> <score> <nodes> <microseconds>` to w, starting every position
// with an empty transposition table (Pons' protocol), and counts the given
// scores the solver contradicts. A malformed line, a write error or the
// end of ctx stops it with an error (naming the line) and the summary so
// far.
func SolveFile(ctx context.Context, r io.Reader, w io.Writer, algo string, ttMiB int) (Summary, error) {
	sum := Summary{Algorithm: algo}
	s, err := New(algo, ttMiB)
	if err != nil {
		return sum, err
	}
	bw := bufio.NewWriter(w)
	sc := bufio.NewScanner(r)
	line := 0
	fail := func(err error) (Summary, error) {
		bw.Flush()
		return sum, err
	}
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) > 2 {
			return fail(fmt.Errorf("c4solver: line %d: %d fields, want `<moves> [score]`", line, len(fields)))
		}
		p, err := connect4.Parse(fields[0])
		if err != nil {
			return fail(fmt.Errorf("c4solver: line %d: %w", line, err))
		}
		want, scored := 0, len(fields) == 2
		if scored {
			if want, err = strconv.Atoi(fields[1]); err != nil {
				return fail(fmt.Errorf("c4solver: line %d: score %q is not an integer", line, fields[1]))
			}
		}
		s.Reset()
		start := time.Now()
		v, err := s.SolveContext(ctx, p)
		el := time.Since(start)
		if err != nil {
			return fail(fmt.Errorf("c4solver: line %d: %w", line, context.Cause(ctx)))
		}
		sum.Positions++
		sum.Nodes += s.Nodes()
		sum.Elapsed += el
		if scored {
			sum.Scored++
			if v != want {
				sum.Mismatches++
				if len(sum.Mismatched) < maxMismatched {
					sum.Mismatched = append(sum.Mismatched, line)
				}
			}
		}
		if _, err := fmt.Fprintf(bw, "%s %d %d %d\n", fields[0], v, s.Nodes(), el.Microseconds()); err != nil {
			return sum, fmt.Errorf("c4solver: line %d: write: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fail(fmt.Errorf("c4solver: after line %d: read: %w", line, err))
	}
	if err := bw.Flush(); err != nil {
		return sum, fmt.Errorf("c4solver: write: %w", err)
	}
	return sum, nil
}
