package uci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci/ucitest"
)

// transcript runs an engine on input (starting with the count game unless
// opts say otherwise) to the end and returns its output.
func transcript(t *testing.T, input string, opts ...EngineOption) string {
	t.Helper()
	var out bytes.Buffer
	e, err := NewEngine(strings.NewReader(input), &out, append([]EngineOption{WithVariant("count")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.Run(ctx); err != nil {
		t.Fatalf("Run(%q) = %v", input, err)
	}
	return out.String()
}

// check compares the transcript of each input with its expected output.
func check(t *testing.T, cases [][2]string, opts ...EngineOption) {
	t.Helper()
	for _, c := range cases {
		if got := transcript(t, c[0], opts...); got != c[1] {
			t.Errorf("input:\n%s\ngot:\n%s\nwant:\n%s", c[0], got, c[1])
		}
	}
}

// dump is the expected output of `d` in a counting game position given
// by its text, with the options line (empty for none) and status.
func dump(variant, options, text, status string) string {
	g, err := game.Lookup(variant)
	if err != nil {
		panic(err)
	}
	p, err := g.Parse(text, nil)
	if err != nil {
		panic(err)
	}
	side := "first"
	if strings.HasSuffix(text, " b") {
		side = "second"
	}
	s := "Variant: " + variant + "\n"
	if options != "" {
		s += "Options: " + options + "\n"
	}
	return s + fmt.Sprintf("Fen: %s\nKey: %016X\nSide to move: %s\nStatus: %s\n", text, p.Key(), side, status)
}

// countDump is dump for the count game with default options.
func countDump(text string) string { return dump("count", "Goal=10 Steps=short", text, "ongoing") }

func errLine(msg string) string { return "info string error: " + msg + "\n" }

func TestUCI(t *testing.T) {
	const head = "id name tabula\nid author tabula developers\n"
	check(t, [][2]string{{"uci\n", head +
		"option name UCI_Variant type combo default count var count var tally\n" +
		"option name Goal type spin default 10 min 1 max 40\n" +
		"option name Steps type combo default short var short var long\n" +
		"uciok\n"}})
	// The initial game's declaration of a shared option comes first.
	check(t, [][2]string{{"uci\n", head +
		"option name UCI_Variant type combo default tally var count var tally\n" +
		"option name Goal type spin default 5 min 1 max 6\n" +
		"option name Steps type combo default short var short var long\n" +
		"uciok\n"}}, WithVariant("tally"))
}

func TestIsReadyAndQuietCommands(t *testing.T) {
	check(t, [][2]string{
		{"isready\n", "readyok\n"},
		{"isready", "readyok\n"}, // no final line break
		{"isready\r\n\r\n", "readyok\n"},
		{"\n   \n\t\nisready extra words\n", "readyok\n"},
		{"debug on\nponderhit\nstop\nisready\n", "readyok\n"},
		{"isready\nquit\nisready\nd\n", "readyok\n"},
		{"", ""},
	})
}

func TestPosition(t *testing.T) {
	check(t, [][2]string{
		{"d\n", countDump("0 w")},
		{"position startpos\nd\n", countDump("0 w")},
		{"position startpos moves\nd\n", countDump("0 w")},
		{"position startpos moves 1 2 2\nd\n", countDump("5 b")},
		{"position fen 7 b\nd\n", countDump("7 b")},
		{"position   fen  7 \t b   moves 1\nd\n", countDump("8 w")},
		{"position fen 7 b moves 2 1\nd\n", dump("count", "Goal=10 Steps=short", "10 b", "loss (goal reached)")},
		{"position startpos moves 1\nucinewgame\nd\n", countDump("0 w")},
		// The position text may hold anything but the word "moves".
		{"position fen 3 w moves\nd\n", countDump("3 w")},
	})
}

// noPosition is the error of cmd after a position command rejected with
// msg.
func noPosition(cmd, msg string) string {
	return errLine(cmd + ": no position (the last one was rejected: " + msg + "); send a valid position or ucinewgame")
}

// A rejected position command leaves no position: d, go perft and go say
// so (go with bestmove (none), which the GUI waits for), and never work on
// the position before it.
func TestPositionErrorsLeaveNoPosition(t *testing.T) {
	const before = "position fen 3 b moves 1\n" // 4 w
	cases := []struct{ cmd, msg string }{
		{"position", `position: expected "startpos" or "fen"`},
		{"position somewhere", `position: expected "startpos" or "fen", got "somewhere"`},
		{"position moves 1", `position: expected "startpos" or "fen", got "moves"`},
		{"position fen", "position fen: missing position text"},
		{"position fen moves 1", "position fen: missing position text"},
		{"position fen 3", `position: count: position "3": want "<number> <w|b>"`},
		{"position fen 3 x", `position: count: position "3 x": bad side`},
		{"position fen 3 w b moves 1", `position: count: position "3 w b": want "<number> <w|b>"`},
		{"position startpos 1 2", `position: expected "moves", got "1"`},
		{"position startpos moves 1 3", `position: move 2 ("3"): count: illegal move "3"`},
		{"position startpos moves 2 2 2 2 2 1", `position: move 6 ("1"): count: illegal move "1"`},
		{"position fen 9 w moves 1 1", `position: move 2 ("1"): count: illegal move "1"`},
		{"position startpos moves " + strings.Repeat("9", 50), `position: move 1 ("9999999999999999999999999999999999999999"...): count: illegal move "` + strings.Repeat("9", 50) + `"`},
	}
	for _, c := range cases {
		got := transcript(t, before+c.cmd+"\nd\ngo perft 1\ngo depth 2\n", WithSearcher(&fakeSearcher{}))
		want := errLine(c.msg) + noPosition("d", c.msg) + noPosition("go perft", c.msg) + noPosition("go", c.msg) + "bestmove (none)\n"
		if got != want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.cmd, got, want)
		}
	}
	// A valid position, ucinewgame, or a variant or rule change (which
	// reset to the start) bring normal play back.
	const bad, msg = "position startpos moves 4453\n", `position: move 1 ("4453"): count: illegal move "4453"`
	const play = "info depth 1 score cp 0 pv with a line break\nbestmove 1 ponder 2\n"
	check(t, [][2]string{
		{bad + "go depth 2\nposition fen 7 b\ngo depth 2\n", errLine(msg) + noPosition("go", msg) + "bestmove (none)\n" + play},
		{bad + "ucinewgame\ngo depth 2\nd\n", errLine(msg) + play + countDump("0 w")},
		{bad + "setoption name Goal value 12\nd\n", errLine(msg) + dump("count", "Goal=12 Steps=short", "0 w", "ongoing")},
		{bad + "setoption name UCI_Variant value tally\nd\n", errLine(msg) + dump("tally", "Goal=5", "0 w", "ongoing")},
		// The search of a later go without a position is not the one of
		// the previous position: even searchmoves is not read.
		{"position startpos moves 1\n" + bad + "go searchmoves 2\n", errLine(msg) + noPosition("go", msg) + "bestmove (none)\n"},
	}, WithSearcher(&fakeSearcher{}))
}

func TestSetOption(t *testing.T) {
	check(t, [][2]string{
		{"setoption name Goal value 4\nd\n", dump("count", "Goal=4 Steps=short", "0 w", "ongoing")},
		{"setoption name goal value 7\nd\n", dump("count", "Goal=7 Steps=short", "0 w", "ongoing")},
		// A rule change resets the position.
		{"position startpos moves 1\nsetoption name Steps value long\nd\n", dump("count", "Goal=10 Steps=long", "0 w", "ongoing")},
		{"setoption name Steps value long\nposition startpos moves 3 3\nd\n", dump("count", "Goal=10 Steps=long", "6 w", "ongoing")},
		{"setoption name Goal value 2\nposition startpos moves 2\nd\n", dump("count", "Goal=2 Steps=short", "2 b", "loss (goal reached)")},
		// A variant switch resets the position, and rule options stay with
		// their game.
		{"position startpos moves 1\nsetoption name UCI_Variant value tally\nd\n", dump("tally", "Goal=5", "0 w", "ongoing")},
		{"setoption name uci_variant value TALLY\nd\n", dump("tally", "Goal=5", "0 w", "ongoing")},
		{"setoption name Steps value long\nsetoption name UCI_Variant value tally\nsetoption name UCI_Variant value count\nd\n",
			dump("count", "Goal=10 Steps=long", "0 w", "ongoing")},
		// An option applies to every game that accepts the value.
		{"setoption name Goal value 6\nsetoption name UCI_Variant value tally\nd\n", dump("tally", "Goal=6", "0 w", "ongoing")},
		{"setoption name Goal value 30\nsetoption name UCI_Variant value tally\nd\n", dump("tally", "Goal=5", "0 w", "ongoing")},
		// An option of another game is kept for it; the position stays.
		{"setoption name UCI_Variant value tally\nposition startpos moves 1\nsetoption name Steps value long\nd\nsetoption name UCI_Variant value count\nd\n",
			dump("tally", "Goal=5", "1 b", "ongoing") + dump("count", "Goal=10 Steps=long", "0 w", "ongoing")},
		// Option values may hold spaces (none of these games accepts one).
		{"setoption name Steps value very long\n", errLine(`setoption: count: option Steps: value "very long" is not one of short, long`)},
		{"setoption name UCI_Variant value tally\nsetoption name Steps value huge\n", errLine(`setoption: count: option Steps: value "huge" is not one of short, long`)},
		{"setoption name UCI_Variant value tally\nsetoption name Goal value 30\n", errLine(`setoption: tally: option Goal: value 30 is outside [1, 6]`)},
	})
}

func TestSetOptionErrorsKeepThePosition(t *testing.T) {
	const before = "position startpos moves 1\n" // 1 b
	cases := []struct{ cmd, msg string }{
		{"setoption", `setoption: expected "setoption name <option> value <value>"`},
		{"setoption Goal value 3", `setoption: expected "setoption name <option> value <value>"`},
		{"setoption name", "setoption: missing option name"},
		{"setoption name value 3", "setoption: missing option name"},
		{"setoption name Goal", `setoption: option "Goal" needs a value`},
		{"setoption name Goal value", `setoption: option "Goal" needs a value`},
		{"setoption name Goal value x", `setoption: count: option Goal: value "x" is not an integer`},
		{"setoption name Goal value 0", "setoption: count: option Goal: value 0 is outside [1, 40]"},
		{"setoption name Goal value 99999999999999999999", `setoption: count: option Goal: value "99999999999999999999" is not an integer`},
		{"setoption name Steps value medium", `setoption: count: option Steps: value "medium" is not one of short, long`},
		{"setoption name Hash value 16", `setoption: unknown option "Hash"`},
		{"setoption name UCI_Variant value chess", `setoption UCI_Variant: unknown variant "chess" (known: count, tally)`},
		{"setoption name UCI_Variant", `setoption: option "UCI_Variant" needs a value`},
	}
	for _, c := range cases {
		got := transcript(t, before+c.cmd+"\nd\n")
		if want := errLine(c.msg) + countDump("1 b"); got != want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.cmd, got, want)
		}
	}
}

