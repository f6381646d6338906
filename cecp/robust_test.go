package cecp_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/cecp"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// session is an engine on pipes with the end of its Run observable.
type session struct {
	*peer
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, s uci.Searcher) *session {
	t.Helper()
	p, cancel, done := launch(t, s)
	ss := &session{peer: p, cancel: cancel, done: done}
	ss.send(t, "xboard", "protover 2")
	ss.until(t, 10*time.Second, func(l string) bool { return l == "feature done=1" })
	return ss
}

// result waits for Run to return; generous, to fail rather than hang.
func (s *session) result(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

// lines reads the lines up to and including the one equal to last.
func (s *session) lines(t *testing.T, last string) []string {
	t.Helper()
	var got []string
	s.until(t, 30*time.Second, func(l string) bool {
		got = append(got, l)
		return l == last
	})
	return got
}

// optionSearcher searches until its context ends and records whether an
// option was set while it searched.
type optionSearcher struct {
	mu        sync.Mutex
	searching bool
	during    []string // options set during a search
	set       []string // every option set, in order
}

func (s *optionSearcher) Search(ctx context.Context, p game.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	s.mu.Lock()
	s.searching = true
	s.mu.Unlock()
	<-ctx.Done()
	s.mu.Lock()
	s.searching = false
	s.mu.Unlock()
	return uci.SearchResult{Best: p.GenerateMoves(nil)[0]}, nil
}

func (s *optionSearcher) SearchOptions() []game.Option {
	return []game.Option{{Name: "Network", Default: ""}, {Name: "Threads", Default: "1", Min: 1, Max: 64}}
}

func (s *optionSearcher) SetSearchOption(name, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.set = append(s.set, name+"="+value)
	if s.searching {
		s.during = append(s.during, name+"="+value)
	}
	if value == "bad" {
		return errors.New("bad value")
	}
	return nil
}

// An option sent during a search waits for it to end, as in UCI (the
// searcher's network is not replaced under a running search), and a ping
// behind it waits too; they then apply in order. Before, the option was
// applied at once, and a Network change under a four-thread search hung
// the engine for good.
func TestOptionsWaitForTheSearch(t *testing.T) {
	s := &optionSearcher{}
	e := start(t, s)
	e.send(t, "new", "level 0 60 0", "time 600000", "otim 600000", "usermove h2e2", "option Network=xiangqi", "option Threads=bad", "ping 1", "option Threads=4")
	e.send(t, "?")
	got := e.lines(t, "pong 1")
	if len(got) != 3 || !strings.HasPrefix(got[0], "move ") || got[1] != "Error (bad value): refused" {
		t.Errorf("after ?: %q, want the move, the refused option, then pong 1", got)
	}
	e.send(t, "ping 2")
	e.lines(t, "pong 2")
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.during) > 0 {
		t.Errorf("options set during the search: %q", s.during)
	}
	if want := "Network=xiangqi Threads=bad Threads=4"; strings.Join(s.set, " ") != want {
		t.Errorf("options set %q, want %s", s.set, want)
	}
}

// A deferred option applies before the command that ends the search
// without its move (new, force, setboard...), and before the next go.
func TestDeferredOptionsBeforeTheNextCommand(t *testing.T) {
	s := &optionSearcher{}
	e := start(t, s)
	e.send(t, "new", "level 0 60 0", "usermove h2e2", "option Network=a", "force", "ping 1")
	e.lines(t, "pong 1")
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.during) > 0 || strings.Join(s.set, " ") != "Network=a" {
		t.Errorf("set %q, during the search %q", s.set, s.during)
	}
}

// stuckSearcher ignores its context, as a search spinning on a closed
// evaluator did.
type stuckSearcher struct {
	started chan struct{}
	release chan struct{}
}

func newStuck(t *testing.T) *stuckSearcher {
	s := &stuckSearcher{started: make(chan struct{}, 8), release: make(chan struct{})}
	t.Cleanup(func() { close(s.release) })
	return s
}

func (s *stuckSearcher) Search(ctx context.Context, p game.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	s.started <- struct{}{}
	<-s.release
	return uci.SearchResult{}, errors.New("released")
}

