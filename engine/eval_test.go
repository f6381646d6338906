package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/uci"
)

// randomEvalFile saves a small random learned network and returns its
// path.
func randomEvalFile(t *testing.T, seed uint64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("random%d.nnue", seed))
	if err := nnue.NewRandom(seed).Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Over UCI the options are declared, Eval=learned needs no EvalFile (the
// shipped network), an EvalFile set after it overrides the shipped
// network, and the engine then plays legal moves with the learned
// evaluation, naming the network once.
func TestLearnedEvalOverUCI(t *testing.T) {
	file := randomEvalFile(t, 1)
	s := startSession(t)
	s.send(t, "uci")
	lines := s.until(t, "uciok")
	for _, want := range []string{"option name Eval type combo default learned var classical var learned", "option name EvalFile type string default <empty>"} {
		if !slices.Contains(lines, want) {
			t.Errorf("uci: no %q in\n%s", want, strings.Join(lines, "\n"))
		}
	}
	s.send(t, "setoption name Eval value learned", "isready")
	if lines = s.until(t, "readyok"); len(lines) != 1 {
		t.Errorf("Eval learned without EvalFile: %q", lines)
	}
	s.send(t, "setoption name EvalFile value "+file, "isready")
	if lines = s.until(t, "readyok"); len(lines) != 1 {
		t.Errorf("EvalFile %s: %q", file, lines)
	}
	p := xiangqiStart(t)
	var played []string
	for ply := range 6 {
		s.send(t, "position startpos moves "+strings.Join(played, " "), "go depth 2")
		lines = s.until(t, "bestmove")
		announce := fmt.Sprintf("info string eval learned %s sha256 %s net %s kernels %s", file, fileSHA256(t, file), nnue.DefaultSizes, nnue.KernelName())
		if n := slices.Index(lines, announce); (n >= 0) != (ply == 0) {
			t.Errorf("ply %d: the network named %v, want only at the first search:\n%s", ply, n >= 0, strings.Join(lines, "\n"))
		}
		if slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "error") }) {
			t.Fatalf("ply %d: %s", ply, strings.Join(lines, "\n"))
		}
		mv := strings.Fields(lines[len(lines)-1])[1]
		if err := game.Play(p, mv); err != nil {
			t.Fatalf("ply %d: bestmove %s: %v", ply, mv, err)
		}
		played = append(played, mv)
	}
	// ucinewgame names it again.
	s.send(t, "ucinewgame", "position startpos", "go depth 1")
	if lines = s.until(t, "bestmove"); !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "info string eval learned ") }) {
		t.Errorf("after ucinewgame the network is not named:\n%s", strings.Join(lines, "\n"))
	}
}

// scoreLine matches the figures of an alpha-beta iteration's info line.
var scoreLine = regexp.MustCompile(`^depth (\d+) seldepth \d+ score (\S+ \S+) nodes (\d+) .* pv (.*)$`)

// iterations returns "depth score nodes pv" for each alpha-beta
// iteration among info lines.
func iterations(lines []string) []string {
	var out []string
	for _, l := range lines {
		if m := scoreLine.FindStringSubmatch(l); m != nil {
			out = append(out, strings.Join(m[1:], " | "))
		}
	}
	return out
}

// searchLines runs a search with s on p and returns its info lines.
func searchLines(t *testing.T, s *Searcher, p game.Position, lim uci.Limits) []string {
	t.Helper()
	var lines []string
	res, err := s.Search(context.Background(), p.Clone(), lim, func(l string) { lines = append(lines, l) })
	if err != nil {
		t.Fatal(err)
	}
	if !game.IsLegal(p, res.Best) {
		t.Fatalf("illegal best move %v:\n%s", res.Best, strings.Join(lines, "\n"))
	}
	return lines
}

