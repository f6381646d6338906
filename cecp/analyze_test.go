package cecp_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/engine"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// thinkingLine reads a CECP thinking line, ply score time nodes pv; ok
// is false for any other line.
func thinkingLine(l string) (pv []string, ok bool) {
	f := strings.Fields(l)
	if len(f) < 5 {
		return nil, false
	}
	for _, n := range f[:4] {
		if _, err := strconv.ParseInt(n, 10, 64); err != nil {
			return nil, false
		}
	}
	return f[4:], true
}

func xiangqiPosition(t *testing.T, fen string) game.Position {
	t.Helper()
	g, err := game.Lookup("xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.Parse(fen, game.Options{"Notation": "iccs"})
	if err != nil {
		t.Fatalf("%s: %v", fen, err)
	}
	return p
}

const (
	startFEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
	afterH2  = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
	rookMate = "3k5/R8/9/9/9/9/9/9/9/R3K4 w - - 0 1"
)

// analysisSearcher records each search it is given (the position, and
// whether without limit). Without limit it writes one info line, its PV
// the position's first legal move, and searches until stopped; with a
// limit it plays the first legal move at once.
type analysisSearcher struct{ searched chan string }

func (s *analysisSearcher) Search(ctx context.Context, p game.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	s.searched <- fmt.Sprintf("%s infinite=%v", p, lim.Infinite)
	first := p.GenerateMoves(nil)[0]
	if lim.Infinite {
		info("depth 1 score cp 7 time 0 nodes 1 pv " + p.FormatMove(first))
		<-ctx.Done()
	}
	return uci.SearchResult{Best: first}, nil
}

// analysing checks that the search started by the last command is of
// fen, without limit, and that its thinking line comes (whatever post
// says) while no move is played, up to the marker pong.
func analysing(t *testing.T, e *session, s *analysisSearcher, pong, fen string) {
	t.Helper()
	p := xiangqiPosition(t, fen)
	select {
	case got := <-s.searched:
		if want := p.String() + " infinite=true"; got != want {
			t.Fatalf("before %s: searched %q, want %q", pong, got, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("before %s: no search of %s", pong, fen)
	}
	want := "1 7 0 1 " + p.FormatMove(p.GenerateMoves(nil)[0])
	var ponged, thought bool
	e.until(t, 30*time.Second, func(l string) bool {
		switch {
		case l == pong:
			ponged = true
		case l == want:
			thought = true
		default:
			t.Errorf("analysing %s: %q (want only %q and %q)", fen, l, want, pong)
		}
		return ponged && thought
	})
}

// Analysis mode, driven as xboard drives it: analyze=1 is announced;
// analyze searches the position without limit and writes thinking output
// even after nopost; . answers stat01 with the root's legal move count;
// usermove, undo and setboard move the analysis to the new position, and
// no move is ever played, not even on ?; exit ends it, after which the
// engine plays only when asked.
func TestAnalysisMode(t *testing.T) {
	s := &analysisSearcher{searched: make(chan string, 16)}
	e := start(t, s)
	e.send(t, "protover 2")
	if f := e.until(t, 5*time.Second, isPrefix("feature ping=1")); !strings.Contains(f, " analyze=1 ") {
		t.Errorf("features %q do not offer analyze", f)
	}
	e.lines(t, "feature done=1")

	e.send(t, "new", "force", "nopost", "analyze", "ping 1")
	analysing(t, e, s, "pong 1", startFEN)
	e.send(t, ".", "ping 2")
	got := e.lines(t, "pong 2")
	legal := len(xiangqiPosition(t, startFEN).GenerateMoves(nil))
	if f := strings.Fields(got[0]); len(got) != 2 || f[0] != "stat01:" || len(f) != 6 || f[5] != strconv.Itoa(legal) {
		t.Errorf(". answered %q: want stat01: time nodes ply mvleft mvtot, mvtot %d", got, legal)
	}

	e.send(t, "usermove h2e2", "ping 3")
	analysing(t, e, s, "pong 3", afterH2)
	e.send(t, "undo", "ping 4")
	analysing(t, e, s, "pong 4", startFEN)
	e.send(t, "setboard "+rookMate, "ping 5")
	analysing(t, e, s, "pong 5", rookMate)
	e.send(t, "?", "ping 6")
	if got := e.lines(t, "pong 6"); len(got) != 1 {
		t.Errorf("? in analysis: %q, want only pong 6", got)
	}

	// exit: the analysis ends, and the engine plays neither side until
	// go, which searches the position (no search came between: the next
	// one recorded is go's) and plays a legal move of it.
	e.send(t, "exit", ".", "usermove a8a7", "ping 7")
	if got := e.lines(t, "pong 7"); len(got) != 1 {
		t.Errorf("after exit: %q, want only pong 7", got)
	}
	e.send(t, "undo", "go")
	mv := strings.TrimPrefix(e.until(t, 30*time.Second, func(string) bool { return true }), "move ")
	if got, want := <-s.searched, xiangqiPosition(t, rookMate).String()+" infinite=false"; got != want {
		t.Errorf("go after exit searched %q, want %q", got, want)
	}
	if err := game.Play(xiangqiPosition(t, rookMate), mv); err != nil {
		t.Errorf("go after exit answered %q: %v", mv, err)
	}
}

// With the real searcher, analysis of the start position writes thinking
// lines whose PVs are lines of the position, and stat01's node count and
// depth are those of the latest thinking line or beyond.
func TestAnalysisWithTheEngine(t *testing.T) {
	e := start(t, engine.New())
	e.send(t, "new", "analyze", "ping 1")
	for _, l := range e.lines(t, "pong 1") {
		if _, ok := thinkingLine(l); !ok && l != "pong 1" {
			t.Fatalf("analysing: %q", l)
		}
	}
	var last []string
	for range 3 {
		l := e.until(t, 30*time.Second, func(l string) bool { _, ok := thinkingLine(l); return ok })
		pv, _ := thinkingLine(l)
		if err := game.Play(xiangqiPosition(t, startFEN), pv...); err != nil {
			t.Errorf("thinking %q: its PV is not a line of the start: %v", l, err)
		}
		last = strings.Fields(l)
	}
	e.send(t, ".")
	st := strings.Fields(e.until(t, 10*time.Second, isPrefix("stat01: ")))
	depth, _ := strconv.Atoi(last[0])
	nodes, _ := strconv.ParseInt(last[3], 10, 64)
	stDepth, _ := strconv.Atoi(st[3])
	stNodes, _ := strconv.ParseInt(st[2], 10, 64)
	if len(st) != 6 || stDepth < depth || stNodes < nodes {
		t.Errorf("stat01 %q after thinking %q", st, last)
	}
	e.send(t, "exit", "quit")
	if err := e.result(t); err != nil {
		t.Errorf("Run: %v", err)
	}
}

// An option sent during analysis applies at once (the analysis, which
// never ends by itself, stops for it and starts again), where during a
// timed search it waits for the search's end; analysis of a finished
// game searches nothing and claims nothing.
func TestAnalysisOptionsAndEnd(t *testing.T) {
	s := &optionSearcher{}
	e := start(t, s)
	e.send(t, "new", "analyze", "option Threads=2", "ping 1")
	e.lines(t, "pong 1")
	s.mu.Lock()
	set, during := strings.Join(s.set, " "), s.during
	s.mu.Unlock()
	if set != "Threads=2" || len(during) > 0 {
		t.Errorf("options set %q, during a search %q", set, during)
	}
	// The analysis starts again under the option (its goroutine may not
	// have begun by pong: wait for it).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		searching := s.searching
		s.mu.Unlock()
		if searching {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the analysis did not start again after the option")
		}
	}
	// Black is mated (by the rules, checked here): nothing to analyse.
	const mated = "R2k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1"
	if !xiangqiPosition(t, mated).Status().Over() {
		t.Fatalf("%s is not over by the rules", mated)
	}
	e.send(t, "setboard "+mated, "ping 2")
	if got := e.lines(t, "pong 2"); len(got) != 1 {
		t.Errorf("analysing a finished game: %q, want nothing before pong", got)
	}
	s.mu.Lock()
	searching := s.searching
	s.mu.Unlock()
	if searching {
		t.Error("a finished game is being searched")
	}
}
