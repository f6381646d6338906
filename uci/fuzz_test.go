package uci

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci/ucitest"
)

// outputLine matches every line the engine may write.
var outputLine = regexp.MustCompile(`^(|id (name|author) .*|option (name )?.*|uciok|ucciok|bye|readyok|info .*|bestmove \S+( ponder \S+)?|nobestmove|Variant: .*|Options: .*|Fen: .*|Key: [0-9A-F]{16}|Side to move: .*|Status: .*|\d+: \d+|Nodes searched: \d+|` +
	`[ \d]\d  [.A-Za-z ]+|    [~ ]+|    [a-z ]+|[.XO ]+|[1-7 ]+|.* to move|hands: .*)$`)

// FuzzEngine feeds arbitrary command text to an engine with a searcher:
// Run must not panic, must return nil at the end of the input (or the
// context's error when a long perft outlives the deadline, promptly), and
// must write only well-formed lines. Each line also goes through the UCCI
// parsers (go arguments, info translation); whole UCCI sessions need real
// Xiangqi and are fuzzed in package engine (FuzzUCCI).
func FuzzEngine(f *testing.F) {
	for _, s := range []string{
		"uci\nisready\nucinewgame\nquit\n",
		"position startpos moves 1 2\ngo perft 3\nd\n",
		"position fen 3 b moves 1 2\nd\ngo depth 2\n",
		"setoption name UCI_Variant value tally\nsetoption name Goal value 6\ngo perft 5\n",
		"setoption name Steps value long\nposition startpos moves 3 3 3\ngo perft 4\n",
		"setoption name Goal value\nsetoption name\nsetoption\nposition fen\nposition\ngo perft\ngo perft -3\n",
		"go infinite\nisready\nstop\n",
		"go searchmoves 1 wtime -1 btime 20 winc 1 binc 1 movestogo 3 movetime 1 nodes 5 mate 1\n",
		"go perft 2\nposition startpos moves 9\nd\nquit\nd\n",
		"\x00\xff\r\n\u2028 \x85\n" + strings.Repeat("z", 300) + "\nisready",
		// UCCI: refused on the counting games; its words then mean nothing.
		"ucci\nsetoption usemillisec false\nbanmoves 1\ngo time 300 increment 2 opptime 5 oppincrement 1\nstop\nbye\n",
		"ucci\ngo draw depth infinite\ngo depth 0\ngo time -5 movestogo 3 oppmovestogo 2\nquit\n",
		"depth 6 seldepth 9 score mate -3 upperbound nodes 5 nps 1 time 17 hashfull 0 multipv 1 currmove 2 pv 1 2\n",
		"string x\ndepth\nscore cp\nscore mate 99999999999999999999\nmultipv\ntime x\n",
		// ucciInfo once prefixed "info depth 0 " to a line already clipped.
		"pv " + strings.Repeat("y", 1200) + "\n",
		"string " + strings.Repeat("\u00e9", 700) + "\n",
		// A go queued behind a running search, then stop and isready.
		"go infinite\ngo depth 2\nstop\nisready\n",
		"go infinite\ngo depth 2\nisready\nsetoption name Goal value 3\nisready\nstop\nstop\nquit\n",
		"go perft 9\ngo infinite\nstop\nstop\nisready\ngo depth 1\nstop\nquit\n",
		// A first line longer than the limit, control characters.
		strings.Repeat("a", 300) + "\nisready\n\x1b[31m\x07\x85\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		for i, line := range strings.Split(data, "\n") {
			parseUCCILimits(strings.Fields(line), game.Color(i&1), i&2 == 0)
			for _, l := range ucciInfo(oneLine(line), i&1 == 0) {
				if !strings.HasPrefix(l, "info ") || l != oneLine(l) {
					t.Fatalf("ucciInfo(%q) wrote %q", line, l)
				}
			}
		}
		out := &ucitest.Output{}
		e, err := NewEngine(strings.NewReader(data), out, WithVariant("count"), WithMaxLineBytes(200), WithSearcher(&fakeSearcher{}))
		if err != nil {
			t.Fatal(err)
		}
		// A perft deep in the long count game legitimately takes hours;
		// cancellation must still end it at once.
		ucitest.RunBounded(t, e.Run, time.Second, 5*time.Second, data)
		ucitest.CheckLines(t, out.String(), outputLine, data)
	})
}