func evalSearcher(t *testing.T, opts ...[2]string) *Searcher {
	t.Helper()
	s := New()
	if err := s.SetGame("xiangqi"); err != nil {
		t.Fatal(err)
	}
	for _, o := range append([][2]string{{optHash, "4"}}, opts...) {
		if err := s.SetSearchOption(o[0], o[1]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// uciSearch runs one search in a new engine over UCI: the options set,
// then go depth on fen. It returns the engine's lines, without "info ".
func uciSearch(t *testing.T, options [][2]string, fen string, depth int) []string {
	t.Helper()
	s := startSession(t)
	s.send(t, "uci")
	s.until(t, "uciok")
	for _, o := range append([][2]string{{optHash, "4"}}, options...) {
		s.send(t, "setoption name "+o[0]+" value "+o[1])
	}
	s.send(t, "isready")
	if lines := s.until(t, "readyok"); len(lines) != 1 {
		t.Fatalf("options %q: %q", options, lines)
	}
	s.send(t, "position fen "+fen, fmt.Sprintf("go depth %d", depth))
	var out []string
	for _, l := range s.until(t, "bestmove") {
		out = append(out, strings.TrimPrefix(l, "info "))
	}
	s.send(t, "quit")
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
	return out
}

// The engine with Eval=learned searches the learned evaluation, EvalFile's
// or without it the shipped network (models/xiangqi.nnue): each
// iteration's score, nodes and principal variation over UCI are those of
// an alpha-beta search run directly on nnue.Wrap of the position with
// the engine's options, and the scores are not the classical
// evaluation's. The first search names the network it evaluates with.
func TestLearnedEvalSearched(t *testing.T) {
	file := randomEvalFile(t, 2)
	fileNet, err := nnue.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	shippedNet, shipped, err := nnue.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	const depth = 4
	fens := []string{
		"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
		"r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1C2C1N2/9/RNBAKAB1R b",
		"3k5/4a4/4b4/9/2n6/9/9/4B4/4A4/3AK1R2 w",
	}
	classical := map[string][]string{}
	for _, fen := range fens {
		classical[fen] = iterations(uciSearch(t, [][2]string{{optEval, evalClassical}}, fen, depth))
	}
	for _, c := range []struct {
		name    string
		options [][2]string
		net     *nnue.Net
		file    string // as the info line names it
		sum     string
	}{
		{"EvalFile", [][2]string{{optEvalFile, file}, {optEval, evalLearned}}, fileNet, file, fileSHA256(t, file)},
		{"shipped", [][2]string{{optEval, evalLearned}}, shippedNet, shipped.String(), shipped.SHA256},
	} {
		differs := 0
		for _, fen := range fens {
			p := xiangqiParse(t, fen, nil)
			lines := uciSearch(t, c.options, fen, depth)
			announce := fmt.Sprintf("string eval learned %s sha256 %s net %s kernels %s", c.file, c.sum, c.net.Sizes(), nnue.KernelName())
			if !slices.Contains(lines, announce) {
				t.Errorf("%s, %s: no %q in\n%s", c.name, fen, announce, strings.Join(lines, "\n"))
			}
			learned := iterations(lines)

			opts := alphabeta.DefaultOptionsFor("xiangqi")
			opts.HashMiB = 4
			ab, err := alphabeta.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			w, err := nnue.Wrap(c.net, p)
			if err != nil {
				t.Fatal(err)
			}
			var direct []string
			ab.Search(context.Background(), w, alphabeta.Limits{Depth: depth}, abInfo(p.Clone().(alphabeta.Position), func(l string) { direct = append(direct, l) }))
			if want := iterations(direct); len(learned) != depth || !slices.Equal(learned, want) {
				t.Errorf("%s, %s: the engine's learned search:\n%s\nalpha-beta on nnue.Wrap:\n%s", c.name, fen, strings.Join(learned, "\n"), strings.Join(want, "\n"))
			}
			if !slices.Equal(learned, classical[fen]) {
				differs++
			}
		}
		if differs == 0 {
			t.Errorf("%s: the learned searches equal the classical ones: the learned evaluation is not used", c.name)
		}
	}
}

// A new searcher evaluates as the Eval option's declared default says,
// and names the shipped network when that is learned.
func TestDefaultEval(t *testing.T) {
	var declared string
	for _, o := range New().SearchOptions() {
		if o.Name == optEval {
			declared = o.Default
		}
	}
	if declared != defaultEval || !slices.Contains([]string{evalClassical, evalLearned}, declared) {
		t.Fatalf("Eval declares default %q; defaultEval is %q", declared, defaultEval)
	}
	lines := searchLines(t, evalSearcher(t), xiangqiStart(t), uci.Limits{Depth: 1})
	named := slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "string eval learned models/xiangqi.nnue ") })
	if named != (declared == evalLearned) {
		t.Errorf("default Eval %s: the shipped network named %v:\n%s", declared, named, strings.Join(lines, "\n"))
	}
}

