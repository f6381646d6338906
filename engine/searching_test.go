package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/uci"
)

// running reports whether s has a search running.
func (s *Searcher) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.searching
}

// While a search runs, its network, evaluator and tables are not closed
// or replaced under it: options, the game and a new game are refused
// (the protocols apply them between searches), and the search still ends
// at its stop. Before, setting Network closed the evaluator's helpers
// under a four-thread search, which then waited for them for good.
func TestOptionsRefusedDuringSearch(t *testing.T) {
	s := moverSearcher(t, moverMCTS, tinyNetwork(t))
	if err := s.SetSearchOption(optThreads, "4"); err != nil {
		t.Fatal(err)
	}
	other := tinyNetwork(t)
	p := xiangqiStart(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Search(ctx, p.Clone(), uci.Limits{Infinite: true}, func(string) {})
		done <- err
	}()
	for deadline := time.Now().Add(time.Minute); !s.running(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the search did not start")
		}
	}
	for _, o := range [][2]string{{optNetwork, other}, {optNetwork, ""}, {optPrecision, "fp32"}, {optThreads, "1"}, {optMover, moverAB}, {optEval, evalLearned}, {optEvalFile, other}} {
		if err := s.SetSearchOption(o[0], o[1]); !errors.Is(err, ErrSearching) {
			t.Errorf("option %s=%s during a search: %v, want %v", o[0], o[1], err, ErrSearching)
		}
	}
	if err := s.SetGame("connect4"); !errors.Is(err, ErrSearching) {
		t.Errorf("SetGame during a search: %v, want %v", err, ErrSearching)
	}
	if _, err := s.Search(ctx, p.Clone(), uci.Limits{Nodes: 1}, func(string) {}); !errors.Is(err, ErrSearching) {
		t.Errorf("a second search at once: %v, want %v", err, ErrSearching)
	}
	s.NewGame() // ignored
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("search: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the search did not end at its stop")
	}
	// Between searches the options apply again.
	if err := s.SetSearchOption(optNetwork, other); err != nil {
		t.Fatal(err)
	}
	if m, _ := search(t, context.Background(), s, p, uci.Limits{Nodes: 20}); m == 0 {
		t.Error("no move after the change")
	}
}

// UCCI and UCI with the real searcher: a go sent while an infinite search
// runs waits; the stop behind it ends the running search, the waiting go
// then runs, and isready is answered. Before, stop and isready queued
// behind the waiting go and nothing came until quit.
func TestStopAndIsReadyWhileGoWaits(t *testing.T) {
	for _, proto := range []string{"ucci", "uci"} {
		s := startSession(t)
		s.send(t, proto, "setoption name Hash value 1", "go infinite", "go depth 2", "stop", "isready")
		// readyok and the two searches' moves, in any order.
		var got []string
		for !slices.Contains(got, "readyok") || moves(got) < 2 {
			got = append(got, s.until(t, "readyok", "bestmove")...)
		}
		quit := "quit"
		if proto == "ucci" {
			quit = "bye"
		}
		s.send(t, quit)
		if err := <-s.done; err != nil {
			t.Errorf("%s: %v", proto, err)
		}
	}
}

// moves counts the bestmove lines.
func moves(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "bestmove ") {
			n++
		}
	}
	return n
}
