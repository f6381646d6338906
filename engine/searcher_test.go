package engine

import (
	"bufio"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
)

// serve speaks UCI on in and out with a new searcher, as tabula engine does
// by default.
func serve(in io.Reader, out io.Writer) error {
	e, err := uci.NewEngine(in, out, uci.WithVariant("xiangqi"), uci.WithSearcher(New()))
	if err != nil {
		return err
	}
	return e.Run(context.Background())
}

// untilBestmove runs the engine on input and returns its output up to the
// first bestmove. Input stays open until then: end of input stops a search.
func untilBestmove(t *testing.T, input string) *strings.Builder {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serve(inR, outW); outW.Close() }()
	go io.WriteString(inW, input)
	var text strings.Builder
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		text.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "bestmove") {
			break
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return &text
}

// TestSearchTranscript drives the real engine with the alpha-beta searcher.
// Input stays open until bestmove arrives: end of input stops a search.
func TestSearchTranscript(t *testing.T) {
	text := untilBestmove(t, "setoption name UCI_Variant value xiangqi\n"+
		"position fen 3k5/R8/9/9/9/9/9/9/9/R3K4 w\n"+
		"go depth 3\n")
	if !strings.Contains(text.String(), "score mate 1") {
		t.Fatalf("no mate in one found:\n%s", text.String())
	}
	// The best move must end the game: Black has no legal move after it.
	g, _ := game.Lookup("xiangqi")
	p, err := g.Parse("3k5/R8/9/9/9/9/9/9/9/R3K4 w", nil)
	if err != nil {
		t.Fatal(err)
	}
	best := strings.Fields(text.String()[strings.LastIndex(text.String(), "bestmove"):])[1]
	if err := game.Play(p, best); err != nil || p.Status().Result != game.Loss {
		t.Fatalf("bestmove %s does not mate: %v %+v", best, err, p.Status())
	}
}

func TestSearchOptions(t *testing.T) {
	s := New()
	for _, o := range s.SearchOptions() {
		if slices.Contains(s.StringOptions(), o.Name) {
			continue // free text, not checked
		}
		if err := o.Check(o.Default); err != nil {
			t.Errorf("default of %s rejected: %v", o.Name, err)
		}
	}
	if err := s.SetSearchOption(optAlgorithm, "mtdf"); err != nil || s.play.AlphaBeta.Algorithm != "mtdf" {
		t.Fatalf("Algorithm: %v", err)
	}
	g, _ := game.Lookup("connect4")
	p, _ := g.New(nil)
	res, err := s.Search(t.Context(), p, uci.Limits{Depth: 4}, func(string) {})
	if err != nil || !game.IsLegal(p, res.Best) {
		t.Fatalf("mtdf search: %v %v", res.Best, err)
	}
}

func TestMoveTime(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		lim  uci.Limits
		want time.Duration
	}{
		{uci.Limits{MoveTime: 500 * ms}, 500 * ms},
		{uci.Limits{}, 0},
		{uci.Limits{Time: [2]time.Duration{30 * time.Second, 0}}, time.Second - 20*ms},
		{uci.Limits{Time: [2]time.Duration{0, 10 * time.Second}, MovesToGo: 1}, 5*time.Second - 20*ms},
		// A given clock at zero: move at once; without a clock, no limit.
		{uci.Limits{Clocked: [2]bool{true, true}}, minMoveTime},
		{uci.Limits{Inc: [2]time.Duration{100 * ms, 0}, Clocked: [2]bool{true, false}}, minMoveTime},
		{uci.Limits{Inc: [2]time.Duration{100 * ms, 0}}, 0},
	} {
		us := game.First
		if c.lim.Time[1] > 0 {
			us = game.Second
		}
		if got := moveTime(c.lim, us); got != c.want {
			t.Errorf("%+v: %v, want %v", c.lim, got, c.want)
		}
	}
}

func TestSearchTimes(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		lim        uci.Limits
		soft, hard time.Duration
	}{
		// movetime is a hard limit, used in full.
		{uci.Limits{MoveTime: 500 * ms}, 0, 500 * ms},
		{uci.Limits{}, 0, 0},
		// A clock: its share is the soft limit, three times it the hard.
		{uci.Limits{Time: [2]time.Duration{30 * time.Second, 0}}, time.Second - 20*ms, 3*time.Second - 60*ms},
		// The hard limit never passes half of the clock.
		{uci.Limits{Time: [2]time.Duration{3 * time.Second, 0}, MovesToGo: 2}, 1500*ms - 20*ms, 1500*ms - 20*ms},
		{uci.Limits{Clocked: [2]bool{true, true}}, minMoveTime, minMoveTime},
	} {
		soft, hard := searchTimes(c.lim, game.First)
		if soft != c.soft || hard != c.hard {
			t.Errorf("%+v: soft %v hard %v, want %v and %v", c.lim, soft, hard, c.soft, c.hard)
		}
	}
}

// Each game's search uses that game's default features; the algorithm,
// hash and threads the user set survive a change of game.
func TestSearchFeaturesFollowTheGame(t *testing.T) {
	s := New()
	if err := s.SetSearchOption(optHash, "8"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSearchOption(optThreads, "2"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"xiangqi", "connect4", "xiangqi"} {
		g, _ := game.Lookup(name)
		p, _ := g.New(nil)
		if _, err := s.Search(t.Context(), p, uci.Limits{Depth: 2}, func(string) {}); err != nil {
			t.Fatal(err)
		}
		want := alphabeta.DefaultOptionsFor(name)
		want.HashMiB, want.Threads = 8, 2
		if s.opts != want {
			t.Errorf("%s: options %+v, want %+v", name, s.opts, want)
		}
	}
}
