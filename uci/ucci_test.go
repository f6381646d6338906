package uci

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// The uci tests run with the counting games only (the registry is process-
// wide), so UCCI sessions with real Xiangqi are tested in package engine and tabula engine; here
// are the refusal on other games and the UCCI parsers and translators.

func TestUCCIRefusedOnOtherGames(t *testing.T) {
	// No counting game is game.UCCIHosted; with Xiangqi registered the
	// refusal names it (package engine's tests).
	msg := `ucci: UCCI plays none of the registered games (none is game.UCCIHosted) and the variant is count; use uci`
	// The engine stays in UCI: quit ends it without bye, stop is silent.
	check(t, [][2]string{
		{"ucci\nisready\nstop\nsetoption name Goal value 3\nposition startpos moves 1 2\nd\nquit\n",
			errLine(msg) + "readyok\n" + dump("count", "Goal=3 Steps=short", "3 w", "loss (goal reached)")},
		{"ucci\nbye\n", errLine(msg) + errLine(`unknown command "bye"`)},
	})
}

func TestParseUCCILimits(t *testing.T) {
	ms, s := time.Millisecond, time.Second
	W, B := game.First, game.Second
	for _, c := range []struct {
		args   string
		us     game.Color
		millis bool
		want   Limits
		static bool
	}{
		{"", W, true, Limits{}, false},
		{"depth 7", W, true, Limits{Depth: 7}, false},
		{"depth 0", W, true, Limits{}, true},
		{"depth infinite", W, true, Limits{Infinite: true}, false},
		{"infinite", B, true, Limits{Infinite: true}, false},
		{"draw nodes 5000", W, true, Limits{Nodes: 5000}, false},
		{"movetime 250", B, false, Limits{MoveTime: 250 * ms}, false},
		// Red to move: time and increment are Red's clock.
		{"time 300000 increment 2000 opptime 250000 oppincrement 1000", W, true,
			Limits{Time: [2]time.Duration{300 * s, 250 * s}, Clocked: [2]bool{true, true}, Inc: [2]time.Duration{2 * s, 1 * s}}, false},
		// Black to move: the same words fill Black's clock.
		{"time 300000 increment 2000 opptime 250000 oppincrement 1000", B, true,
			Limits{Time: [2]time.Duration{250 * s, 300 * s}, Clocked: [2]bool{true, true}, Inc: [2]time.Duration{1 * s, 2 * s}}, false},
		{"time 60000 movestogo 20 opptime 1000 oppmovestogo 3", W, true,
			Limits{Time: [2]time.Duration{60 * s, 1 * s}, Clocked: [2]bool{true, true}, MovesToGo: 20}, false},
		// Seconds after setoption usemillisec false.
		{"time 300 increment 2", B, false, Limits{Time: [2]time.Duration{0, 300 * s}, Clocked: [2]bool{false, true}, Inc: [2]time.Duration{0, 2 * s}}, false},
		// time alone: one move to go (ElephantEye); a flag fall reads as 0.
		{"time 5000", W, true, Limits{Time: [2]time.Duration{5 * s, 0}, Clocked: [2]bool{true, false}, MovesToGo: 1}, false},
		{"time -20 increment 100", W, true, Limits{Inc: [2]time.Duration{100 * ms, 0}, Clocked: [2]bool{true, false}}, false},
		{"time 0", B, true, Limits{Clocked: [2]bool{false, true}, MovesToGo: 1}, false},
	} {
		lim, static, err := parseUCCILimits(strings.Fields(c.args), c.us, c.millis)
		if err != nil || static != c.static || !limitsEqual(lim, c.want) {
			t.Errorf("go %s (us %v, millis %v) = %+v static %v err %v, want %+v static %v", c.args, c.us, c.millis, lim, static, err, c.want, c.static)
		}
	}
	for _, c := range []struct{ args, msg string }{
		{"ponder time 1000", "go ponder: pondering is not supported"},
		{"wtime 1000", `go: unknown parameter "wtime"`},
		{"depth", "go depth: missing value"},
		{"depth -1", `go depth: value "-1" is not an integer in [0, 10000]`},
		{"nodes 0", `go nodes: value "0" is not an integer in [1, 4611686018427387904]`},
		{"time x", `go time: value "x" is not an integer in [-1000000000000, 1000000000000]`},
		{"movestogo 0", `go movestogo: value "0" is not an integer in [1, 1000000]`},
		{"oppmovestogo", "go oppmovestogo: missing value"},
		{"increment -1", `go increment: value "-1" is not an integer in [0, 1000000000000]`},
	} {
		if _, _, err := parseUCCILimits(strings.Fields(c.args), game.First, true); err == nil || err.Error() != c.msg {
			t.Errorf("go %s: error %v, want %s", c.args, err, c.msg)
		}
	}
	// Seconds are bounded so that the duration cannot overflow.
	if _, _, err := parseUCCILimits([]string{"time", "1000000000000"}, game.First, false); err == nil {
		t.Error("go time 10^12 seconds: no error")
	}
}

func limitsEqual(a, b Limits) bool {
	return a.Depth == b.Depth && a.Nodes == b.Nodes && a.Mate == b.Mate && a.MoveTime == b.MoveTime &&
		a.Time == b.Time && a.Clocked == b.Clocked && a.Inc == b.Inc && a.MovesToGo == b.MovesToGo && a.Infinite == b.Infinite &&
		slices.Equal(a.SearchMoves, b.SearchMoves)
}