// Eval and EvalFile errors are reported when the option is set, and
// name the problem; a file that fails to load leaves the network loaded
// before.
func TestEvalOptionErrors(t *testing.T) {
	file := randomEvalFile(t, 3)
	dir := t.TempDir()
	damaged := filepath.Join(dir, "damaged.nnue")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	convNet := tinyNetwork(t)
	s := evalSearcher(t)
	for _, c := range []struct{ name, value, want string }{
		{optEval, "neural", `option Eval: "neural" (valid: classical, learned)`},
		{optEvalFile, filepath.Join(dir, "none.nnue"), "option EvalFile: "},
		{optEvalFile, dir, "is a directory"},
		{optEvalFile, damaged, "checksum mismatch"},
		{optEvalFile, convNet, "not a network file (bad magic)"},
	} {
		err := s.SetSearchOption(c.name, c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: %v, want %q", c.name, c.value, err, c.want)
		}
		if c.name == optEvalFile && err != nil && !strings.Contains(err.Error(), c.value) {
			t.Errorf("%s=%s: %v does not name the file", c.name, c.value, err)
		}
	}
	// Learned without EvalFile (none loaded: every file was refused) is
	// the shipped network.
	if err := s.SetSearchOption(optEval, evalLearned); err != nil {
		t.Fatal(err)
	}
	p := xiangqiStart(t)
	if lines := searchLines(t, s, p, uci.Limits{Depth: 1}); !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "string eval learned models/xiangqi.nnue sha256 ") }) {
		t.Errorf("Eval learned without EvalFile does not name the shipped network:\n%s", strings.Join(lines, "\n"))
	}
	if err := s.SetSearchOption(optEvalFile, file); err != nil {
		t.Fatal(err)
	}
	// A bad file now keeps the good one.
	if err := s.SetSearchOption(optEvalFile, damaged); err == nil {
		t.Error("a damaged file after a good one: no error")
	}
	if lines := searchLines(t, s, p, uci.Limits{Depth: 1}); !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "string eval learned "+file+" ") }) {
		t.Errorf("after a refused file the search does not name the network loaded before:\n%s", strings.Join(lines, "\n"))
	}

	// Another game: reported when the variant changes or Eval is set,
	// and searched with its classical evaluation, saying so.
	if err := s.SetGame("connect4"); err == nil || !strings.Contains(err.Error(), "learned is Xiangqi's evaluation, and the variant is connect4") {
		t.Errorf("variant connect4 with Eval learned: %v", err)
	}
	if err := s.SetSearchOption(optEval, evalLearned); err == nil || !strings.Contains(err.Error(), "connect4") {
		t.Errorf("Eval learned on connect4: %v", err)
	}
	g, _ := game.Lookup("connect4")
	c4, _ := g.New(nil)
	for _, mover := range []string{moverAB, moverABZero} {
		if mover == moverABZero {
			if err := s.SetSearchOption(optNetwork, ""); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetSearchOption(optMover, mover); err != nil {
			t.Fatal(err)
		}
		lines := searchLines(t, s, c4, uci.Limits{Depth: 2, Nodes: 10})
		if !slices.Contains(lines, "string eval classical: the learned evaluation is Xiangqi's, not connect4's") {
			t.Errorf("%s on connect4 with Eval learned: no note of the classical evaluation:\n%s", mover, strings.Join(lines, "\n"))
		}
	}
	if err := s.SetGame("xiangqi"); err != nil {
		t.Errorf("back to xiangqi: %v", err)
	}
	if err := s.SetSearchOption(optEval, evalClassical); err != nil {
		t.Error(err)
	}
	// EvalFile unset with Eval learned: back to the shipped network.
	if err := s.SetSearchOption(optEval, evalLearned); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSearchOption(optEvalFile, ""); err != nil {
		t.Errorf("EvalFile unset with Eval learned: %v", err)
	}
	if lines := searchLines(t, s, p, uci.Limits{Depth: 1}); !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "string eval learned models/xiangqi.nnue sha256 ") }) {
		t.Errorf("EvalFile unset: the search does not name the shipped network:\n%s", strings.Join(lines, "\n"))
	}
}

// The abzero mover's alpha-beta searches the learned evaluation: its
// iterations differ from the classical one's at the same depth, while its
// network search is the same.
func TestLearnedABZero(t *testing.T) {
	file := randomEvalFile(t, 4)
	network := tinyNetwork(t)
	p := xiangqiStart(t)
	var got [2][]string
	for i, ev := range []string{evalClassical, evalLearned} {
		s := moverSearcher(t, moverABZero, network)
		for _, o := range [][2]string{{optEvalFile, file}, {optEval, ev}} {
			if err := s.SetSearchOption(o[0], o[1]); err != nil {
				t.Fatal(err)
			}
		}
		lines := searchLines(t, s, p, uci.Limits{Depth: 3, Nodes: 30})
		if named := slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "string eval learned "+file) }); named != (ev == evalLearned) {
			t.Errorf("Eval %s: the learned network named %v:\n%s", ev, named, strings.Join(lines, "\n"))
		}
		got[i] = iterations(lines)
		if len(got[i]) != 3 {
			t.Fatalf("Eval %s: iterations %q", ev, got[i])
		}
	}
	if slices.Equal(got[0], got[1]) {
		t.Errorf("abzero's alpha-beta gives the same iterations with either evaluation:\n%s", strings.Join(got[0], "\n"))
	}
}
