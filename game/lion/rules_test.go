package lion

import (
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
)

func play(t *testing.T, p game.Position, moves ...string) {
	t.Helper()
	if err := game.Play(p, moves...); err != nil {
		t.Fatal(err)
	}
}

func moveTexts(p game.Position) []string {
	var out []string
	for _, m := range p.GenerateMoves(nil) {
		out = append(out, p.FormatMove(m))
	}
	return out
}

func wantStatus(t *testing.T, p game.Position, res game.Result, reason string) {
	t.Helper()
	st := p.Status()
	if st.Result != res || st.Reason != reason {
		t.Fatalf("%s: status %v %q, want %v %q", p, st.Result, st.Reason, res, reason)
	}
	n := len(p.GenerateMoves(nil))
	boardDecided := reason == ReasonLionCaptured || reason == ReasonTry || reason == ReasonNoMove
	if boardDecided && n != 0 {
		t.Fatalf("%s: decided by the board (%s) but %d moves generated", p, reason, n)
	}
	if !boardDecided && n == 0 {
		t.Fatalf("%s: status %v %q but no moves generated", p, res, reason)
	}
}

func TestLionCaptureWins(t *testing.T) {
	for _, opts := range []game.Options{safeOpts, immediateOpts} {
		p := mustParse(t, "1l1/1G1/3/1L1 w - 1", opts)
		wantStatus(t, p, game.Ongoing, "")
		play(t, p, "b3b4")
		// The second player is to move without a lion: it has lost.
		wantStatus(t, p, game.Loss, ReasonLionCaptured)
		if p.String() != "1G1/3/3/1L1 b - 2" {
			t.Errorf("after the capture %s (the lion must not enter a hand)", p)
		}
		if p.Perft(1) != 0 {
			t.Errorf("perft(1) after the lion capture is not 0")
		}
		p.Unmake()
		wantStatus(t, p, game.Ongoing, "")
	}
}

func TestTrySafe(t *testing.T) {
	t.Run("unattacked wins at once", func(t *testing.T) {
		p := mustParse(t, "3/1L1/2l/3 w - 1", safeOpts)
		play(t, p, "b3b4")
		wantStatus(t, p, game.Loss, ReasonTry)
	})
	t.Run("hand pieces do not attack", func(t *testing.T) {
		p := mustParse(t, "3/1L1/2l/3 w 2Gc 1", safeOpts)
		play(t, p, "b3a4")
		wantStatus(t, p, game.Loss, ReasonTry)
	})
	// The second player's giraffe on c4 attacks b4.
	const attacked = "2g/1L1/2l/3 w - 1"
	t.Run("attacked, not captured", func(t *testing.T) {
		p := mustParse(t, attacked, safeOpts)
		play(t, p, "b3b4")
		wantStatus(t, p, game.Ongoing, "")
		// Every reply is legal; only capturing the lion saves the game.
		got := moveTexts(p)
		if !slices.Contains(got, "c4b4") || !slices.Contains(got, "c2c1") || len(got) != 2+5 {
			t.Fatalf("replies to the attacked try: %v", got)
		}
		play(t, p, "c2c1") // the lion tries in turn, but too late
		wantStatus(t, p, game.Win, ReasonTry)
		p.Unmake()
		play(t, p, "c2c3")
		wantStatus(t, p, game.Win, ReasonTry)
	})
	t.Run("attacked, captured", func(t *testing.T) {
		p := mustParse(t, attacked, safeOpts)
		play(t, p, "b3b4", "c4b4")
		wantStatus(t, p, game.Loss, ReasonLionCaptured)
	})
	t.Run("second player", func(t *testing.T) {
		// Mirror image for the second player, whose far rank is rank 1.
		p := mustParse(t, "3/2L/1l1/3 b - 2", safeOpts)
		play(t, p, "b2b1")
		wantStatus(t, p, game.Loss, ReasonTry)
		p = mustParse(t, "3/2L/1l1/G2 b - 2", safeOpts)
		play(t, p, "b2b1")
		wantStatus(t, p, game.Ongoing, "")
		play(t, p, "a1b1")
		wantStatus(t, p, game.Loss, ReasonLionCaptured)
	})
	t.Run("owner to move on the far rank", func(t *testing.T) {
		// A parsed position with the lion already standing on the far rank
		// and its owner to move: the try has succeeded.
		p := mustParse(t, "1L1/3/1l1/3 w - 3", safeOpts)
		wantStatus(t, p, game.Win, ReasonTry)
	})
}

