package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/uci"
)

// session drives the engine (serve, as tabula engine does) over pipes, so a test
// can read replies before it sends the next command.
type session struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func startSession(t testing.TB) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{in: inW, lines: make(chan string, 4096), done: make(chan error, 1)}
	go func() {
		err := serve(inR, outW)
		outW.Close()
		s.done <- err
	}()
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return s
}

func (s *session) send(t testing.TB, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// until returns the output lines up to and including the first that
// starts with one of the prefixes.
func (s *session) until(t testing.TB, prefixes ...string) []string {
	t.Helper()
	return s.untilWithin(t, time.Minute, prefixes...)
}

// untilWithin is until with a time limit of d.
func (s *session) untilWithin(t testing.TB, d time.Duration, prefixes ...string) []string {
	t.Helper()
	var got []string
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("output ended before %q:\n%s", prefixes, strings.Join(got, "\n"))
			}
			got = append(got, l)
			for _, p := range prefixes {
				if strings.HasPrefix(l, p) {
					return got
				}
			}
		case <-timeout:
			t.Fatalf("no %q within %v:\n%s", prefixes, d, strings.Join(got, "\n"))
		}
	}
}

// quiet checks that no line starting with prefix comes within d.
func (s *session) quiet(t *testing.T, prefix string, d time.Duration) {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case l := <-s.lines:
			if strings.HasPrefix(l, prefix) {
				t.Fatalf("%q came early", l)
			}
		case <-timeout:
			return
		}
	}
}

// end sends quit, expects bye and checks that run returns nil.
func (s *session) end(t *testing.T) {
	t.Helper()
	s.send(t, "quit")
	s.until(t, "bye")
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("run = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after quit")
	}
}

// iccsRules are the rule options of a Xiangqi position written in ICCS.
var iccsRules = game.Options{"Notation": "iccs"}

