package cecp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/cecp"
	"github.com/tabula-zero/tabula/engine"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/uci"
)

const fsfPath = "/usr/games/fairy-stockfish"

// peer is one side of a CECP conversation: commands in, lines out.
type peer struct {
	name  string
	in    io.WriteCloser
	lines chan string
}

func newPeer(name string, in io.WriteCloser, out io.Reader) *peer {
	p := &peer{name: name, in: in, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p
}

func (p *peer) send(t *testing.T, cmds ...string) {
	t.Helper()
	for _, c := range cmds {
		if _, err := io.WriteString(p.in, c+"\n"); err != nil {
			t.Fatalf("%s: write %q: %v", p.name, c, err)
		}
	}
}

// until reads lines until one satisfies ok, failing after timeout.
func (p *peer) until(t *testing.T, timeout time.Duration, ok func(string) bool) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, open := <-p.lines:
			if !open {
				t.Fatalf("%s: output ended", p.name)
			}
			if ok(l) {
				return l
			}
		case <-deadline:
			t.Fatalf("%s: no expected line within %v", p.name, timeout)
		}
	}
}

// ours starts the engine in-process with the real searcher.
func ours(t *testing.T) *peer {
	t.Helper()
	return oursWith(t, engine.New())
}

// oursWith starts the engine in-process with searcher s.
func oursWith(t *testing.T, s uci.Searcher) *peer {
	t.Helper()
	p, cancel, done := launch(t, s)
	t.Cleanup(func() {
		cancel()
		p.in.Close()
		if err := <-done; err != nil && err != context.Canceled {
			t.Errorf("Run: %v", err)
		}
	})
	return p
}

// launch runs the engine in-process with searcher s on pipes: its peer,
// the cancel of Run's context and Run's result. When the test ends Run is
// cancelled and its input closed.
func launch(t *testing.T, s uci.Searcher) (*peer, context.CancelFunc, chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	e, err := cecp.New(inR, outW, s, "tabula")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx); outW.Close() }()
	t.Cleanup(func() { cancel(); inW.Close() })
	return newPeer("tabula", inW, outR), cancel, done
}

func isPrefix(prefix string) func(string) bool {
	return func(l string) bool { return strings.HasPrefix(l, prefix) }
}

// The handshake, the commands that answer, and refusals with reasons.
func TestCommands(t *testing.T) {
	e := ours(t)
	e.send(t, "xboard", "protover 2")
	f := e.until(t, 5*time.Second, isPrefix("feature ping=1"))
	for _, want := range []string{"setboard=1", "usermove=1", `myname="tabula"`, `variants="xiangqi"`} {
		if !strings.Contains(f, want) {
			t.Errorf("features %q lack %s", f, want)
		}
	}
	e.until(t, 5*time.Second, func(l string) bool { return l == "feature done=1" })
	e.send(t, "new", "variant xiangqi", "force", "usermove h2e2", "usermove h2e2", "ping 1")
	if l := e.until(t, 5*time.Second, func(l string) bool { return l != "" }); l != "Illegal move: h2e2" {
		t.Errorf("a second h2e2 (no cannon there now) answered %q", l)
	}
	e.until(t, 5*time.Second, func(l string) bool { return l == "pong 1" })
	e.send(t, "variant chess", "sd x", "level 40 x 0", "setboard 9/9 w", "frobnicate", "ping 2")
	for _, want := range []string{"Error (unsupported variant): chess", "Error (bad sd): x", "Error (level", "Error (setboard", "Error (unknown command): frobnicate", "pong 2"} {
		if l := e.until(t, 5*time.Second, func(string) bool { return true }); !strings.HasPrefix(l, want) {
			t.Errorf("got %q, want %q...", l, want)
		}
	}
	// setboard with xboard's letters (H horse, E elephant): after undoing
	// nothing is left; then the engine moves from the given position
	// within the depth asked for, on its side (Black here).
	e.send(t, "new", "variant xiangqi", "force", "undo", "setboard rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR b - - 0 1", "sd 2", "go")
	if l := e.until(t, 5*time.Second, func(l string) bool { return l != "" && (l[0] < '0' || l[0] > '9') }); !strings.HasPrefix(l, "Error (no move to undo)") {
		t.Errorf("undo at the start answered %q", l)
	}
	mv := strings.TrimPrefix(e.until(t, 10*time.Second, isPrefix("move ")), "move ")
	g, _ := game.Lookup("xiangqi")
	p, _ := g.Parse("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", game.Options{"Notation": "iccs"})
	if _, err := p.ParseMove(mv); err != nil {
		t.Errorf("move %s from the set board: %v", mv, err)
	}
	// ? plays at once: an unbounded search (a long clock) answers it.
	e.send(t, "new", "variant xiangqi", "level 0 60 0", "time 600000", "otim 600000", "usermove h2e2")
	time.Sleep(200 * time.Millisecond)
	e.send(t, "?")
	e.until(t, 5*time.Second, isPrefix("move "))
}