// brute counts the leaves of the counting game's move tree to depth from
// n, independently of the game code.
func brute(n, goal, steps, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	if n >= goal {
		return 0
	}
	var sum uint64
	for k := 1; k <= steps; k++ {
		sum += brute(n+k, goal, steps, depth-1)
	}
	return sum
}

// perftOutput is the expected output of `go perft depth` from n.
func perftOutput(n, goal, steps, depth int) string {
	var b strings.Builder
	var total uint64
	if n < goal {
		for k := 1; k <= steps; k++ {
			c := brute(n+k, goal, steps, depth-1)
			total += c
			fmt.Fprintf(&b, "%d: %d\n", k, c)
		}
	}
	fmt.Fprintf(&b, "\nNodes searched: %d\n", total)
	return b.String()
}

func TestPerft(t *testing.T) {
	check(t, [][2]string{
		{"go perft 1\n", "1: 1\n2: 1\n\nNodes searched: 2\n"},
		{"go perft 2\n", "1: 2\n2: 2\n\nNodes searched: 4\n"},
		{"position fen 10 w\ngo perft 3\n", "\nNodes searched: 0\n"},
		// Commands after go perft wait for it.
		{"go perft 3\nd\nisready\n", perftOutput(0, 10, 2, 3) + countDump("0 w") + "readyok\n"},
		{"go perft 1\ngo perft 2\n", perftOutput(0, 10, 2, 1) + perftOutput(0, 10, 2, 2)},
	})

	// Totals derived by hand: every sequence of d moves of 1 or 2 whose
	// first d-1 moves sum to less than the goal. With goal 10 that is 2^d
	// up to d = 5, then 2 * (32 - 1) for d = 6 (only 2+2+2+2+2 stops).
	// In tally (goal 5), 4 of the 8 three-move prefixes sum to at most 4.
	for _, c := range []struct {
		variant string
		want    []uint64
	}{
		{"count", []uint64{2, 4, 8, 16, 32, 62}},
		{"tally", []uint64{2, 4, 8, 8}},
	} {
		for i, want := range c.want {
			out := transcript(t, fmt.Sprintf("go perft %d\n", i+1), WithVariant(c.variant))
			if suffix := fmt.Sprintf("\nNodes searched: %d\n", want); !strings.HasSuffix(out, suffix) {
				t.Errorf("%s perft %d: got\n%s\nwant total %d", c.variant, i+1, out, want)
			}
		}
	}

	// Against the brute force, deep enough to split (depth > perftSplit),
	// and against game.Divide.
	for _, c := range []struct {
		setup             string
		n, goal, steps, d int
	}{
		{"", 0, 10, 2, 12},
		{"position fen 3 b moves 1\n", 4, 10, 2, 9},
		{"setoption name Steps value long\nsetoption name Goal value 14\n", 0, 14, 3, 11},
		{"setoption name UCI_Variant value tally\nsetoption name Goal value 6\n", 0, 6, 2, 7},
	} {
		got := transcript(t, c.setup+fmt.Sprintf("go perft %d\n", c.d))
		if want := perftOutput(c.n, c.goal, c.steps, c.d); got != want {
			t.Errorf("%sgo perft %d:\ngot:\n%s\nwant:\n%s", c.setup, c.d, got, want)
		}
		var divide strings.Builder
		p := &countPos{rules: countRules{name: "x", goal: c.goal, steps: c.steps}, n: c.n}
		var total uint64
		for _, d := range game.Divide(p, c.d) {
			fmt.Fprintf(&divide, "%s: %d\n", d.Move, d.Count)
			total += d.Count
		}
		fmt.Fprintf(&divide, "\nNodes searched: %d\n", total)
		if got != divide.String() {
			t.Errorf("%sgo perft %d:\ngot:\n%s\ngame.Divide:\n%s", c.setup, c.d, got, divide.String())
		}
	}
}