func xiangqiParse(t *testing.T, fen string, opts game.Options) game.Position {
	t.Helper()
	g, _ := game.Lookup("xiangqi")
	p, err := g.Parse(fen, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lastWith returns the fields of the last line containing word, from
// word on.
func lastWith(lines []string, word string) []string {
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.Fields(lines[i])
		if k := slices.Index(f, word); k >= 0 {
			return f[k:]
		}
	}
	return nil
}

const mateInOne = "3k5/R8/9/9/9/9/9/9/9/R3K4 w - - 0 1"

func TestUCCISession(t *testing.T) {
	s := startSession(t)
	s.send(t, "ucci")
	hs := s.until(t, "ucciok")
	for _, want := range []string{
		"id name tabula", "option usemillisec type check default true", "option newgame type button",
		"option PlyCap type spin min 1 max 100000 default 400", "option hashsize type spin min 1 max 4096 default 16",
		"option threads type spin min 1 max 64 default 1",
		"option UCI_LimitStrength type check default false", "option UCI_Elo type spin min -400 max 1000 default 0",
		"option Mover type combo var ab var mcts var abzero var tablebase default ab", "option Network type string default <empty>",
		"option Algorithm type combo var alphabeta var alphabeta-hard var pvs var mtdf var negacstar var negacstar-opt default pvs",
	} {
		if !slices.Contains(hs, want) {
			t.Errorf("handshake lacks %q:\n%s", want, strings.Join(hs, "\n"))
		}
	}
	for _, l := range hs {
		if strings.Contains(l, "UCI_Variant") || strings.Contains(l, "Notation") || strings.HasPrefix(l, "option name") || strings.Contains(l, "option Hash ") || strings.Contains(l, "option Threads ") {
			t.Errorf("handshake line %q", l)
		}
	}
	s.send(t, "setoption hashsize 4", "setoption threads 2", "isready")
	if got := s.until(t, "readyok"); len(got) != 1 {
		t.Errorf("setoption hashsize, threads: %q", got)
	}

	// A mate in one: ICCS bestmove, and the mate score as ElephantEye's.
	s.send(t, "position fen "+mateInOne, "go depth 3")
	out := s.until(t, "bestmove", "nobestmove")
	if !slices.Contains(out, "info depth 1 score 9999 pv "+lastWith(out, "pv")[1]) {
		t.Errorf("no mate score:\n%s", strings.Join(out, "\n"))
	}
	best := strings.Fields(out[len(out)-1])
	p := xiangqiParse(t, mateInOne, iccsRules)
	if err := game.Play(p, best[1]); err != nil || p.Status().Result != game.Loss {
		t.Fatalf("%q does not mate: %v", out[len(out)-1], err)
	}

	// ICCS moves in, a legal ICCS line out.
	s.send(t, "position startpos moves h2e2 h9g7", "go depth 3")
	out = s.until(t, "bestmove")
	start := xiangqiParse(t, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", iccsRules)
	if err := game.Play(start, "h2e2", "h9g7"); err != nil {
		t.Fatal(err)
	}
	pv := lastWith(out, "pv")[1:]
	if err := game.Play(start.Clone(), pv...); err != nil {
		t.Errorf("pv %q: %v", pv, err)
	}
	f := strings.Fields(out[len(out)-1])
	if err := game.Play(start.Clone(), f[1]); err != nil || f[1] != pv[0] {
		t.Errorf("bestmove %q, pv %q: %v", f, pv, err)
	}
	if len(f) == 4 {
		if err := game.Play(start.Clone(), f[1], f[3]); err != nil || f[2] != "ponder" {
			t.Errorf("bestmove %q: %v", f, err)
		}
	}
	if ls := lastWith(out, "time"); len(ls) != 4 || ls[2] != "nodes" {
		t.Errorf("no time/nodes line:\n%s", strings.Join(out, "\n"))
	}
	s.end(t)
}

// The engine answers nobestmove whenever it has no move to give.
func TestUCCINoBestMove(t *testing.T) {
	p := xiangqiParse(t, mateInOne, iccsRules)
	mate := ""
	for _, m := range p.GenerateMoves(nil) {
		p.Make(m)
		if p.Status().Result == game.Loss {
			p.Unmake()
			mate = p.FormatMove(m)
			break
		}
		p.Unmake()
	}
	start := xiangqiParse(t, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", iccsRules)
	var all []string
	for _, m := range start.GenerateMoves(nil) {
		all = append(all, start.FormatMove(m))
	}
	s := startSession(t)
	s.send(t, "ucci")
	s.until(t, "ucciok")
	for _, c := range []struct {
		cmds  []string
		error string
	}{
		{[]string{"position fen " + mateInOne + " moves " + mate, "go depth 3"}, ""},
		{[]string{"position startpos", "go depth 0"}, ""},
		{[]string{"stop"}, ""},
		{[]string{"position startpos", "banmoves " + strings.Join(all, " "), "go depth 2"}, "info message error: go: banmoves forbids every legal move"},
		{[]string{"position startpos", "go ponder depth 3"}, "info message error: go ponder: pondering is not supported"},
		{[]string{"go wtime 100"}, `info message error: go: unknown parameter "wtime"`},
		{[]string{"setoption Mover mcts", "setoption Network connect4", "go depth 2"}, "info message error: search: option Network: connect4 is a connect4 network, not xiangqi"},
		// A rejected position leaves none: no move for the one before.
		{[]string{"setoption Mover ab", "position startpos moves h2e2", "position startpos moves h3e3", "go depth 2"},
			`info message error: go: no position (the last one was rejected: position: move 1 ("h3e3"): `},
	} {
		s.send(t, c.cmds...)
		out := s.until(t, "nobestmove", "bestmove")
		if out[len(out)-1] != "nobestmove" {
			t.Errorf("%q: %q", c.cmds, out)
		}
		if c.error != "" && !slices.ContainsFunc(out, func(l string) bool { return strings.HasPrefix(l, c.error) }) {
			t.Errorf("%q: no %q in %q", c.cmds, c.error, out)
		}
	}
	s.end(t)
}

// banmoves removes the best move from every mover's choice; searchmoves
// does the same in UCI.
func TestBanMoves(t *testing.T) {
	network := tinyNetwork(t)
	p := xiangqiParse(t, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", iccsRules)
	h2e2, err := p.ParseMove("h2e2")
	if err != nil {
		t.Fatal(err)
	}
	p.Make(h2e2)
	var afterH2E2 []string
	for _, m := range p.GenerateMoves(nil) {
		afterH2E2 = append(afterH2E2, p.FormatMove(m))
	}
	for _, mover := range []string{moverAB, moverMCTS, moverABZero} {
		s := startSession(t)
		s.send(t, "ucci", "setoption hashsize 1", "setoption Simulations 40", "setoption Network "+network, "setoption Mover "+mover,
			"position startpos moves h2e2", "go depth 2")
		out := s.until(t, "bestmove")
		first := strings.Fields(out[len(out)-1])[1]
		s.send(t, "banmoves "+first, "go depth 2")
		out = s.until(t, "bestmove")
		if second := strings.Fields(out[len(out)-1])[1]; second == first {
			t.Errorf("%s: banned %s played again", mover, first)
		}
		// A new position lifts the ban: banning every other move leaves
		// the one banned before as the only choice (were the old ban
		// still on, no move would be left).
		var others []string
		for _, m := range afterH2E2 {
			if m != first {
				others = append(others, m)
			}
		}
		s.send(t, "position startpos moves h2e2", "banmoves "+strings.Join(others, " "), "go depth 2")
		out = s.until(t, "nobestmove", "bestmove")
		if last := out[len(out)-1]; last != "bestmove "+first && !strings.HasPrefix(last, "bestmove "+first+" ") {
			t.Errorf("%s: %q after the ban ended, want %s", mover, last, first)
		}
		s.end(t)
	}
	s := startSession(t)
	s.send(t, "setoption name Hash value 1", "position startpos", "go depth 2 searchmoves a4a5 i4i5")
	out := s.until(t, "bestmove")
	if best := strings.Fields(out[len(out)-1])[1]; best != "a4a5" && best != "i4i5" {
		t.Errorf("searchmoves a4a5 i4i5: %s", best)
	}
	s.send(t, "quit")
}

func TestUCCIOptions(t *testing.T) {
	s := New()
	var out bytes.Buffer
	in := "ucci\nsetoption hashsize 8\nsetoption name Algorithm value mtdf\nsetoption simulations 77\nsetoption ABZeroWeight 2.5\n" +
		"setoption Network <empty>\nsetoption usemillisec off\nsetoption PlyCap 300\nsetoption UCI_ShowWDL on\nd\n" +
		// Errors: each leaves the settings as they were.
		"setoption Mover banana\nsetoption Notation uci\nsetoption UCI_Variant connect4\nsetoption usemillisec maybe\n" +
		"setoption hashsize\nsetoption hashsize 0\nsetoption Nonsense 3\nsetoption\nsetoption name\nsetoption Network /dev/zero\nsetoption UCI_ShowWDL maybe\n" +
		"setoption newgame\nbye\nisready\n"
	e, err := uci.NewEngine(strings.NewReader(in), &out, uci.WithSearcher(s))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ab := s.play.AlphaBeta; ab.HashMiB != 8 || ab.Algorithm != "mtdf" || s.play.Sims != 77 || s.play.M != 2.5 || s.network != "" || s.mover != moverAB || !s.showWDL {
		t.Errorf("options not set: %+v sims %d weight %v network %q mover %s show WDL %v", ab, s.play.Sims, s.play.M, s.network, s.mover, s.showWDL)
	}
	text := out.String()
	if !strings.Contains(text, "\noption UCI_ShowWDL type check default false\n") {
		t.Errorf("UCI_ShowWDL is not declared a check option:\n%s", text)
	}
	if !strings.Contains(text, "Options: PlyCap=300 Notation=iccs\n") {
		t.Errorf("PlyCap not set:\n%s", text)
	}
	for _, want := range []string{
		`info message error: setoption: option Mover: value "banana" is not one of ab, mcts, abzero, tablebase`,
		"info message error: setoption: UCCI moves are always ICCS (Notation=iccs)",
		"info message error: setoption: UCCI plays xiangqi only",
		`info message error: setoption usemillisec: value "maybe" is not true or false`,
		`info message error: setoption: option "Hash" needs a value`,
		"info message error: setoption: option Hash: value 0 is outside [1, 4096]",
		`info message error: setoption: unknown option "Nonsense"`,
		`info message error: setoption: expected "setoption <option> [<value>]"`,
		"info message error: setoption: missing option name",
		"info message error: option Network: checkpoints: checkpoint /dev/zero is a character device, not a regular file",
		`info message error: setoption UCI_ShowWDL: value "maybe" is not true or false`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	// bye ends the session: isready after it is not answered.
	if !strings.HasSuffix(text, "\nbye\n") || strings.Count(text, "error") != 11 {
		t.Errorf("output:\n%s", text)
	}
}

// uciToICCS rewrites a UCI xiangqi move (ranks 1-10) in ICCS (ranks 0-9).
func uciToICCS(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		b.WriteByte(s[i])
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		r, _ := strconv.Atoi(s[i+1 : j])
		b.WriteString(strconv.Itoa(r - 1))
		i = j
	}
	return b.String()
}

// TestICCSRoundTrip: on many positions every legal move reads and writes
// the same in UCI and ICCS text, and the engine reaches the same positions
// from the same games given in either protocol.
func TestICCSRoundTrip(t *testing.T) {
	g, _ := game.Lookup("xiangqi")
	start, _ := g.New(nil)
	moves := 0
	for _, p := range gametest.RandomPositions(start, 20, 120, 5) {
		q := xiangqiParse(t, p.String(), iccsRules)
		for _, m := range p.GenerateMoves(nil) {
			u, c := p.FormatMove(m), q.FormatMove(m)
			if c != uciToICCS(u) {
				t.Fatalf("%s: %s is %s in ICCS, want %s", p, u, c, uciToICCS(u))
			}
			mu, err1 := p.ParseMove(u)
			mc, err2 := q.ParseMove(c)
			// The hyphenated ICCS form reads under either notation.
			mh, err3 := p.ParseMove(strings.ToUpper(c[:2] + "-" + c[2:]))
			if err1 != nil || err2 != nil || err3 != nil || mu != m || mc != m || mh != m {
				t.Fatalf("%s: %s / %s do not read back: %v %v %v", p, u, c, err1, err2, err3)
			}
			moves++
		}
	}
	if moves < 10000 {
		t.Fatalf("only %d moves checked", moves)
	}
	// The same random games through both protocols.
	var inUCI, inUCCI strings.Builder
	inUCCI.WriteString("ucci\n")
	rng := rand.New(rand.NewPCG(9, 9))
	for k := range 40 {
		p := start.Clone()
		var us, cs []string
		for range 10 + 4*k {
			ms := p.GenerateMoves(nil)
			if len(ms) == 0 || p.Status().Over() {
				break
			}
			m := ms[rng.IntN(len(ms))]
			us, cs = append(us, p.FormatMove(m)), append(cs, uciToICCS(p.FormatMove(m)))
			p.Make(m)
		}
		fmt.Fprintf(&inUCI, "position startpos moves %s\nd\n", strings.Join(us, " "))
		fmt.Fprintf(&inUCCI, "position startpos moves %s\nd\n", strings.Join(cs, " "))
	}
	board := func(input string) []string {
		var out bytes.Buffer
		e, err := uci.NewEngine(strings.NewReader(input), &out, uci.WithSearcher(New()))
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		var ls []string
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "Fen: ") || strings.HasPrefix(l, "Key: ") || strings.HasPrefix(l, "Status: ") || strings.Contains(l, "error") {
				ls = append(ls, l)
			}
		}
		return ls
	}
	a, b := board(inUCI.String()), board(inUCCI.String())
	if len(a) != 120 || !slices.Equal(a, b) {
		t.Fatalf("UCI and UCCI games differ:\n%s\n--\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

// TestLimitsEveryMover: in UCI and UCCI, every mover ends its search on
// depth, nodes, movetime and the clock, and holds an infinite search
// until stop.
func TestLimitsEveryMover(t *testing.T) {
	if testing.Short() {
		t.Skip("timed searches")
	}
	network := tinyNetwork(t)
	for _, mover := range []string{moverAB, moverMCTS, moverABZero} {
		for _, ucci := range []bool{false, true} {
			s := startSession(t)
			set := func(name, value string) string { return "setoption name " + name + " value " + value }
			clock := "go wtime 3000 btime 3000"
			if ucci {
				s.send(t, "ucci")
				s.until(t, "ucciok")
				set = func(name, value string) string { return "setoption " + name + " " + value }
				clock = "go time 3000 increment 0 opptime 3000 oppincrement 0"
			}
			s.send(t, set("Hash", "1"), set("Network", network), set("Simulations", "50"), set("Mover", mover), "position startpos")
			// Every limit ends the search by itself (until's minute is a
			// hang detector, not a time bound).
			for _, c := range []struct {
				cmd      string
				depth, n int // expected in the last info line with depth / nodes
			}{
				{"go depth 2", 2, 0},
				{"go nodes 30", 0, 30},
				{"go movetime 200", 0, 0},
				{clock, 0, 0},
			} {
				s.send(t, c.cmd)
				out := s.until(t, "bestmove", "nobestmove")
				name := fmt.Sprintf("%s ucci=%v %s", mover, ucci, c.cmd)
				if !strings.HasPrefix(out[len(out)-1], "bestmove ") {
					t.Errorf("%s: %q", name, out[len(out)-1])
				}
				// mcts stops once its line is at least that long.
				if d := lastWith(out, "depth"); c.depth > 0 && (len(d) < 2 || d[1] != strconv.Itoa(c.depth) && (mover != moverMCTS || atoi(d[1]) < c.depth)) {
					t.Errorf("%s: last depth %q:\n%s", name, d, strings.Join(out, "\n"))
				}
				// ab counts nodes of its own and abzero's nodes are the
				// MCTS's: only mcts runs exactly the simulations asked for.
				if n := lastWith(out, "nodes"); c.n > 0 && mover == moverMCTS && (len(n) < 2 || n[1] != strconv.Itoa(c.n)) {
					t.Errorf("%s: last nodes %q:\n%s", name, n, strings.Join(out, "\n"))
				}
			}
			s.send(t, "go infinite")
			s.quiet(t, "bestmove", 300*time.Millisecond)
			s.send(t, "stop")
			if out := s.until(t, "bestmove", "nobestmove"); !strings.HasPrefix(out[len(out)-1], "bestmove ") {
				t.Errorf("%s ucci=%v: infinite then stop: %q", mover, ucci, out)
			}
			if ucci {
				s.end(t)
			} else {
				s.send(t, "quit")
			}
		}
	}
}

// TestMCTSPrincipalVariation: the mcts mover's pv is a legal line that
// starts with its move, its depth is the pv's length, and go depth N
// searches until the line is N plies long.
func TestMCTSPrincipalVariation(t *testing.T) {
	s := moverSearcher(t, moverMCTS, tinyNetwork(t))
	g, _ := game.Lookup("xiangqi")
	start, _ := g.New(nil)
	positions := gametest.RandomPositions(start, 3, 30, 2)
	for _, p := range positions[len(positions)-5:] {
		if p.Status().Over() {
			continue
		}
		for _, lim := range []uci.Limits{{Nodes: 300}, {Depth: 4}} {
			s.NewGame()
			best, info := search(t, context.Background(), s, p, lim)
			lines := strings.Split(strings.TrimSpace(info), "\n")
			pv := lastWith(lines, "pv")[1:]
			depth := lastWith(lines, "depth")
			if err := game.Play(p.Clone(), pv...); err != nil || pv[0] != p.FormatMove(best) {
				t.Fatalf("%s %+v: pv %q, best %s: %v", p, lim, pv, p.FormatMove(best), err)
			}
			if depth[1] != strconv.Itoa(len(pv)) {
				t.Errorf("%s %+v: depth %s, pv %q", p, lim, depth[1], pv)
			}
			if lim.Depth > 0 && len(pv) < lim.Depth {
				q := p.Clone()
				game.Play(q, pv...)
				if !q.Status().Over() {
					t.Errorf("%s: go depth %d stopped at pv %q", p, lim.Depth, pv)
				}
			}
		}
	}
	// In UCCI the line is ICCS.
	ss := startSession(t)
	ss.send(t, "ucci", "setoption Network "+s.network, "setoption Mover mcts", "position startpos moves h2e2", "go nodes 200")
	out := ss.until(t, "bestmove")
	pv := lastWith(out, "pv")[1:]
	p := xiangqiParse(t, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", iccsRules)
	if err := game.Play(p, append([]string{"h2e2"}, pv...)...); err != nil || len(pv) < 2 {
		t.Errorf("UCCI pv %q: %v\n%s", pv, err, strings.Join(out, "\n"))
	}
	ss.end(t)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestEmptyClockAnswers: a clock at or below zero (after a flag fall, or
// with only an increment left) asks for the fastest sensible move, in UCI
// and UCCI, for every mover; it once meant a search without end.
func TestEmptyClockAnswers(t *testing.T) {
	network := tinyNetwork(t)
	for _, mover := range []string{moverAB, moverMCTS, moverABZero} {
		for _, ucci := range []bool{false, true} {
			s := startSession(t)
			set := func(name, value string) string { return "setoption name " + name + " value " + value }
			clocks := []string{"go wtime 0 btime 0", "go wtime -50 btime -50", "go wtime 0 winc 100 btime 5000", "go wtime 0 movestogo 5"}
			if ucci {
				s.send(t, "ucci")
				s.until(t, "ucciok")
				set = func(name, value string) string { return "setoption " + name + " " + value }
				clocks = []string{"go time 0", "go time -5 increment 100", "go time 0 opptime 0 movestogo 3"}
			}
			s.send(t, set("Hash", "1"), set("Network", network), set("Mover", mover), "position startpos")
			for _, c := range clocks {
				s.send(t, c)
				if out := s.untilWithin(t, 20*time.Second, "bestmove", "nobestmove"); !strings.HasPrefix(out[len(out)-1], "bestmove ") {
					t.Errorf("%s ucci=%v %s: %q", mover, ucci, c, out)
				}
			}
			if ucci {
				s.end(t)
			} else {
				s.send(t, "quit")
			}
		}
	}
}

// `d` draws the board: Red's back rank at the bottom, the river, and the
// move played on it.
func TestDisplayDiagram(t *testing.T) {
	s := startSession(t)
	s.send(t, "ucci")
	s.until(t, "ucciok")
	s.send(t, "position startpos moves h2e2", "d")
	out := s.until(t, "Status: ")
	want := []string{" 1  R N B A K A B N R", " 3  . C . . C . . . .", "    ~ ~ ~ ~ ~ ~ ~ ~ ~", "10  r n b a k a b n r", "Black to move"}
	for _, w := range want {
		if !slices.Contains(out, w) {
			t.Errorf("no line %q in\n%s", w, strings.Join(out, "\n"))
		}
	}
	s.end(t)
}

// TestMoveTimeKept: under a fixed time per move every mover's bestmove
// arrives before the budget (a GUI's hard limit), in UCI and UCCI, and
// the time is used: not before the budget less MoveOverhead.
func TestMoveTimeKept(t *testing.T) {
	if testing.Short() {
		t.Skip("timed searches")
	}
	network := tinyNetwork(t)
	const budget = time.Second
	// A MoveOverhead well above the default's 50 ms: the tests of other
	// packages share the machine's cores, and the scheduler alone can
	// hold a reply back by more than 50 ms. The engine must answer after
	// budget-overhead and before budget.
	const overhead = 300 * time.Millisecond
	for _, mover := range []string{moverAB, moverMCTS, moverABZero} {
		for _, ucci := range []bool{false, true} {
			s := startSession(t)
			set := func(name, value string) string { return "setoption name " + name + " value " + value }
			move := "h3e3"
			if ucci {
				s.send(t, "ucci")
				s.until(t, "ucciok")
				set = func(name, value string) string { return "setoption " + name + " " + value }
				move = "h2e2"
			}
			s.send(t, set("Hash", "1"), set(uci.MoveOverheadOption, "300"), set("Network", network), set("Mover", mover), "position startpos moves "+move, "isready")
			if out := s.until(t, "readyok"); len(out) != 1 {
				t.Fatalf("%s ucci=%v: %q", mover, ucci, out)
			}
			start := time.Now()
			s.send(t, "go movetime 1000")
			out := s.until(t, "bestmove", "nobestmove")
			took := time.Since(start)
			if !strings.HasPrefix(out[len(out)-1], "bestmove ") || strings.Contains(out[len(out)-1], "(none)") {
				t.Errorf("%s ucci=%v: %q", mover, ucci, out)
			}
			t.Logf("%s ucci=%v: bestmove after %v", mover, ucci, took)
			if took >= budget || took < budget-overhead {
				t.Errorf("%s ucci=%v: go movetime 1000 answered after %v, want in [%v, %v)", mover, ucci, took, budget-overhead, budget)
			}
			s.send(t, "quit")
		}
	}
}