// A game against Fairy-Stockfish, both speaking CECP through a referee
// that passes each move on: every move either sends is legal by our rules
// and accepted by the other, so the two agree on xboard's coordinates, and
// a game that ends is announced by our engine with the result our rules
// give.
func TestGameAgainstFairyStockfish(t *testing.T) {
	if _, err := os.Stat(fsfPath); err != nil {
		t.Skipf("%s not installed (apt install fairy-stockfish): %v", fsfPath, err)
	}
	cmd := exec.Command(fsfPath)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	fsf, tab := newPeer("fairy-stockfish", stdin, stdout), ours(t)
	for _, p := range []*peer{fsf, tab} {
		p.send(t, "xboard", "protover 2")
		p.until(t, 10*time.Second, func(l string) bool { return strings.Contains(l, "done=1") })
		p.send(t, "new", "variant xiangqi", "st 1")
	}
	fsf.send(t, "sd 4")
	tab.send(t, "sd 3")
	g, _ := game.Lookup("xiangqi")
	rules, _ := g.Resolve(game.Options{"Notation": "iccs"})
	pos, _ := g.New(rules)
	fsf.send(t, "go") // Fairy-Stockfish plays Red, we play Black
	mover, other := fsf, tab
	const maxPlies = 400
	for ply := 0; ply < maxPlies; ply++ {
		l := mover.until(t, 30*time.Second, func(l string) bool {
			return strings.HasPrefix(l, "move ") || strings.HasPrefix(l, "Illegal") || strings.HasPrefix(l, "Error") ||
				strings.HasPrefix(l, "1-0") || strings.HasPrefix(l, "0-1") || strings.HasPrefix(l, "1/2-1/2")
		})
		if !strings.HasPrefix(l, "move ") {
			if st := pos.Status(); !st.Over() {
				t.Fatalf("ply %d: %s says %q in %s", ply, mover.name, l, pos)
			}
			break
		}
		mv := strings.TrimPrefix(l, "move ")
		m, err := pos.ParseMove(mv)
		if err != nil {
			t.Fatalf("ply %d: %s played %s, illegal here (%s): %v", ply, mover.name, mv, pos, err)
		}
		pos.Make(m)
		other.send(t, "usermove "+mv)
		if st := pos.Status(); st.Over() {
			if other == tab || mover == tab {
				// Our engine announces the end after its own move or the
				// opponent's.
				res := tab.until(t, 5*time.Second, func(l string) bool {
					return strings.HasPrefix(l, "1-0") || strings.HasPrefix(l, "0-1") || strings.HasPrefix(l, "1/2-1/2") || strings.HasPrefix(l, "Illegal")
				})
				t.Logf("game over after %d plies: %s (%s)", ply+1, res, st.Reason)
				if !strings.Contains(res, st.Reason) {
					t.Errorf("announced %q, the rules say %s", res, st.Reason)
				}
			}
			return
		}
		mover, other = other, mover
	}
	t.Logf("%d plies played without a disagreement: %s", maxPlies, pos)
}

// A rejected setboard leaves no board: go, usermove, playother and undo
// answer an error (never a move for the board before), until new or a
// valid setboard.
func TestRejectedSetboardLeavesNoPosition(t *testing.T) {
	e := ours(t)
	e.send(t, "xboard", "protover 2")
	e.until(t, 5*time.Second, func(l string) bool { return l == "feature done=1" })
	e.send(t, "new", "variant xiangqi", "sd 1", "force", "usermove h2e2",
		"setboard rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w - - 0 1",
		"go", "usermove h7e7", "playother", "undo", "ping 1")
	var got []string
	for {
		l := e.until(t, 10*time.Second, func(l string) bool { return l != "" })
		if l == "pong 1" {
			break
		}
		got = append(got, l)
	}
	if len(got) != 5 || !strings.HasPrefix(got[0], "Error (setboard: ") {
		t.Fatalf("after a bad setboard: %q", got)
	}
	for i, cmd := range []string{"go", "usermove h7e7", "playother", "undo"} {
		if l := got[i+1]; !strings.HasPrefix(l, "Error (no position: the last setboard was rejected: setboard: ") || !strings.HasSuffix(l, "): "+cmd) {
			t.Errorf("%s without a board answered %q", cmd, l)
		}
	}
	// A valid setboard brings play back: the move is for that board.
	const fen = "3k5/R8/9/9/9/9/9/9/9/R3K4 w - - 0 1"
	e.send(t, "setboard "+fen, "go")
	mv := strings.TrimPrefix(e.until(t, 10*time.Second, func(l string) bool { return l != "" && (l[0] < '0' || l[0] > '9') }), "move ")
	g, _ := game.Lookup("xiangqi")
	p, _ := g.Parse(fen, game.Options{"Notation": "iccs"})
	if err := game.Play(p, mv); err != nil {
		t.Errorf("move %q after a valid setboard: %v", mv, err)
	}
	// So does new.
	e.send(t, "setboard 9/9 w", "new", "usermove h2e2")
	if l := e.until(t, 10*time.Second, func(l string) bool { return l != "" && (l[0] < '0' || l[0] > '9') }); !strings.HasPrefix(l, "Error (setboard") {
		t.Fatalf("bad setboard answered %q", l)
	}
	mv = strings.TrimPrefix(e.until(t, 10*time.Second, func(l string) bool { return l != "" && (l[0] < '0' || l[0] > '9') }), "move ")
	p, _ = g.New(game.Options{"Notation": "iccs"})
	if err := game.Play(p, "h2e2", mv); err != nil {
		t.Errorf("move %q after new: %v", mv, err)
	}
}

