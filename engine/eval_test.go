package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// Over UCI the options are declared, Eval=learned before EvalFile is
// reported and kept, and the engine then plays legal moves with the
// learned evaluation, naming the network once.
func TestLearnedEvalOverUCI(t *testing.T) {
	file := randomEvalFile(t, 1)
	s := startSession(t)
	s.send(t, "uci")
	lines := s.until(t, "uciok")
	for _, want := range []string{"option name Eval type combo default classical var classical var learned", "option name EvalFile type string default <empty>"} {
		if !slices.Contains(lines, want) {
			t.Errorf("uci: no %q in\n%s", want, strings.Join(lines, "\n"))
		}
	}
	s.send(t, "setoption name Eval value learned", "isready")
	lines = s.until(t, "readyok")
	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "info string error: option Eval: no learned network ships") && strings.Contains(l, "EvalFile")
	}) {
		t.Errorf("Eval learned without EvalFile: no error telling to set EvalFile:\n%s", strings.Join(lines, "\n"))
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

// The engine with Eval=learned searches the learned evaluation: each
// iteration's score, nodes and principal variation are those of an
// alpha-beta search run directly on nnue.Wrap of the position with the
// engine's options, and the scores are not the classical evaluation's.
func TestLearnedEvalSearched(t *testing.T) {
	file := randomEvalFile(t, 2)
	net, err := nnue.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	const depth = 4
	differs := 0
	for _, fen := range []string{
		"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
		"r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/2P6/P3P1P1P/1C2C1N2/9/RNBAKAB1R b",
		"3k5/4a4/4b4/9/2n6/9/9/4B4/4A4/3AK1R2 w",
	} {
		p := xiangqiParse(t, fen, nil)
		learned := iterations(searchLines(t, evalSearcher(t, [2]string{optEvalFile, file}, [2]string{optEval, evalLearned}), p, uci.Limits{Depth: depth}))
		classical := iterations(searchLines(t, evalSearcher(t), p, uci.Limits{Depth: depth}))

		opts := alphabeta.DefaultOptionsFor("xiangqi")
		opts.HashMiB = 4
		ab, err := alphabeta.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		w, err := nnue.Wrap(net, p)
		if err != nil {
			t.Fatal(err)
		}
		var direct []string
		ab.Search(context.Background(), w, alphabeta.Limits{Depth: depth}, abInfo(p.Clone().(alphabeta.Position), func(l string) { direct = append(direct, l) }))
		if want := iterations(direct); len(learned) != depth || !slices.Equal(learned, want) {
			t.Errorf("%s: the engine's learned search:\n%s\nalpha-beta on nnue.Wrap:\n%s", fen, strings.Join(learned, "\n"), strings.Join(want, "\n"))
		}
		if !slices.Equal(learned, classical) {
			differs++
		}
	}
	if differs == 0 {
		t.Error("the learned searches equal the classical ones: the learned evaluation is not used")
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
		{optEval, evalLearned, "option Eval: no learned network ships with this engine: set the EvalFile option"},
	} {
		err := s.SetSearchOption(c.name, c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%s: %v, want %q", c.name, c.value, err, c.want)
		}
		if c.name == optEvalFile && err != nil && !strings.Contains(err.Error(), c.value) {
			t.Errorf("%s=%s: %v does not name the file", c.name, c.value, err)
		}
	}
	// Learned is kept without a network, and a Xiangqi search then fails
	// rather than play the classical evaluation.
	p := xiangqiStart(t)
	if _, err := s.Search(context.Background(), p.Clone(), uci.Limits{Depth: 1}, func(string) {}); err == nil || !strings.Contains(err.Error(), "EvalFile") {
		t.Errorf("a learned search without a network: %v", err)
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
	// EvalFile unset with Eval learned: reported.
	if err := s.SetSearchOption(optEval, evalLearned); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSearchOption(optEvalFile, ""); !errors.Is(err, errNoLearnedNet) {
		t.Errorf("EvalFile unset with Eval learned: %v", err)
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
