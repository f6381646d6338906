package uci

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// A go sent while a search runs waits for it; the stop and isready sent
// behind it must still be answered: stop ends the running search (which
// has neither been stopped nor answered), the queued go then runs, and
// isready does not wait for a search to end. Before, stop queued behind
// the waiting go and isready behind both, and nothing came until quit.
func TestStopAndIsReadyWhileGoWaits(t *testing.T) {
	for _, proto := range []string{"", "ucci\n"} {
		l := startLive(t, context.Background(), WithSearcher(&fakeSearcher{}))
		if proto != "" {
			// The count game refuses ucci; go, stop and bestmove stay UCI.
			l.send(t, proto)
		}
		l.send(t, "go infinite\ngo depth 2\nstop\nisready\n")
		l.out.waitForCount(t, "bestmove", 2)
		l.out.waitFor(t, "readyok\n")
		l.send(t, "quit\n")
		if err := l.result(t); err != nil {
			t.Fatalf("Run = %v", err)
		}
	}
}

// isready is answered while a go waits behind a running search, before
// either ends: a queued go is no work readyok waits for.
func TestIsReadyBeforeWaitingGoRuns(t *testing.T) {
	l := startLive(t, context.Background(), WithSearcher(&fakeSearcher{}))
	l.send(t, "go infinite\nposition startpos moves 1\ngo depth 2\nisready\n")
	l.out.waitFor(t, "readyok\n")
	if out := l.out.String(); strings.Contains(out, "bestmove") {
		t.Errorf("a search ended before the stop:\n%s", out)
	}
	// A queued setoption is work: isready waits for it.
	l.send(t, "setoption name Goal value 12\nisready\n")
	l.send(t, "stop\n")
	l.out.waitForCount(t, "readyok", 2)
	l.send(t, "d\nquit\n")
	if err := l.result(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	out := l.out.String()
	if i, j := strings.Index(out, "bestmove"), strings.LastIndex(out, "readyok"); i < 0 || j < i {
		t.Errorf("the second isready was answered before the queued setoption ran:\n%s", out)
	}
	if !strings.Contains(out, "Goal=12") {
		t.Errorf("the queued setoption did not run:\n%s", out)
	}
}

// stuckSearcher ignores its context: it returns only when release is
// closed, as a searcher spinning in a broken evaluator would.
type stuckSearcher struct {
	started chan struct{}
	release chan struct{}
}

func newStuckSearcher(t *testing.T) *stuckSearcher {
	s := &stuckSearcher{started: make(chan struct{}, 8), release: make(chan struct{})}
	t.Cleanup(func() { close(s.release) })
	return s
}

func (s *stuckSearcher) Search(ctx context.Context, p game.Position, lim Limits, info func(string)) (SearchResult, error) {
	s.started <- struct{}{}
	<-s.release
	return SearchResult{}, errors.New("released")
}

// shortGrace makes the engine give up on a stuck search quickly.
func shortGrace(t *testing.T) {
	old := quitGrace
	quitGrace = 20 * time.Millisecond
	t.Cleanup(func() { quitGrace = old })
}

// quit, the end of the input and the end of Run's context end the engine
// even when the searcher never returns. Before, Run waited for it for
// good.
func TestQuitEndsAStuckSearch(t *testing.T) {
	shortGrace(t)
	for _, end := range []string{"quit\n", "eof", "cancel"} {
		s := newStuckSearcher(t)
		ctx, cancel := context.WithCancel(context.Background())
		l := startLive(t, ctx, WithSearcher(s))
		l.send(t, "go depth 9\n")
		<-s.started
		switch end {
		case "eof":
			l.in.Close()
		case "cancel":
			cancel()
		default:
			l.send(t, end)
		}
		err := l.result(t)
		cancel()
		if end == "cancel" {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Run = %v, want context.Canceled", end, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: Run = %v", end, err)
		}
		if out := l.out.String(); !strings.Contains(out, "info string error: the search did not stop") {
			t.Errorf("%s: the abandoned search is not reported:\n%s", end, out)
		}
	}
}