func TestGoErrors(t *testing.T) {
	const depthRange = "is not an integer in [1, 20]"
	cases := []struct{ cmd, msg string }{
		{"go perft", "go perft: missing depth"},
		{"go perft x", `go perft: depth "x" ` + depthRange},
		{"go perft 0", `go perft: depth "0" ` + depthRange},
		{"go perft -1", `go perft: depth "-1" ` + depthRange},
		{"go perft 21", `go perft: depth "21" ` + depthRange},
		{"go perft 2.5", `go perft: depth "2.5" ` + depthRange},
		{"go perft 99999999999999999999", `go perft: depth "99999999999999999999" ` + depthRange},
		{"go perft 2 3", `go perft: unexpected "3" after the depth`},
		{"go", "search is not available yet"},
		{"go depth 3", "search is not available yet"},
		{"go infinite", "search is not available yet"},
		{"go depth 3 perft 2", "search is not available yet"},
	}
	for _, c := range cases {
		got := transcript(t, "position startpos moves 1\n"+c.cmd+"\nd\n")
		want := errLine(c.msg) + countDump("1 b")
		if !strings.Contains(c.cmd, "perft") || strings.Contains(c.cmd, "depth") {
			want = errLine(c.msg) + "bestmove (none)\n" + countDump("1 b") // a search's go: the GUI waits for bestmove
		}
		if got != want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.cmd, got, want)
		}
	}
}