// No search can keep the engine from quitting: quit, the end of the
// input and the end of Run's context (SIGTERM in tabula engine) end Run
// even when the searcher never returns, and a command that stops the
// search (new, ?) gives up on it after a grace so that quit is read.
// Before, Run waited in the search's stop for good.
func TestQuitEndsAStuckSearch(t *testing.T) {
	defer cecp.SetQuitGrace(20 * time.Millisecond)()
	for _, end := range [][]string{{"quit"}, {"new", "quit"}, {"?", "ping 1", "quit"}, {"eof"}, {"cancel"}} {
		s := newStuck(t)
		e := start(t, s)
		e.send(t, "new", "st 1000", "go")
		<-s.started
		switch end[0] {
		case "eof":
			e.in.Close()
		case "cancel":
			e.cancel()
		default:
			e.send(t, end...)
		}
		err := e.result(t)
		if end[0] == "cancel" {
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%q: Run = %v, want context.Canceled", end, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: Run = %v", end, err)
		}
	}
}

// A line over the limit is skipped with an error line, and the engine
// goes on. Before, a line over 1 MiB ended the engine.
func TestLongLineSkipped(t *testing.T) {
	e := start(t, &optionSearcher{})
	go io.WriteString(e.in, "ping "+strings.Repeat("9", cecp.MaxLineBytes+10)+"\nping 1\n")
	got := e.lines(t, "pong 1")
	if want := "Error (line longer than 1048576 bytes): skipped"; len(got) != 2 || got[0] != want {
		t.Errorf("got %q, want %q then pong 1", got, want)
	}
}

// Time controls that are not finite or beyond any game are refused with
// an error line and leave the previous one. Before, st nan, st inf,
// st 1e300 and level 0 5 nan were taken and searched without limit.
func TestTimeControlsBounded(t *testing.T) {
	s := &slowSearcher{}
	e := start(t, s)
	bad := []string{"st nan", "st NaN", "st inf", "st -inf", "st +Inf", "st 1e300", "st 0", "st -1", "st 1e10",
		"level 0 5 nan", "level 0 5 inf", "level 0 5 -1", "level 0 5 1e300", "level 0 99999999999 0", "level 0 9223372036854775807:0 0",
		"level 0 1:99999999999 0", "level 99999999 5 0", "time 99999999999999", "otim -99999999999999", "sd 99999999"}
	e.send(t, "new", "st 0.5")
	e.send(t, bad...)
	e.send(t, "ping 1")
	got := e.lines(t, "pong 1")
	if len(got) != len(bad)+1 {
		t.Fatalf("got %q for %q", got, bad)
	}
	for i, l := range got[:len(bad)] {
		cmd, arg, _ := strings.Cut(bad[i], " ")
		if !strings.HasPrefix(l, "Error (") || !strings.Contains(l, cmd) || !strings.Contains(l, arg) {
			t.Errorf("%q answered %q", bad[i], l)
		}
	}
	// st 0.5 still holds: the searcher is given it (less the overhead)
	// and the move comes.
	e.send(t, "usermove h2e2")
	e.until(t, 30*time.Second, isPrefix("move "))
	if got, want := s.limits().MoveTime, 500*time.Millisecond-uci.DefaultMoveOverhead; got != want {
		t.Errorf("movetime %v, want %v", got, want)
	}
}

// Input quoted back in an error line has its control characters escaped,
// so that it neither breaks the line nor reaches the GUI's terminal as an
// escape sequence; long input is cut.
func TestEchoEscaped(t *testing.T) {
	e := start(t, &optionSearcher{})
	e.send(t, "frob\x1b[31mnicate\x07\r\x85", "variant \x00\x7f\xff", "usermove a\u2028b", "ping \x01", "frob"+strings.Repeat("x", 5000), "ping 9")
	got := e.lines(t, "pong 9")
	want := []string{
		`Error (unknown command): frob\x1b[31mnicate\x07\x0d\x85`,
		`Error (unsupported variant): \x00\x7f\xff`,
		`Illegal move: a\u2028b`,
		`pong \x01`,
	}
	if len(got) != 6 {
		t.Fatalf("got %q", got)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("line %d: %q, want %q", i, got[i], w)
		}
	}
	if l := got[4]; len(l) > 300 || !strings.HasSuffix(l, "...") {
		t.Errorf("a long command echoed as %d bytes: %.80q...", len(l), l)
	}
}
