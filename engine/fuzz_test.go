package engine

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/uci"
	"github.com/tabula-zero/tabula/uci/ucitest"
)

// ucciLine matches every line the engine may write in UCCI mode.
var ucciLine = regexp.MustCompile(`^(|id (name|author) .*|option \S+ type (check|button|spin|combo|string)( .*)?|ucciok|readyok|bye|nobestmove|` +
	`bestmove [a-i]\d[a-i]\d( ponder [a-i]\d[a-i]\d)?|` +
	`info (depth \d+( score -?\d+)?( pv( [a-i]\d[a-i]\d)+)?|time \d+( nodes \d+)?|nodes \d+|currmove [a-i]\d[a-i]\d|message( .*)?)|` +
	`Variant: .*|Options: .*|Fen: .*|Key: [0-9A-F]{16}|Side to move: .*|Status: .*|[a-i]\d[a-i]\d: \d+|Nodes searched: \d+|` +
	`[ \d]\d  [.A-Za-z ]+|    [~ ]+|    [a-z ]+|[.XO ]+|[1-7 ]+|.* to move|hands: .*)$`)

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
		// The probe's: a go queued behind a running search, then stop and
		// isready; options sent during a search; a Tablebase that is no file.
		"go infinite\ngo depth 2\nstop\nisready\n",
		"setoption Mover mcts\nsetoption threads 4\ngo infinite\nsetoption Network xiangqi\nisready\nstop\nbye\n",
		"setoption Tablebase /dev/stdin\nsetoption Tablebase /dev/null\nsetoption Tablebase /\nisready\n",
		"setoption threads 64\ngo movetime 100\ngo time nan\ngo time 1e300\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		data = hashOption.ReplaceAllString(data, "hush")
		out := &ucitest.Output{}
		s := New()
		if err := s.SetSearchOption(optHash, "1"); err != nil {
			t.Fatal(err)
		}
		e, err := uci.NewEngine(strings.NewReader("ucci\n"+data), out, uci.WithMaxLineBytes(300), uci.WithSearcher(s))
		if err != nil {
			t.Fatal(err)
		}
		ucitest.RunBounded(t, e.Run, time.Second, 10*time.Second, data)
		text := out.String()
		if !strings.Contains(text, "ucciok\n") {
			t.Fatalf("input %q: no ucciok in %q", data, text)
		}
		ucitest.CheckLines(t, text, ucciLine, data)
	})
}