func TestTryImmediate(t *testing.T) {
	p := mustParse(t, "2g/1L1/2l/3 w - 1", immediateOpts)
	play(t, p, "b3b4")
	wantStatus(t, p, game.Loss, ReasonTry)
	if _, err := p.ParseMove("c4b4"); err == nil || !strings.Contains(err.Error(), "game is over") {
		t.Errorf("capturing after an immediate try: err %v", err)
	}
}

func TestDrops(t *testing.T) {
	const pos = "g1e/1l1/3/ELG w C 1" // empty: b4, a3, c3, a2, b2, c2
	for _, tc := range []struct {
		opts  game.Options
		drops []string
	}{
		{safeOpts, []string{"C*a2", "C*b2", "C*c2", "C*a3", "C*c3", "C*b4"}},
		{immediateOpts, []string{"C*a2", "C*b2", "C*c2", "C*a3", "C*c3"}},
	} {
		p := mustParse(t, pos, tc.opts)
		var drops []string
		for _, s := range moveTexts(p) {
			if strings.Contains(s, "*") {
				drops = append(drops, s)
			}
		}
		if !slices.Equal(drops, tc.drops) {
			t.Errorf("%s: drops %v, want %v", tc.opts["TryRule"], drops, tc.drops)
		}
		if tc.opts["TryRule"] == "immediate" {
			if _, err := p.ParseMove("C*b4"); err == nil || !strings.Contains(err.Error(), "far rank") {
				t.Errorf("immediate: C*b4 err %v", err)
			}
			continue
		}
		// Safe: the chick dropped on the far rank stays a chick and is stuck.
		play(t, p, "C*b4")
		if got := p.String(); got != "gCe/1l1/3/ELG b - 2" {
			t.Errorf("after C*b4: %s", got)
		}
		for _, m := range p.GenerateMoves(nil) {
			if p.FormatMove(m)[:2] == "b4" {
				t.Errorf("the dropped chick moves: %s", p.FormatMove(m))
			}
		}
	}
	// Giraffes and elephants may go anywhere, far rank included, and the
	// second player writes drops in upper case too.
	p := mustParse(t, "1l1/3/3/1L1 b Gge 2", immediateOpts)
	got := moveTexts(p)
	for _, s := range []string{"G*a1", "G*c1", "E*a1", "E*c4", "G*b2"} {
		if !slices.Contains(got, s) {
			t.Errorf("missing drop %s in %v", s, got)
		}
	}
	if slices.Contains(got, "G*b1") || slices.Contains(got, "G*b4") {
		t.Errorf("drop onto an occupied square in %v", got)
	}
	if _, err := p.ParseMove("C*a2"); err == nil || !strings.Contains(err.Error(), "no chick in hand") {
		t.Errorf("drop without the piece: %v", err)
	}
	play(t, p, "G*b2")
	if got := p.String(); got != "1l1/3/1g1/1L1 w Ge 3" {
		t.Errorf("after G*b2: %s", got)
	}
}

func TestPromotion(t *testing.T) {
	p := mustParse(t, "1l1/C2/3/1L1 w - 1", safeOpts)
	play(t, p, "a3a4")
	if got := p.String(); got != "Hl1/3/3/1L1 b - 2" {
		t.Fatalf("after a3a4: %s", got)
	}
	// The hen moves as a hen: forward is off the board, so sideways and
	// straight back, not diagonally back.
	play(t, p, "b4c3")
	got := moveTexts(p)
	for _, s := range []string{"a4b4", "a4a3"} {
		if !slices.Contains(got, s) {
			t.Errorf("hen on a4 misses %s: %v", s, got)
		}
	}
	if slices.Contains(got, "a4b3") {
		t.Errorf("hen moves diagonally back: %v", got)
	}

	// Promotion by capture, and for the second player on rank 1.
	p = mustParse(t, "1l1/3/c2/GL1 b - 2", safeOpts)
	play(t, p, "a2a1")
	if got := p.String(); got != "1l1/3/3/hL1 w g 3" {
		t.Fatalf("after a2xa1: %s", got)
	}
	p.Unmake()
	if got := p.String(); got != "1l1/3/c2/GL1 b - 2" {
		t.Fatalf("unmake of a promotion: %s", got)
	}
}

func TestCapturedHenBecomesChick(t *testing.T) {
	p := mustParse(t, "1l1/3/h2/1LG w - 1", safeOpts)
	play(t, p, "b1a2")
	if got := p.String(); got != "1l1/3/L2/2G b C 2" {
		t.Fatalf("after b1xa2: %s", got)
	}
	play(t, p, "b4b3", "C*b2")
	if got := p.String(); got != "3/1l1/LC1/2G b - 4" {
		t.Fatalf("after dropping the chick: %s", got)
	}
}

