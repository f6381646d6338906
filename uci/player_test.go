package uci

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// fakeScript is a shell engine for Player tests; $1 names its behaviour on
// `go` (good: bestmove 1, illegal: bestmove 9, hang: nothing, crash: exit
// 2) and $2 is a file where it logs the commands it reads.
const fakeScript = `
while read -r line; do
	echo "$line" >> "$2"
	case "$line" in
	uci) echo "id name fake-$1"; echo "option name Hash type spin default 1 min 1 max 8"; echo uciok ;;
	isready) echo readyok ;;
	"setoption name Bogus"*) echo "No such option: Bogus" ;;
	go*)
		case "$1" in
		good) echo "info depth 1 score cp 3"; echo "bestmove 1" ;;
		illegal) echo "bestmove 9" ;;
		crash) echo "oops" >&2; exit 2 ;;
		esac ;;
	quit) exit 0 ;;
	esac
done
`

// fakePlayer starts the shell engine in the given mode; it returns the
// player and its command log file.
func fakePlayer(t *testing.T, mode string, cfg PlayerConfig) (*Player, string) {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	dir := t.TempDir()
	script, log := filepath.Join(dir, "engine.sh"), filepath.Join(dir, "log")
	if err := os.WriteFile(script, []byte(fakeScript), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Path, cfg.Args = "/bin/sh", []string{script, mode, log}
	if cfg.ReplyTimeout == 0 {
		cfg.ReplyTimeout = 5 * time.Second
	}
	p, err := NewPlayer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, log
}

func countStart(t *testing.T) game.Position {
	t.Helper()
	g, err := game.Lookup("count")
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParsePlayerSpec(t *testing.T) {
	c, err := ParsePlayerSpec("/usr/games/fairy-stockfish,depth=3,Hash=16,name=fsf", "count")
	if err != nil {
		t.Fatal(err)
	}
	// The variant defaults to the game's UCIVariant.
	if c.Path != "/usr/games/fairy-stockfish" || c.Depth != 3 || c.Variant != "counting" || c.Name != "fsf" ||
		len(c.Options) != 1 || c.Options[0] != (SetOptionArg{"Hash", "16"}) {
		t.Errorf("got %+v", c)
	}
	c, err = ParsePlayerSpec("eng --flag x,movetime=100,variant=none", "connect4")
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "eng" || len(c.Args) != 2 || c.MoveTime != 100*time.Millisecond || c.Variant != "" || c.Name != "uci:eng --flag x,movetime=100,variant=none" {
		t.Errorf("got %+v", c)
	}
	if cmd, _ := (&Player{cfg: c}).goCommand(); cmd != "go movetime 100" {
		t.Errorf("go command %q", cmd)
	}
	c, _ = ParsePlayerSpec("eng", "tally")
	if c.Depth != 1 || c.Variant != "" {
		t.Errorf("defaults: %+v", c)
	}
	for _, bad := range []string{"", ",depth=1", "eng,depth=0", "eng,depth=x", "eng,nodes=-1", "eng,depth=1,depth=2", "eng,novalue", "eng,=3", "eng,name="} {
		if _, err := ParsePlayerSpec(bad, "xiangqi"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPlayerPlays(t *testing.T) {
	p, log := fakePlayer(t, "good", PlayerConfig{Variant: "count", Depth: 2, Options: []SetOptionArg{{"Hash", "4"}}})
	if p.EngineName() != "fake-good" {
		t.Errorf("engine name %q", p.EngineName())
	}
	start := countStart(t)
	if err := p.NewGame(start, 1); err != nil {
		t.Fatal(err)
	}
	pos := start.Clone()
	var moves []game.Move
	for range 3 {
		m, err := p.Move(context.Background(), pos.Clone(), moves)
		if err != nil {
			t.Fatal(err)
		}
		if m != 1 {
			t.Fatalf("move %v, want 1", m)
		}
		pos.Make(m)
		moves = append(moves, m)
	}
	p.Close()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"setoption name UCI_Variant value count\n", "setoption name Hash value 4\n", "ucinewgame\n",
		"position fen 0 w\ngo depth 2\n", "position fen 0 w moves 1 1\ngo depth 2\n", "quit\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the engine did not read %q; it read:\n%s", want, got)
		}
	}
}

func TestPlayerBadOption(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "engine.sh")
	os.WriteFile(script, []byte(fakeScript), 0o644)
	_, err := NewPlayer(context.Background(), PlayerConfig{Path: "/bin/sh", Args: []string{script, "good", filepath.Join(dir, "log")},
		Options: []SetOptionArg{{"Bogus", "1"}}, Depth: 1})
	if err == nil || !strings.Contains(err.Error(), "No such option") {
		t.Errorf("bad option: %v", err)
	}
	if _, err := NewPlayer(context.Background(), PlayerConfig{Path: filepath.Join(dir, "missing"), Depth: 1}); !errors.Is(err, ErrEngineFailed) {
		t.Errorf("missing engine: %v", err)
	}
}

func TestPlayerFailures(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"illegal", `illegal bestmove "9" after "position fen 0 w"`},
		{"hang", "no reply"},
		{"crash", "oops"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			p, _ := fakePlayer(t, tc.mode, PlayerConfig{Variant: "count", MoveTime: 20 * time.Millisecond, Margin: 200 * time.Millisecond})
			start := countStart(t)
			for game := range 2 { // a failed engine is restarted at the next game
				if err := p.NewGame(start, 1); err != nil {
					t.Fatalf("game %d: %v", game, err)
				}
				_, err := p.Move(context.Background(), start.Clone(), nil)
				if !errors.Is(err, ErrEngineFailed) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("game %d: error %v, want ErrEngineFailed with %q", game, err, tc.want)
				}
			}
		})
	}
}

func TestPlayerCancel(t *testing.T) {
	p, _ := fakePlayer(t, "hang", PlayerConfig{Variant: "count", Depth: 1})
	start := countStart(t)
	if err := p.NewGame(start, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.Move(ctx, start.Clone(), nil); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrEngineFailed) {
		t.Errorf("cancelled move: %v", err)
	}
	if err := p.NewGame(start, 1); err != nil {
		t.Errorf("new game after a cancelled move: %v", err)
	}
}