func TestMalformedInput(t *testing.T) {
	long := strings.Repeat("x", 100)
	check(t, [][2]string{
		{"foo\nisready\n", errLine(`unknown command "foo"`) + "readyok\n"},
		{"Position startpos\n", errLine(`unknown command "Position"`)},
		{long + "\n", errLine(`unknown command "` + long[:40] + `"...`)},
		{"\x01\x02 isready\n", errLine(`unknown command "\x01\x02"`)},
		{"\xff\xfe\n", errLine(`unknown command "\xff\xfe"`)},
		{"uci\u200bisready\n", errLine(`unknown command "uci\u200bisready"`)},
		{"uci\u2028isready\n", "id name tabula\nid author tabula developers\n" +
			"option name UCI_Variant type combo default count var count var tally\n" +
			"option name Goal type spin default 10 min 1 max 40\n" +
			"option name Steps type combo default short var short var long\nuciok\n"},
	})
	// The line limit counts bytes without the line break.
	const limit = 16
	ok := "isready" + strings.Repeat(" ", limit-len("isready"))
	check(t, [][2]string{
		{ok + "\n" + ok + "\r\n" + ok, "readyok\nreadyok\nreadyok\n"},
		{ok + " \nisready\n", errLine("line longer than 16 bytes ignored") + "readyok\n"},
		{strings.Repeat("a", 100000) + "\nisready\n" + strings.Repeat("b", 100), errLine("line longer than 16 bytes ignored") + "readyok\n" + errLine("line longer than 16 bytes ignored")},
	}, WithMaxLineBytes(limit))
	// A megabyte line is skipped in bounded memory with the default limit.
	check(t, [][2]string{
		{strings.Repeat("go ", DefaultMaxLineBytes) + "\nisready\n", errLine("line longer than 1048576 bytes ignored") + "readyok\n"},
	})
}

func TestNewEngine(t *testing.T) {
	var out bytes.Buffer
	in := strings.NewReader("")
	for _, c := range []struct {
		in   io.Reader
		out  io.Writer
		opts []EngineOption
		msg  string
	}{
		{nil, &out, nil, "uci: NewEngine needs an input and an output"},
		{in, nil, nil, "uci: NewEngine needs an input and an output"},
		{in, &out, []EngineOption{WithVariant("chess")}, `uci: unknown variant "chess" (known: count, tally)`},
		{in, &out, []EngineOption{WithRuleOptions(game.Options{"Hash": "1"})}, `uci: count has no option "Hash"`},
		{in, &out, []EngineOption{WithRuleOptions(game.Options{"Goal": "99"})}, "uci: count: option Goal: value 99 is outside [1, 40]"},
		{in, &out, []EngineOption{WithVariant("tally"), WithRuleOptions(game.Options{"Steps": "long"})}, `uci: tally has no option "Steps"`},
		{in, &out, []EngineOption{WithMaxLineBytes(0)}, "uci: line limit 0 must be at least 1 byte"},
	} {
		_, err := NewEngine(c.in, c.out, c.opts...)
		if err == nil || err.Error() != c.msg {
			t.Errorf("NewEngine error %v, want %s", err, c.msg)
		}
	}
	// Without WithVariant: xiangqi when registered, else the first game.
	check(t, [][2]string{{"d\n", dump("count", "Goal=3 Steps=long", "0 w", "ongoing")}},
		WithVariant(""), nil, WithRuleOptions(game.Options{"goal": "3", "Steps": "long"}))
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestIOErrors(t *testing.T) {
	ctx := context.Background()
	e, err := NewEngine(strings.NewReader("isready\n"), errWriter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(ctx); err == nil || err.Error() != "uci: write output: disk full" {
		t.Errorf("Run with a failing writer = %v", err)
	}

	var out bytes.Buffer
	in := io.MultiReader(strings.NewReader("isready\n"), iotest.ErrReader(errors.New("disk on fire")))
	e, err = NewEngine(in, &out)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(ctx); err == nil || err.Error() != "uci: read input: disk on fire" {
		t.Errorf("Run with a failing reader = %v", err)
	}
	if out.String() != "readyok\n" {
		t.Errorf("output before the read error = %q", out.String())
	}
}

// syncBuffer is an output the test reads while the engine writes.
type syncBuffer struct{ ucitest.Output }

func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("output never contained %q; got:\n%s", want, s.String())
		}
		time.Sleep(time.Millisecond)
	}
}