func TestUCCIInfo(t *testing.T) {
	for _, c := range []struct {
		in     string
		millis bool
		want   []string
	}{
		{"depth 6 seldepth 9 score cp 4 nodes 5000 nps 1000 time 5000 hashfull 3 pv b0c2 b9c7 c3c4", true,
			[]string{"info depth 6 score 4 pv b0c2 b9c7 c3c4", "info time 5000 nodes 5000"}},
		{"depth 6 score cp 4 time 5000 pv b0c2", false, []string{"info depth 6 score 4 pv b0c2", "info time 5"}},
		{"depth 3 score mate 2 pv a0a9", true, []string{"info depth 3 score 9997 pv a0a9"}},
		{"depth 3 score mate -2 pv a0a9", true, []string{"info depth 3 score -9996 pv a0a9"}},
		{"depth 3 score mate 0", true, []string{"info depth 3 score -10000"}},
		{"depth 9 score mate 80", true, []string{"info depth 9 score 9901"}},
		{"depth 3 score cp 25000 lowerbound", true, []string{"info depth 3 score 9899"}},
		{"depth 3 score cp -25000 upperbound", true, []string{"info depth 3 score -9899"}},
		{"depth 2 multipv 1 score cp 10 pv h2e2", true, []string{"info depth 2 score 10 pv h2e2"}},
		{"depth 2 multipv 2 score cp 5 pv h2e2", true, nil},
		{"nodes 30 nps 300 time 100 score cp 12 pv h2e2 h9g7", true, []string{"info depth 0 score 12 pv h2e2 h9g7", "info time 100 nodes 30"}},
		{"string visits h2e2:10 b0c2:5", true, []string{"info message visits h2e2:10 b0c2:5"}},
		{"string", true, []string{"info message"}},
		{"stringent", true, nil},
		{"currmove h2e2 currmovenumber 1", true, []string{"info currmove h2e2"}},
		{"depth 1 string hello there", true, []string{"info depth 1", "info message hello there"}},
		{"score cp x", true, nil},
		{"", true, nil},
	} {
		if got := ucciInfo(c.in, c.millis); !slices.Equal(got, c.want) {
			t.Errorf("ucciInfo(%q, %v) = %q, want %q", c.in, c.millis, got, c.want)
		}
	}
}

func TestUCCIOptionLines(t *testing.T) {
	for _, c := range []struct {
		name string
		o    game.Option
		str  bool
		want string
	}{
		{"hashsize", game.Option{Name: "Hash", Default: "64", Min: 1, Max: 65536}, false, "option hashsize type spin min 1 max 65536 default 64"},
		{"Mover", game.Option{Name: "Mover", Default: "ab", Values: []string{"ab", "mcts"}}, false, "option Mover type combo var ab var mcts default ab"},
		{"Network", game.Option{Name: "Network"}, true, "option Network type string default <empty>"},
		{"ABZeroWeight", game.Option{Name: "ABZeroWeight", Default: "1"}, true, "option ABZeroWeight type string default 1"},
		{"UCI_ShowWDL", game.Option{Name: "UCI_ShowWDL", Default: "false", Values: CheckValues}, false, "option UCI_ShowWDL type check default false"},
	} {
		if got := ucciOptionLine(c.name, c.o, c.str); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	// UCI declares the same kinds: a check option by its two values, a
	// combo of other values as a combo.
	for o, want := range map[*game.Option]string{
		{Name: "UCI_ShowWDL", Default: "false", Values: CheckValues}:        "option name UCI_ShowWDL type check default false",
		{Name: "Order", Default: "true", Values: []string{"true", "false"}}: "option name Order type combo default true var true var false",
		{Name: "Mover", Default: "ab", Values: []string{"ab", "mcts"}}:      "option name Mover type combo default ab var ab var mcts",
		{Name: "Hash", Default: "16", Min: 1, Max: 4096}:                    "option name Hash type spin default 16 min 1 max 4096",
	} {
		if got := optionLine(*o); got != want {
			t.Errorf("optionLine(%+v) = %q, want %q", *o, got, want)
		}
	}
	for _, c := range []struct {
		in   string
		want bool
		ok   bool
	}{{"true", true, true}, {"ON", true, true}, {"false", false, true}, {"off", false, true}, {"", false, false}, {"1", false, false}} {
		got, err := parseCheck(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("parseCheck(%q) = %v, %v", c.in, got, err)
		}
	}
}

// Lines built from clipped input stay within the message limit, and
// clipping is idempotent even when it falls inside a multi-byte character.
func TestLongLinesStayClipped(t *testing.T) {
	for _, s := range []string{
		"pv " + strings.Repeat("y", 1200),
		"depth 3 pv " + strings.Repeat("y ", 700),
		"string " + strings.Repeat("\u00e9", 700),
		strings.Repeat("\u2028", 500) + strings.Repeat("x", 600),
		strings.Repeat("\xff", 1500),
	} {
		c := oneLine(s)
		if len(c) > maxMessage || oneLine(c) != c {
			t.Errorf("oneLine(%.20q...) = %d bytes, not idempotent or too long", s, len(c))
		}
		for _, millis := range []bool{true, false} {
			for _, l := range ucciInfo(c, millis) {
				if len(l) > maxMessage || oneLine(l) != l {
					t.Errorf("ucciInfo(%.20q...) wrote %d bytes: %.40q...", s, len(l), l)
				}
			}
		}
	}
}
