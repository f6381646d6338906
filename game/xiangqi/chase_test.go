package xiangqi

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// chaseCase is one line of testdata/chase.txt.
type chaseCase struct {
	name, fen string
	moves     []string
	want      string // "RESULT REASON" for the side to move after the moves
	fsf11     string // Debian's Fairy-Stockfish 11.1: RESULT
	line      int
}

func readChaseCases(t *testing.T) []chaseCase {
	t.Helper()
	f, err := os.Open("testdata/chase.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []chaseCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "|")
		if len(fields) != 6 {
			t.Fatalf("chase.txt:%d: %d fields, want 6", n, len(fields))
		}
		cases = append(cases, chaseCase{
			name: fields[0], fen: fields[1], moves: strings.Fields(fields[2]),
			want: fields[3], fsf11: fields[4], line: n,
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func resultWord(r game.Result) string {
	switch r {
	case game.Win:
		return "win"
	case game.Loss:
		return "loss"
	case game.Draw:
		return "draw"
	}
	return "ongoing"
}

var reasonWord = map[string]string{
	ReasonPerpetualChase: "chase",
	ReasonPerpetualCheck: "check",
	ReasonRepetition:     "repetition",
}

// TestChaseVerdicts checks our verdict on every recorded repetition, and
// that the game is not over one ply before the third occurrence.
func TestChaseVerdicts(t *testing.T) {
	for _, c := range readChaseCases(t) {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, c.fen)
			playAll(t, p, strings.Join(c.moves[:len(c.moves)-1], " "))
			if s := p.Status(); s.Over() {
				t.Fatalf("over before the last move: %+v", s)
			}
			playAll(t, p, c.moves[len(c.moves)-1])
			s := p.Status()
			if got := resultWord(s.Result) + " " + reasonWord[s.Reason]; got != c.want {
				t.Errorf("chase.txt:%d: %s (%+v), want %s", c.line, got, s, c.want)
			}
			// The search meets these verdicts at every third occurrence.
			if a := testing.AllocsPerRun(10, func() { p.RuleStatus() }); a != 0 {
				t.Errorf("RuleStatus allocates %v times", a)
			}
		})
	}
}

// fsfVerdict asks a Fairy-Stockfish UCI engine for the verdict of a case:
// with every move but the last played, a depth-1 search restricted to the
// last move scores the child that completes the third occurrence. FSF
// adjudicates repetitions at every non-root node (three occurrences when
// the repetition reaches back before the root), so that score is the
// verdict seen by the mover of the last move: "mate -N" (a loss for the
// mover) means a win for the side to move afterwards, "mate N" a loss and
// "cp 0" a draw. The score of any other move is an evaluation.
func fsfVerdict(cmd *exec.Cmd, c chaseCase) (string, error) {
	var in strings.Builder
	fmt.Fprintf(&in, "uci\nsetoption name UCI_Variant value xiangqi\nisready\n")
	fmt.Fprintf(&in, "position fen %s moves %s\n", c.fen, strings.Join(c.moves[:len(c.moves)-1], " "))
	fmt.Fprintf(&in, "go depth 1 searchmoves %s\n", c.moves[len(c.moves)-1])
	// Stdin stays open until bestmove: at end of input the engine quits,
	// cutting the search short.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", fmt.Errorf("fsf pipe: %w", err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", fmt.Errorf("fsf pipe: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("fsf start: %w", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if _, err := stdin.Write([]byte(in.String())); err != nil {
		return "", fmt.Errorf("fsf write: %w", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()
	sc := bufio.NewScanner(stdout)
	score := ""
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		for i := 0; i+2 < len(f); i++ {
			if f[i] == "score" {
				score = f[i+1] + " " + f[i+2]
			}
		}
		if len(f) > 0 && f[0] == "bestmove" {
			break
		}
	}
	kind, val, ok := strings.Cut(score, " ")
	if !ok {
		return "", fmt.Errorf("fsf gave no score before bestmove")
	}
	n, err := strconv.Atoi(val)
	if err != nil {
		return "", fmt.Errorf("fsf score %q: %w", score, err)
	}
	switch {
	case kind == "mate" && n < 0:
		return "win", nil
	case kind == "mate" && n > 0:
		return "loss", nil
	case kind == "cp" && n == 0:
		return "draw", nil
	}
	return "", fmt.Errorf("fsf score %q is not a verdict", score)
}

// TestChaseFSF replays the recorded cases against Fairy-Stockfish so that
// the verdicts stay those of the peer: Debian's /usr/games/fairy-stockfish
// (11.1, no chasing rule) against the fsf11 column, and, when
// TABULA_FSF_WASM names the uci.js of the npm package
// fairy-stockfish-nnue.wasm (a recent FSF with the chasing rule), that
// build through node against the want column.
func TestChaseFSF(t *testing.T) {
	const debian = "/usr/games/fairy-stockfish"
	wasm := os.Getenv("TABULA_FSF_WASM")
	_, errDebian := os.Stat(debian)
	if errDebian != nil && wasm == "" {
		t.Skipf("no Fairy-Stockfish: %s is missing (apt-get install fairy-stockfish) and TABULA_FSF_WASM is unset", debian)
	}
	for _, c := range readChaseCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if errDebian == nil {
				got, err := fsfVerdict(exec.Command(debian), c)
				if err != nil {
					t.Fatalf("chase.txt:%d: %v", c.line, err)
				}
				if got != c.fsf11 {
					t.Errorf("chase.txt:%d: Fairy-Stockfish 11.1 says %s, recorded %s", c.line, got, c.fsf11)
				}
			}
			if wasm != "" {
				got, err := fsfVerdict(exec.Command("node", "--no-experimental-fetch", wasm), c)
				if err != nil {
					t.Fatalf("chase.txt:%d: %v", c.line, err)
				}
				if want, _, _ := strings.Cut(c.want, " "); got != want {
					t.Errorf("chase.txt:%d: Fairy-Stockfish (wasm) says %s, we say %s", c.line, got, c.want)
				}
			}
		})
	}
}

// TestRepetitionAfterNullMove: a search's null move may stand right
// before the first occurrence of a repeated position. The verdict must
// not replay the pass as a move (it panicked doing so), and the pass is
// not a move of the chase.
func TestRepetitionAfterNullMove(t *testing.T) {
	p := New(DefaultRules)
	p.MakeNull()
	cycle := []string{"b10c8", "b1c3", "c8b10", "c3b1"}
	for range 2 {
		for _, s := range cycle {
			m, err := p.ParseMove(s)
			if err != nil {
				t.Fatal(err)
			}
			p.Make(m)
		}
	}
	st := p.RuleStatus()
	if st.Result != game.Draw || st.Reason != ReasonRepetition {
		t.Fatalf("after a pass and two horse cycles: %+v, want a draw by repetition", st)
	}
}
