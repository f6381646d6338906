package engine

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tabula-zero/tabula/uci"
)

// ucciLine matches every line the engine may write in UCCI mode.
var ucciLine = regexp.MustCompile(`^(|id (name|author) .*|option \S+ type (check|button|spin|combo|string)( .*)?|ucciok|readyok|bye|nobestmove|` +
	`bestmove [a-i]\d[a-i]\d( ponder [a-i]\d[a-i]\d)?|` +
	`info (depth \d+( score -?\d+)?( pv( [a-i]\d[a-i]\d)+)?|time \d+( nodes \d+)?|nodes \d+|currmove [a-i]\d[a-i]\d|message( .*)?)|` +
	`Variant: .*|Options: .*|Fen: .*|Key: [0-9A-F]{16}|Side to move: .*|Status: .*|[a-i]\d[a-i]\d: \d+|Nodes searched: \d+)$`)

// hashOption matches the hash size option under any name and case: the
// fuzzer must not ask for a 64 GiB table.
var hashOption = regexp.MustCompile(`(?i)hash`)

// FuzzUCCI runs arbitrary commands after `ucci` on the engine with the real
// searcher: Run must not panic, must end at the end of the input (or at
// the deadline, promptly) and must write only well-formed UCCI lines.
func FuzzUCCI(f *testing.F) {
	for _, s := range []string{
		"isready\nsetoption usemillisec false\nposition startpos moves h2e2 h9g7\ngo depth 2\n",
		"position fen 3k5/R8/9/9/9/9/9/9/9/R3K4 w - - 0 1\ngo depth 3\nposition fen 3k5/R8/9/9/9/9/9/9/9/R3K4 w - - 0 1 moves a8a9\ngo depth 2\n",
		"banmoves h2e2 b0c2 zz\ngo time 100 increment 0 opptime 100 oppincrement 0\nbanmoves\ngo nodes 500\n",
		"go infinite\nisready\nstop\nstop\ngo depth 0\nponderhit draw\n",
		"setoption Mover mcts\ngo depth 1\nsetoption Mover abzero\ngo draw depth 1\nsetoption Network /\ngo movetime 10\n",
		"setoption newgame\nuccinewgame\nsetoption PlyCap 2\nposition startpos moves h2e2 h9g7 h0g2\nd\ngo depth 1\n",
		"setoption Algorithm mtdf\nsetoption MultiPV 3\ngo depth 2\nsetoption name Algorithm value negacstar\ngo depth 1\n",
		"go perft 2\nposition startpos moves H2-E2\nd\ngo ponder time 5\ngo time x\nbye\ngo depth 1\n",
		"position fen 9/9/9/9/9/9/9/9/9/9 w\nposition fen\nposition startpos moves\ngo depth 99999\nquit\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		data = hashOption.ReplaceAllString(data, "hush")
		out := &syncWriter{}
		s := New()
		if err := s.SetSearchOption(optHash, "1"); err != nil {
			t.Fatal(err)
		}
		e, err := uci.NewEngine(strings.NewReader("ucci\n"+data), out, uci.WithMaxLineBytes(300), uci.WithSearcher(s))
		if err != nil {
			t.Fatal(err)
		}
		const deadline = time.Second
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- e.Run(ctx) }()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Run = %v", err)
			}
		case <-time.After(deadline + 10*time.Second):
			t.Fatalf("Run hangs on %q", data)
		}
		text := out.String()
		if !strings.HasSuffix(text, "\n") {
			t.Fatalf("output does not end with a line break: %q", text)
		}
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if !utf8.ValidString(l) || strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f }) || !ucciLine.MatchString(l) {
				t.Fatalf("input %q: unexpected output line %q", data, l)
			}
		}
	})
}

// syncWriter collects output written while Run and its search run.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