// slowSearcher ignores its limits and searches until its context ends,
// then plays the first legal move; it records the limits it was given.
type slowSearcher struct {
	mu  sync.Mutex
	lim uci.Limits
}

func (s *slowSearcher) Search(ctx context.Context, p game.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	s.mu.Lock()
	s.lim = lim
	s.mu.Unlock()
	<-ctx.Done()
	return uci.SearchResult{Best: p.GenerateMoves(nil)[0]}, nil
}

func (s *slowSearcher) limits() uci.Limits {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lim
}

// xboard's st and clocks are hard limits: the move comes before them,
// less MoveOverhead (an option feature), even from a searcher that
// ignores its limits; and the searcher is given the limits less the
// overhead.
func TestTimeLimitsKept(t *testing.T) {
	s := &slowSearcher{}
	e := oursWith(t, s)
	e.send(t, "xboard", "protover 2")
	const feature = `feature option="MoveOverhead -spin 50 0 5000"`
	e.until(t, 5*time.Second, func(l string) bool { return l == feature })
	e.until(t, 5*time.Second, func(l string) bool { return l == "feature done=1" })
	isMove := func(l string) bool { return strings.HasPrefix(l, "move ") || strings.HasPrefix(l, "Error") }

	// st 1: one second a move, all of it hard.
	e.send(t, "new", "variant xiangqi", "st 1", "ping 1")
	e.until(t, 5*time.Second, func(l string) bool { return l == "pong 1" })
	start := time.Now()
	e.send(t, "usermove h2e2")
	if l := e.until(t, 5*time.Second, isMove); !strings.HasPrefix(l, "move ") {
		t.Fatalf("st 1: %q", l)
	}
	if took := time.Since(start); took >= time.Second || took < time.Second-uci.DefaultMoveOverhead {
		t.Errorf("st 1: the move came after %v, want in [%v, 1s)", took, time.Second-uci.DefaultMoveOverhead)
	}
	if got, want := s.limits(), (uci.Limits{MoveTime: time.Second - uci.DefaultMoveOverhead}); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("st 1: searcher given %+v, want %+v", got, want)
	}

	// A clock of 600 ms (time is in centiseconds) with MoveOverhead 200:
	// the searcher plans on 400 ms and the move comes within them.
	e.send(t, "option MoveOverhead=-3", "option MoveOverhead=200", "new", "variant xiangqi", "level 0 1 0", "time 60", "otim 6000", "ping 2")
	if l := e.until(t, 5*time.Second, func(string) bool { return true }); l != "Error (option MoveOverhead: value -3 is outside [0, 5000]): refused" {
		t.Errorf("option MoveOverhead=-3 answered %q", l)
	}
	e.until(t, 5*time.Second, func(l string) bool { return l == "pong 2" })
	start = time.Now()
	e.send(t, "usermove h2e2")
	if l := e.until(t, 5*time.Second, isMove); !strings.HasPrefix(l, "move ") {
		t.Fatalf("level 0 1 0, time 60: %q", l)
	}
	if took := time.Since(start); took >= 600*time.Millisecond || took < 400*time.Millisecond {
		t.Errorf("time 60: the move came after %v, want in [400ms, 600ms)", took)
	}
	want := uci.Limits{Time: [2]time.Duration{60 * time.Second, 400 * time.Millisecond}, Clocked: [2]bool{true, true}}
	if got := s.limits(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("time 60: searcher given %+v, want %+v", got, want)
	}
}

// option Network loads the network at once: a file that is none, or a
// network of another game than Xiangqi, is reported then.
func TestNetworkOptionChecked(t *testing.T) {
	e := ours(t)
	e.send(t, "xboard", "protover 2")
	e.until(t, 5*time.Second, func(l string) bool { return l == "feature done=1" })
	c4 := testnet.Checkpoint(t, t.TempDir(), "connect4", 1)
	xq := testnet.Checkpoint(t, t.TempDir(), "xiangqi", 1)
	e.send(t, "option Network=/no/such/file", "option Network="+c4, "option Network="+xq, "ping 1")
	for _, want := range []string{"Error (option Network: rundir: stat /no/such/file: ", "Error (option Network: " + c4 + " is a connect4 network and the variant is xiangqi", "pong 1"} {
		if l := e.until(t, 10*time.Second, func(string) bool { return true }); !strings.HasPrefix(l, want) {
			t.Errorf("got %q, want %q...", l, want)
		}
	}
}