// A side whose every piece is blocked by its own, with nothing in hand,
// has no legal move and has lost (the tablebase scores it so); one legal
// move or a piece in hand keeps the game going.
func TestNoLegalMoveLoses(t *testing.T) {
	for _, opts := range []game.Options{safeOpts, immediateOpts} {
		wantStatus(t, mustParse(t, "GE1/LGE/CCl/3 w - 1", opts), game.Loss, ReasonNoMove)
		wantStatus(t, mustParse(t, "GE1/LGE/1Cl/3 w C 1", opts), game.Ongoing, "")
	}
}

func TestRepetition(t *testing.T) {
	p := start(t, nil)
	cycle := []string{"c1c2", "a4a3", "c2c1", "a3a4"}
	play(t, p, cycle...)
	wantStatus(t, p, game.Ongoing, "") // second occurrence
	play(t, p, cycle[:3]...)
	wantStatus(t, p, game.Ongoing, "")
	play(t, p, cycle[3])
	wantStatus(t, p, game.Draw, ReasonRepetition) // third occurrence
	if p.String() != "gle/1c1/1C1/ELG w - 9" {
		t.Errorf("position %s", p)
	}
	q := p.Clone() // the history travels with a clone
	wantStatus(t, q, game.Draw, ReasonRepetition)
	p.Unmake()
	wantStatus(t, p, game.Ongoing, "")
	// A position parsed from text has no history.
	wantStatus(t, mustParse(t, q.String(), nil), game.Ongoing, "")
	// Repetition with pieces in hand.
	r := mustParse(t, "g1e/1l1/3/ELG w C 1", nil)
	play(t, r, "c1c2", "a4a3", "c2c1", "a3a4", "c1c2", "a4a3", "c2c1", "a3a4")
	wantStatus(t, r, game.Draw, ReasonRepetition)
}

func TestPlyCap(t *testing.T) {
	p := start(t, game.Options{"PlyCap": "3"})
	play(t, p, "c1c2", "a4a3")
	wantStatus(t, p, game.Ongoing, "")
	play(t, p, "c2c1")
	wantStatus(t, p, game.Draw, ReasonPlyCap)
	// Board decisions come first.
	p = mustParse(t, "1l1/1G1/3/1L1 w - 3", game.Options{"PlyCap": "3"})
	play(t, p, "b3b4")
	wantStatus(t, p, game.Loss, ReasonLionCaptured)
	// The cap counts the game's plies, as the text gives them.
	p = mustParse(t, "gle/1c1/1C1/ELG b - 200", nil)
	wantStatus(t, p, game.Ongoing, "")
	play(t, p, "a4a3")
	wantStatus(t, p, game.Draw, ReasonPlyCap)
}

func TestMoveText(t *testing.T) {
	p := mustParse(t, "g1e/1l1/1C1/EL1 w Gc 1", safeOpts)
	for _, s := range []string{"b2b3", "b1a2", "b1c1", "b1c2", "G*c1", "G*b4"} {
		m, err := p.ParseMove(s)
		if err != nil {
			t.Errorf("ParseMove(%q): %v", s, err)
			continue
		}
		if got := p.FormatMove(m); got != s {
			t.Errorf("FormatMove(ParseMove(%q)) = %q", s, got)
		}
	}
	bad := map[string]string{
		"":      "malformed",
		"b2":    "malformed",
		"b2b5":  "malformed",
		"d1d2":  "malformed",
		"B2B3":  "malformed",
		"b2b2":  "does not move",
		"b3b4+": "implicit",
		"L*b2":  "lion is never in hand",
		"H*b2":  "hen is never in hand",
		"c*c1":  "C, G or E",
		"G*c5":  "bad square",
		"C*c1":  "no chick in hand",
		"E*c1":  "no elephant in hand",
		"G*b1":  "occupied",
		"b3b2":  "no piece of the first player",
		"a2a3":  "no piece",
		"b2c3":  "chick cannot step",
		"a1c3":  "elephant cannot step",
		"b1b2":  "same side",
		"0000":  "malformed",
	}
	for s, want := range bad {
		_, err := p.ParseMove(s)
		if err == nil || !strings.HasPrefix(err.Error(), "lion: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMove(%q): err %v, want one mentioning %q", s, err, want)
		}
	}
	if got := FormatMove(game.NoMove); got != "0000" {
		t.Errorf("FormatMove(NoMove) = %q", got)
	}
	for _, m := range []game.Move{0xffffffff, 0x3f, 0xc0, 0x400, boardMove(0, 1) | 1<<8, boardMove(2, 2)} {
		if got := FormatMove(m); got != "0000" {
			t.Errorf("FormatMove(%#x) = %q, want 0000", m, got)
		}
	}
}
