package arena

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
)

// humanMatch plays a match of a scripted person (input) against random.
func humanMatch(t *testing.T, variant, input string, games int) (Result, string, error) {
	t.Helper()
	var out strings.Builder
	h, err := NewHumanSpec(variant, "me", strings.NewReader(input), &out)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParsePlayer("random", variant)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := RunMatch(ctx, Match{Game: variant, A: h, B: r, Games: games, Concurrency: 4, Seed: 5})
	return res, out.String(), err
}

// A person at the terminal: the board is drawn, commands and bad moves
// are answered (with the reason), the typed moves are the ones played, in
// order, and each game ends with the result shown.
func TestHumanPlaysConnectFour(t *testing.T) {
	input := "\nmoves\nboard\nx9\n8\n" + strings.Repeat("1\n2\n3\n4\n5\n6\n7\n", 30)
	res, out, err := humanMatch(t, "connect4", input, 2)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Records) != 2 {
		t.Fatalf("%d games", len(res.Records))
	}
	for _, want := range []string{"me, your move (e.g. 1;", "legal moves: 1 2 3 4 5 6 7", `refused: connect4: move "x9" is not a column digit 1-7`,
		`refused: connect4: move "8"`, " to move\n", "game over: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the person never saw %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "game over: "); n != 2 {
		t.Errorf("%d game ends shown", n)
	}
	// The person's moves, in order, are the typed columns that were legal
	// (a full column is refused and the next line taken).
	var typed []string
	for _, rec := range res.Records {
		p, _ := game.Lookup("connect4")
		pos, _ := p.New(nil)
		for i, m := range rec.Moves {
			if err := game.Play(pos, m); err != nil {
				t.Fatalf("game %d does not replay: %v", rec.Index, err)
			}
			if (rec.First == "me") == (i%2 == 0) {
				typed = append(typed, m)
			}
		}
	}
	if len(typed) < 4 || typed[0] != "1" || typed[1] != "2" {
		t.Errorf("the person's moves %v do not follow the input", typed)
	}
}

// Resigning loses the game; an input that ends stops the match with a
// named error instead of hanging; an illegal Xiangqi move is refused with
// the reason.
func TestHumanResignsAndInputEnds(t *testing.T) {
	res, out, err := humanMatch(t, "connect4", "resign\n", 1)
	if err != nil || res.Losses != 1 || !strings.Contains(res.Records[0].Reason, "me resigns") {
		t.Fatalf("resign: %v, %+v\n%s", err, res.Score, out)
	}
	_, out, err = humanMatch(t, "xiangqi", "h2e9\nh2e2\n", 2)
	if err == nil || !strings.Contains(err.Error(), "the input ended") {
		t.Fatalf("input ended: %v", err)
	}
	if !strings.Contains(out, "refused: ") || !strings.Contains(out, "h2e9") || !strings.Contains(out, "~") {
		t.Errorf("xiangqi: no board or no refusal of h2e9:\n%s", out)
	}
}