// waitForCount waits until the output contains want n times.
func (s *syncBuffer) waitForCount(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(s.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("output never contained %q %d times; got:\n%s", want, n, clipTail(s.String()))
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// clipTail keeps the end of a long transcript for a failure message.
func clipTail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// live runs an engine on a pipe so the test can talk to it while it runs.
type live struct {
	in   *io.PipeWriter
	out  *syncBuffer
	done chan error
}

func startLive(t *testing.T, ctx context.Context, opts ...EngineOption) *live {
	t.Helper()
	r, w := io.Pipe()
	l := &live{in: w, out: &syncBuffer{}, done: make(chan error, 1)}
	e, err := NewEngine(r, l.out, append([]EngineOption{WithVariant("count")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	go func() { l.done <- e.Run(ctx) }()
	t.Cleanup(func() { w.Close() })
	return l
}

func (l *live) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(l.in, s); err != nil {
		t.Fatal(err)
	}
}

// result waits for Run to return.
func (l *live) result(t *testing.T) error {
	t.Helper()
	select {
	case err := <-l.done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

// bigPerft starts a perft that takes far longer than any test (3^19 leaves
// below each root move) and syncs with isready, which is answered while it
// runs.
const bigPerft = "setoption name Steps value long\nsetoption name Goal value 40\ngo perft 20\nisready\n"

func TestStopAndQueueDuringPerft(t *testing.T) {
	l := startLive(t, context.Background())
	l.send(t, bigPerft)
	l.out.waitFor(t, "readyok\n")
	// d and isready wait behind the perft; stop ends it; quit ends Run.
	l.send(t, "d\nisready\nstop\n")
	l.out.waitFor(t, "ongoing\nreadyok\n")
	l.send(t, "quit\n")
	if err := l.result(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := "readyok\ninfo string perft stopped\n" + dump("count", "Goal=40 Steps=long", "0 w", "ongoing") + "readyok\n"
	if got := l.out.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestQuitDuringPerft(t *testing.T) {
	l := startLive(t, context.Background())
	l.send(t, bigPerft)
	l.out.waitFor(t, "readyok\n")
	// quit waits behind the perft, like d; stop ends the perft.
	l.send(t, "d\nquit\nisready\n")
	time.Sleep(10 * time.Millisecond)
	if got := l.out.String(); got != "readyok\n" {
		t.Errorf("output before stop:\n%s", got)
	}
	l.send(t, "stop\n")
	if err := l.result(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := "readyok\ninfo string perft stopped\n" + dump("count", "Goal=40 Steps=long", "0 w", "ongoing")
	if got := l.out.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestQueueLimit(t *testing.T) {
	l := startLive(t, context.Background())
	l.send(t, bigPerft)
	l.out.waitFor(t, "readyok\n")
	// 16 MiB of queued input: "d" (65 bytes counted) and 15 lines of
	// 1 MiB (each counted 64 bytes more) fit, the next two do not.
	l.send(t, "d\n")
	big := "d" + strings.Repeat(" ", DefaultMaxLineBytes-1) + "\n"
	for range 17 {
		l.send(t, big)
	}
	dropped := errLine(`too much input while a job runs: "d" dropped`)
	l.out.waitFor(t, dropped+dropped)
	l.send(t, "stop\nquit\n")
	if err := l.result(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := "readyok\n" + dropped + dropped + "info string perft stopped\n" +
		strings.Repeat(dump("count", "Goal=40 Steps=long", "0 w", "ongoing"), 16)
	if got := l.out.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestQuitDuringSearch(t *testing.T) {
	l := startLive(t, context.Background(), WithSearcher(&fakeSearcher{block: true}))
	l.send(t, "go depth 9\nisready\n")
	l.out.waitFor(t, "readyok\n")
	// quit stops the search; the commands before it still run.
	l.send(t, "d\nquit\nd\n")
	if err := l.result(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := "readyok\ninfo depth 1 score cp 0 pv with a line break\nbestmove 1 ponder 2\n" + countDump("0 w")
	if got := l.out.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestCancelDuringPerft(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	l := startLive(t, ctx)
	l.send(t, bigPerft)
	l.out.waitFor(t, "readyok\n")
	cancel()
	if err := l.result(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if got, want := l.out.String(), "readyok\ninfo string perft stopped\n"; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestCancelWhileReading(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	l := startLive(t, ctx)
	l.send(t, "isready\n")
	l.out.waitFor(t, "readyok\n")
	cancel()
	if err := l.result(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	// A cancelled context stops Run before any command.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	e, err := NewEngine(strings.NewReader("isready\n"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestRunTwice(t *testing.T) {
	r, w := io.Pipe()
	out := &syncBuffer{}
	e, err := NewEngine(r, out)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.Run(context.Background()) }()
	io.WriteString(w, "isready\n")
	out.waitFor(t, "readyok\n")
	if err := e.Run(context.Background()); err == nil || err.Error() != "uci: Run is already running" {
		t.Errorf("second Run = %v", err)
	}
	w.Close()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
	// Run may run again once it has returned.
	e.in = strings.NewReader("position startpos moves 1\nd\n")
	if err := e.Run(context.Background()); err != nil {
		t.Errorf("Run = %v", err)
	}
}

// fakeSearcher plays the first legal move (or the first of searchmoves),
// expecting the second legal move as the reply; it records the limits.
type fakeSearcher struct {
	lim  Limits
	err  error
	move game.Move // returned instead when not NoMove
	// block waits for stop before returning.
	block bool
}

func (s *fakeSearcher) Search(ctx context.Context, p game.Position, lim Limits, info func(string)) (SearchResult, error) {
	s.lim = lim
	if s.block {
		<-ctx.Done()
	}
	if s.err != nil {
		return SearchResult{}, s.err
	}
	if s.move != game.NoMove {
		return SearchResult{Best: s.move}, nil
	}
	moves := p.GenerateMoves(nil)
	if len(lim.SearchMoves) > 0 {
		moves = lim.SearchMoves
	}
	if len(moves) == 0 {
		return SearchResult{}, nil
	}
	info("depth 1 score cp 0 pv\nwith a line break")
	res := SearchResult{Best: moves[0]}
	p.Make(moves[0])
	if replies := p.GenerateMoves(nil); len(replies) > 1 {
		res.Ponder = replies[1]
	}
	return res, nil
}

func TestSearch(t *testing.T) {
	const info = "info depth 1 score cp 0 pv with a line break\n"
	s := &fakeSearcher{}
	check(t, [][2]string{
		{"go depth 3\n", info + "bestmove 1 ponder 2\n"},
		{"position fen 9 w\ngo\n", info + "bestmove 1\n"},
		{"position fen 10 w\ngo\n", "bestmove (none)\n"},
		{"go searchmoves 2 depth 4\nd\n", info + "bestmove 2 ponder 2\n" + countDump("0 w")},
		// go infinite holds bestmove until stop; the end of input stops it.
		{"go infinite\n", info + "bestmove 1 ponder 2\n"},
		{"go infinite\nquit\n", info + "bestmove 1 ponder 2\n"},
		// A perft finishes before quit.
		{"go perft 2\nquit\nd\n", perftOutput(0, 10, 2, 2)},
	}, WithSearcher(s))

	check(t, [][2]string{{"go\n", errLine("search: out of ideas") + "bestmove (none)\n"}},
		WithSearcher(&fakeSearcher{err: errors.New("out of ideas")}))
	check(t, [][2]string{{"go\n", errLine("search: the searcher returned an illegal move") + "bestmove (none)\n"}},
		WithSearcher(&fakeSearcher{move: 7}))

	// All limits.
	transcript(t, "go wtime 1000 btime -5 winc 10 binc 20 movestogo 30 nodes 100 mate 2 movetime 50 searchmoves 2 1 depth 7 infinite\n", WithSearcher(s))
	want := Limits{
		Depth: 7, Nodes: 100, Mate: 2, MoveTime: 50 * time.Millisecond,
		Time:      [2]time.Duration{time.Second, 0},
		Clocked:   [2]bool{true, true},
		Inc:       [2]time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
		MovesToGo: 30, Infinite: true, SearchMoves: []game.Move{2, 1},
	}
	if fmt.Sprint(s.lim) != fmt.Sprint(want) {
		t.Errorf("limits %+v, want %+v", s.lim, want)
	}
}

func TestSearchErrors(t *testing.T) {
	cases := []struct{ cmd, msg string }{
		{"go depth", "go depth: missing value"},
		{"go depth x", `go depth: value "x" is not an integer in [1, 10000]`},
		{"go depth 0", `go depth: value "0" is not an integer in [1, 10000]`},
		{"go nodes -1", `go nodes: value "-1" is not an integer in [1, 4611686018427387904]`},
		{"go movetime 1000000000001", `go movetime: value "1000000000001" is not an integer in [0, 1000000000000]`},
		{"go wtime x", `go wtime: value "x" is not an integer in [-1000000000000, 1000000000000]`},
		{"go binc -1", `go binc: value "-1" is not an integer in [0, 1000000000000]`},
		{"go movestogo 0", `go movestogo: value "0" is not an integer in [1, 1000000]`},
		{"go mate", "go mate: missing value"},
		{"go searchmoves", "go searchmoves: missing moves"},
		{"go searchmoves depth 3", "go searchmoves: missing moves"},
		{"go searchmoves 3", `go searchmoves: move "3": count: illegal move "3"`},
		{"go ponder", "go ponder: pondering is not supported"},
		{"go depth 3 perft 2", `go: perft must come first ("go perft N")`},
		{"go fast", `go: unknown parameter "fast"`},
	}
	// A GUI waits for bestmove after go: a rejected go answers one.
	for _, c := range cases {
		got := transcript(t, "position startpos moves 1\n"+c.cmd+"\nd\n", WithSearcher(&fakeSearcher{}))
		if want := errLine(c.msg) + "bestmove (none)\n" + countDump("1 b"); got != want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.cmd, got, want)
		}
	}
}

func TestStopInfiniteSearch(t *testing.T) {
	s := &fakeSearcher{block: true}
	l := startLive(t, context.Background(), WithSearcher(s))
	l.send(t, "go infinite\nisready\n")
	l.out.waitFor(t, "readyok\n")
	l.send(t, "position startpos moves 1\nstop\nd\n")
	l.out.waitFor(t, "Status")
	l.send(t, "quit\n")
	if err := l.result(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	// The search ran on the position before the queued position command.
	want := "readyok\ninfo depth 1 score cp 0 pv with a line break\nbestmove 1 ponder 2\n" + countDump("1 b")
	if got := l.out.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A search queued behind the end of the input ends at once too: no stop
// can come for it.
func TestSearchQueuedAfterEndOfInput(t *testing.T) {
	got := transcript(t, "go depth 3\ngo infinite\nd\n", WithSearcher(&fakeSearcher{block: true}))
	const one = "info depth 1 score cp 0 pv with a line break\nbestmove 1 ponder 2\n"
	if want := one + one + countDump("0 w"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A GUI sends go infinite and stop in pairs, each pair at once: every stop
// must end its own search, even when it arrives while the previous job
// has finished but is still recorded (the stop then belongs to the go
// queued behind it). Before the fix about one pair in fifty hung.
func TestStopPairsSentTogether(t *testing.T) {
	for _, proto := range []string{"", "ucci\n"} {
		l := startLive(t, context.Background(), WithSearcher(&fakeSearcher{block: true}))
		if proto != "" {
			// The count game refuses ucci; go, stop and bestmove stay UCI.
			l.send(t, proto)
		}
		const pairs = 300
		for i := 1; i <= pairs; i++ {
			l.send(t, "go infinite\nstop\ngo infinite\nstop\n")
			l.out.waitForCount(t, "bestmove", 2*i)
		}
		l.send(t, "quit\n")
		if err := l.result(t); err != nil {
			t.Fatalf("Run = %v", err)
		}
	}
}

// stop, go, isready, stop sent together while a perft runs: the first
// stop ends the perft, the queued search starts, isready is answered while
// it runs, and the second stop ends it.
func TestStopAndIsReadyBehindQueuedGo(t *testing.T) {
	l := startLive(t, context.Background(), WithSearcher(&fakeSearcher{block: true}))
	l.send(t, bigPerft)
	l.out.waitFor(t, "readyok\n")
	l.send(t, "stop\ngo infinite\nisready\nstop\n")
	l.out.waitForCount(t, "bestmove", 1)
	l.out.waitForCount(t, "readyok", 2)
	l.send(t, "quit\n")
	if err := l.result(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if out := l.out.String(); strings.Index(out, "readyok\ninfo") < 0 {
		t.Errorf("isready was not answered before the queued search ended:\n%s", out)
	}
}

// WithOverhead takes the overhead off movetime and off the clock of the
// side to move, and the deadline is the sooner of the two, at least
// minBudget; an infinite search keeps its limits and has none.
func TestWithOverhead(t *testing.T) {
	ms := time.Millisecond
	W, B := game.First, game.Second
	for _, c := range []struct {
		lim      Limits
		us       game.Color
		overhead time.Duration
		want     Limits
		deadline time.Duration
	}{
		{Limits{}, W, 50 * ms, Limits{}, 0},
		{Limits{Depth: 5, Nodes: 9}, W, 50 * ms, Limits{Depth: 5, Nodes: 9}, 0},
		{Limits{MoveTime: 1000 * ms}, W, 50 * ms, Limits{MoveTime: 950 * ms}, 950 * ms},
		{Limits{MoveTime: 1000 * ms}, B, 0, Limits{MoveTime: 1000 * ms}, 1000 * ms},
		{Limits{MoveTime: 30 * ms}, W, 50 * ms, Limits{MoveTime: minBudget}, minBudget},
		// The clock of the side to move only; the increment stays.
		{Limits{Time: [2]time.Duration{10000 * ms, 4000 * ms}, Clocked: [2]bool{true, true}, Inc: [2]time.Duration{100 * ms, 100 * ms}}, B, 50 * ms,
			Limits{Time: [2]time.Duration{10000 * ms, 3950 * ms}, Clocked: [2]bool{true, true}, Inc: [2]time.Duration{100 * ms, 100 * ms}}, 3950 * ms},
		// A clock below the overhead is empty (the searcher's fastest move).
		{Limits{Time: [2]time.Duration{20 * ms, 0}, Clocked: [2]bool{true, false}}, W, 50 * ms,
			Limits{Clocked: [2]bool{true, false}}, minBudget},
		// movetime and a clock: the sooner ends the move.
		{Limits{MoveTime: 5000 * ms, Time: [2]time.Duration{2000 * ms, 0}, Clocked: [2]bool{true, false}}, W, 50 * ms,
			Limits{MoveTime: 4950 * ms, Time: [2]time.Duration{1950 * ms, 0}, Clocked: [2]bool{true, false}}, 1950 * ms},
		// Only the other side's clock: no time limit for this move.
		{Limits{Time: [2]time.Duration{0, 2000 * ms}, Clocked: [2]bool{false, true}}, W, 50 * ms,
			Limits{Time: [2]time.Duration{0, 2000 * ms}, Clocked: [2]bool{false, true}}, 0},
		{Limits{MoveTime: 1000 * ms, Infinite: true}, W, 50 * ms, Limits{MoveTime: 1000 * ms, Infinite: true}, 0},
	} {
		got, deadline := c.lim.WithOverhead(c.us, c.overhead)
		if fmt.Sprint(got) != fmt.Sprint(c.want) || deadline != c.deadline {
			t.Errorf("%+v us %v overhead %v: %+v deadline %v, want %+v deadline %v", c.lim, c.us, c.overhead, got, deadline, c.want, c.deadline)
		}
	}
}

// MoveOverhead is declared with a searcher, checked, and taken off the
// limits the searcher is given: budget minus overhead.
func TestMoveOverheadOption(t *testing.T) {
	const decl = "option name MoveOverhead type spin default 50 min 0 max 5000\n"
	if out := transcript(t, "uci\n", WithSearcher(&fakeSearcher{})); !strings.Contains(out, decl) {
		t.Errorf("uci lacks %q:\n%s", decl, out)
	}
	if out := transcript(t, "uci\n"); strings.Contains(out, "MoveOverhead") {
		t.Errorf("MoveOverhead declared without a searcher:\n%s", out)
	}
	check(t, [][2]string{
		{"setoption name MoveOverhead value -1\n", errLine("setoption: option MoveOverhead: value -1 is outside [0, 5000]")},
		{"setoption name MoveOverhead value 5001\n", errLine("setoption: option MoveOverhead: value 5001 is outside [0, 5000]")},
		{"setoption name MoveOverhead value soon\n", errLine(`setoption: option MoveOverhead: value "soon" is not an integer`)},
	}, WithSearcher(&fakeSearcher{}))
	ms := time.Millisecond
	for _, c := range []struct {
		input string
		want  Limits
	}{
		{"go movetime 1000\n", Limits{MoveTime: 950 * ms}},
		{"setoption name moveoverhead value 200\ngo movetime 1000\n", Limits{MoveTime: 800 * ms}},
		{"setoption name MoveOverhead value 0\ngo movetime 1000\n", Limits{MoveTime: 1000 * ms}},
		{"go wtime 10000 btime 8000 winc 100\n", Limits{Time: [2]time.Duration{9950 * ms, 8000 * ms}, Clocked: [2]bool{true, true}, Inc: [2]time.Duration{100 * ms, 0}}},
		{"position startpos moves 1\ngo wtime 10000 btime 8000\n", Limits{Time: [2]time.Duration{10000 * ms, 7950 * ms}, Clocked: [2]bool{true, true}}},
		{"go wtime 30 btime 8000\n", Limits{Time: [2]time.Duration{0, 8000 * ms}, Clocked: [2]bool{true, true}}},
	} {
		s := &fakeSearcher{}
		transcript(t, c.input, WithSearcher(s))
		if fmt.Sprint(s.lim) != fmt.Sprint(c.want) {
			t.Errorf("%q: searcher given %+v, want %+v", c.input, s.lim, c.want)
		}
	}
}

// A fixed time per move is kept even by a searcher that ignores it: the
// engine stops it at movetime less MoveOverhead, so bestmove arrives
// before the budget (what a GUI's hard limit checks) but not much sooner.
func TestMoveTimeIsKept(t *testing.T) {
	l := startLive(t, context.Background(), WithSearcher(&fakeSearcher{block: true}))
	const budget = time.Second
	start := time.Now()
	l.send(t, "go movetime 1000\n")
	l.out.waitFor(t, "bestmove")
	if took := time.Since(start); took >= budget || took < budget-DefaultMoveOverhead {
		t.Errorf("go movetime 1000 answered after %v, want in [%v, %v)", took, budget-DefaultMoveOverhead, budget)
	}
	// A clock too: the move never takes more than the clock less the
	// overhead, whatever the searcher does.
	start = time.Now()
	l.send(t, "go wtime 600 btime 600\n")
	l.out.waitForCount(t, "bestmove", 2)
	if took := time.Since(start); took >= 600*time.Millisecond {
		t.Errorf("go wtime 600 answered after %v", took)
	}
	l.send(t, "quit\n")
	if err := l.result(t); err != nil {
		t.Fatal(err)
	}
}

// gameSearcher is a fakeSearcher that is told the game (GameSetter) and
// finds its options unfit for tally.
type gameSearcher struct {
	fakeSearcher
	games []string
}

func (s *gameSearcher) SetGame(name string) error {
	s.games = append(s.games, name)
	if name == "tally" {
		return errors.New("my network is not for tally")
	}
	return nil
}

// The searcher is told the game at the start and at each variant switch;
// what it finds unfit is reported, and the switch stands.
func TestGameSetter(t *testing.T) {
	s := &gameSearcher{}
	check(t, [][2]string{{"setoption name UCI_Variant value tally\nd\nsetoption name UCI_Variant value count\n",
		errLine("setoption UCI_Variant: tally is set, but my network is not for tally") + dump("tally", "Goal=5", "0 w", "ongoing")}},
		WithSearcher(s))
	if want := []string{"count", "tally", "count"}; !slices.Equal(s.games, want) {
		t.Errorf("SetGame calls %q, want %q", s.games, want)
	}
	if _, err := NewEngine(strings.NewReader(""), io.Discard, WithVariant("tally"), WithSearcher(&gameSearcher{})); err == nil || err.Error() != "uci: my network is not for tally" {
		t.Errorf("NewEngine with an unfit searcher: %v", err)
	}
}
