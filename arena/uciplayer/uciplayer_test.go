package uciplayer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/xiangqi"
)

const fairyStockfish = "/usr/games/fairy-stockfish"

// built is tabula's binary, built once for the tests that run it as an
// engine.
var built struct {
	once     sync.Once
	dir, bin string
	out      []byte
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// ownEngine returns tabula's binary, building it on first use (skipped
// in -short).
func ownEngine(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cmd/tabula")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "uciplayer"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "tabula")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, "github.com/tabula-zero/tabula/cmd/tabula").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

func needFairy(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(fairyStockfish); err != nil {
		t.Skipf("%s is missing (Debian package fairy-stockfish): %v", fairyStockfish, err)
	}
}

func TestParse(t *testing.T) {
	if _, err := arena.ParsePlayer("uci:/no/such/engine,depth=1", "xiangqi"); err == nil {
		t.Error("missing engine: no error")
	}
	if _, err := arena.ParsePlayer("uci:sh,depth=x", "xiangqi"); err == nil {
		t.Error("bad depth: no error")
	}
	s, err := arena.ParsePlayer("uci:sh,depth=2,name=shell", "xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "shell" || s.Kind != arena.KindCustom {
		t.Errorf("spec %+v", s)
	}
}

// A forfeit wraps both arena.ErrForfeit and the engine's error.
func TestForfeitError(t *testing.T) {
	f := forfeit{errors.New("engine died")}
	if !errors.Is(f, arena.ErrForfeit) || f.Error() != "engine died" {
		t.Errorf("forfeit %v", f)
	}
}

func TestMatchAgainstFairyStockfish(t *testing.T) {
	needFairy(t)
	a, err := arena.ParsePlayer("ab:depth=2", "xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	b, err := arena.ParsePlayer("uci:"+fairyStockfish+",depth=1,Hash=16", "xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	res, err := arena.RunMatch(context.Background(), arena.Match{Game: "xiangqi", A: a, B: b, Games: 4, Concurrency: 1, OpeningPlies: 2, Seed: 7, PlyCap: 300})
	if err != nil {
		t.Fatal(err)
	}
	if res.Games() != 4 || len(res.Records) != 4 {
		t.Fatalf("W-D-L %d-%d-%d and %d records, want 4 games", res.Wins, res.Draws, res.Losses, len(res.Records))
	}
	g, _ := game.Lookup("xiangqi")
	for _, r := range res.Records {
		if strings.Contains(r.Reason, "forfeit") || strings.Contains(r.Reason, "illegal") {
			t.Errorf("game %d: %s", r.Index, r.Reason)
		}
		p, err := g.Parse(r.Start, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := game.Play(p, r.Moves...); err != nil {
			t.Errorf("game %d: %v", r.Index, err)
		}
		if len(r.Moves) != r.Plies {
			t.Errorf("game %d: %d moves, %d plies", r.Index, len(r.Moves), r.Plies)
		}
		t.Logf("game %d: %s-%s %s (%s, %d plies)", r.Index, r.First, r.Second, r.Result, r.Reason, r.Plies)
	}
}

// tabula's own engine played through the uci player makes the moves of the
// in-process alpha-beta player at the same fixed depth.
func TestOwnEngineMatchesInProcess(t *testing.T) {
	bin := ownEngine(t)
	const depth = "3"
	// The engine searches with the learned evaluation by default, a spec
	// with the classical one unless it says eval=learned.
	inSpec, err := arena.ParsePlayer("ab:depth="+depth+",hash=16,eval=learned", "xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	exSpec, err := arena.ParsePlayer("uci:"+bin+" engine,depth="+depth+",Hash=16", "xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	in, err := inSpec.New()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ex, err := exSpec.New()
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	g, _ := game.Lookup("xiangqi")
	start, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range []arena.Player{in, ex} {
		if err := pl.NewGame(start, 1); err != nil {
			t.Fatal(err)
		}
	}
	pos := start.Clone()
	var moves []game.Move
	ctx := context.Background()
	for ply := 0; ply < 40 && !pos.Status().Over(); ply++ {
		mi, err := in.Move(ctx, pos.Clone(), moves)
		if err != nil {
			t.Fatal(err)
		}
		me, err := ex.Move(ctx, pos.Clone(), moves)
		if err != nil {
			t.Fatal(err)
		}
		if mi != me {
			t.Fatalf("ply %d in %s: in-process %s, engine %s", ply, pos, pos.FormatMove(mi), pos.FormatMove(me))
		}
		pos.Make(mi)
		moves = append(moves, mi)
	}
	t.Logf("%d plies agree", len(moves))
}

// An engine that crashes on its first search forfeits every game it plays
// and the match still ends, with the reason recorded.
func TestCrashingEngineForfeits(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	script := filepath.Join(t.TempDir(), "crash.sh")
	body := `while read -r l; do case "$l" in uci) echo uciok;; isready) echo readyok;; go*) exit 3;; quit) exit 0;; esac; done`
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := arena.ParsePlayer("random", "xiangqi")
	b, err := Parse("uci:/bin/sh "+script+",depth=1,name=crash", "/bin/sh "+script+",depth=1,name=crash", "xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	res, err := arena.RunMatch(context.Background(), arena.Match{Game: "xiangqi", A: a, B: b, Games: 2, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Wins != 2 {
		t.Errorf("random vs crash: W-D-L %d-%d-%d, want 2-0-0", res.Wins, res.Draws, res.Losses)
	}
	for _, r := range res.Records {
		if !strings.Contains(r.Reason, "crash forfeits") || !strings.Contains(r.Reason, "exit status 3") {
			t.Errorf("game %d: reason %q", r.Index, r.Reason)
		}
	}
}

// fakeEngine writes a shell engine that answers the handshake and, to
// go, the reply given (nothing: it never moves), appending each go line
// to the returned log.
func fakeEngine(t *testing.T, reply string) (script, log string) {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	dir := t.TempDir()
	script, log = filepath.Join(dir, "engine.sh"), filepath.Join(dir, "go.log")
	answer := ""
	if reply != "" {
		answer = "; echo " + reply
	}
	body := `while read -r l; do case "$l" in uci) echo uciok;; isready) echo readyok;; go*) echo "$l" >> ` + log + answer + `;; quit) exit 0;; esac; done`
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return script, log
}

// With tc= the arena keeps the engine's clock and sends it with every go:
// both sides' times (the unclocked opponent's as the engine's own), the
// increments and the moves to the next control, counting down.
func TestClockSentToEngine(t *testing.T) {
	script, log := fakeEngine(t, "bestmove 4")
	a, err := arena.ParsePlayer("uci:/bin/sh "+script+",tc=40/60+0.5,name=clocked", "connect4")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := arena.ParsePlayer("random", "connect4")
	// Column 4 takes six stones: three moves of the engine a game.
	res, err := arena.RunMatch(context.Background(), arena.Match{Game: "connect4", A: a, B: b, Games: 2, Concurrency: 1, PlyCap: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.Reason != "ply cap" {
			t.Errorf("game %d: %s", r.Index, r.Reason)
		}
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 5 { // three moves as first, two as second
		t.Fatalf("go lines:\n%s", data)
	}
	for i, l := range lines {
		var wtime, btime, winc, binc, togo int
		if n, err := fmt.Sscanf(l, "go wtime %d btime %d winc %d binc %d movestogo %d", &wtime, &btime, &winc, &binc, &togo); n != 5 || err != nil {
			t.Errorf("go line %q: %v", l, err)
			continue
		}
		k := i // the engine's move in its game
		if i >= 3 {
			k = i - 3
		}
		if wtime != btime || winc != 500 || binc != 500 || togo != 40-k || wtime > 60000+500*k || k == 0 && wtime != 60000 {
			t.Errorf("go line %d %q: want both clocks the engine's, 60 s at first, 0.5 s increments, movestogo %d", i, l, 40-k)
		}
	}
}

// An engine that does not move within its clock loses on time, recorded
// as such (it never answers here, so no speed of machine saves it).
func TestEngineLosesOnTime(t *testing.T) {
	script, _ := fakeEngine(t, "")
	a, err := arena.ParsePlayer("uci:/bin/sh "+script+",tc=0.05,name=silent", "connect4")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := arena.ParsePlayer("random", "connect4")
	res, err := arena.RunMatch(context.Background(), arena.Match{Game: "connect4", A: a, B: b, Games: 2, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Losses != 2 {
		t.Errorf("silent vs random: %s, want two losses", res.Score)
	}
	for _, r := range res.Records {
		if !strings.Contains(r.Reason, "silent loses on time (tc=0.05: ") {
			t.Errorf("game %d: reason %q", r.Index, r.Reason)
		}
	}
	for _, spec := range []string{"uci:/bin/sh " + script + ",tc=60+", "uci:/bin/sh " + script + ",tc=10,depth=2"} {
		if _, err := arena.ParsePlayer(spec, "connect4"); err == nil || !strings.Contains(err.Error(), "tc=") {
			t.Errorf("%s: %v", spec, err)
		}
	}
}

// tabula's own engine plays under a clock: it reads go wtime/btime/
// movestogo, moves, and a clock of a minute for a thousand moves leaves
// it far more than the share it takes.
func TestOwnEngineUnderClock(t *testing.T) {
	bin := ownEngine(t)
	a, err := arena.ParsePlayer("uci:"+bin+" engine,tc=1000/60,Hash=16,name=engine", "xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := arena.ParsePlayer("random", "xiangqi")
	res, err := arena.RunMatch(context.Background(), arena.Match{Game: "xiangqi", A: a, B: b, Games: 2, Concurrency: 1, PlyCap: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.Reason != "ply cap" || r.Plies != 4 {
			t.Errorf("game %d: %s after %d plies", r.Index, r.Reason, r.Plies)
		}
	}
}
