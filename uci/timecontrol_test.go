package uci

import (
	"strings"
	"testing"
	"time"
)

// cutechess-cli's tc forms: moves per control, seconds as decimals, an
// increment; bad input names itself and the forms.
func TestParseTimeControl(t *testing.T) {
	for _, c := range []struct {
		in   string
		want TimeControl
		text string
	}{
		{"40/60+0.6", TimeControl{40, 60 * time.Second, 600 * time.Millisecond}, "40/60+0.6"},
		{"60+0.6", TimeControl{0, 60 * time.Second, 600 * time.Millisecond}, "60+0.6"},
		{"10+0.1", TimeControl{0, 10 * time.Second, 100 * time.Millisecond}, "10+0.1"},
		{"40/60", TimeControl{40, 60 * time.Second, 0}, "40/60"},
		{"60", TimeControl{0, 60 * time.Second, 0}, "60"},
		{"0.5+0", TimeControl{0, 500 * time.Millisecond, 0}, "0.5"},
		{" 1/.25+.05 ", TimeControl{1, 250 * time.Millisecond, 50 * time.Millisecond}, "1/0.25+0.05"},
	} {
		got, err := ParseTimeControl(c.in)
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
			continue
		}
		if got.String() != c.text {
			t.Errorf("%q writes as %q, want %q", c.in, got.String(), c.text)
		}
		if back, err := ParseTimeControl(got.String()); err != nil || back != got {
			t.Errorf("%q: %q reads back as %+v, %v", c.in, got.String(), back, err)
		}
	}
	for _, c := range []struct{ in, why string }{
		{"", "empty"},
		{"0", "more than 0"},
		{"0+1", "more than 0"},
		{"40/", `"" is not a number`},
		{"/60", `moves ""`},
		{"0/60", `moves "0"`},
		{"x/60", `moves "x"`},
		{"2000/60", `moves "2000"`},
		{"60+", `increment "" is not`},
		{"+0.6", `time "" is not`},
		{"abc", `"abc" is not`},
		{"-1", `"-1" is not`},
		{"60+-1", `"-1" is not`},
		{"1e3", `"1e3" is not`},
		{"inf", `"inf" is not`},
		{"NaN", `"NaN" is not`},
		{"1..2", `"1..2" is not`},
		{".", `"." is not`},
		{"60+0.6+1", `"0.6+1" is not`},
		{"100000", "more than a day"},
		{"40/60/2", `"60/2" is not`},
	} {
		_, err := ParseTimeControl(c.in)
		if err == nil {
			t.Errorf("%q: no error", c.in)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.why) || !strings.Contains(msg, "[MOVES/]SECONDS[+INCREMENT]") {
			t.Errorf("%q: %q, want it to say %q and the forms", c.in, msg, c.why)
		}
	}
}

// tc= in a uci: spec is a clock and the search's only limit.
func TestPlayerSpecTimeControl(t *testing.T) {
	c, err := ParsePlayerSpec("engine,tc=40/60+0.6", "xiangqi")
	if err != nil {
		t.Fatal(err)
	}
	if c.TC != (TimeControl{40, 60 * time.Second, 600 * time.Millisecond}) || c.Depth != 0 || c.MoveTime != 0 || c.Nodes != 0 {
		t.Errorf("config %+v", c)
	}
	for _, spec := range []string{"engine,tc=60,depth=3", "engine,movetime=100,tc=60", "engine,tc=60,nodes=10"} {
		if _, err := ParsePlayerSpec(spec, "xiangqi"); err == nil || !strings.Contains(err.Error(), "tc=") {
			t.Errorf("%s: %v, want tc= refused beside another limit", spec, err)
		}
	}
	if _, err := ParsePlayerSpec("engine,tc=60+x", "xiangqi"); err == nil || !strings.Contains(err.Error(), `tc=: time control "60+x"`) {
		t.Errorf("tc=60+x: %v", err)
	}
	// Alone (outside the arena's clock) the player sends the full clock.
	p := &Player{cfg: c}
	if cmd, timeout := p.goCommand(); cmd != "go wtime 60000 btime 60000 winc 600 binc 600 movestogo 40" || timeout != 60*time.Second+DefaultMoveMargin {
		t.Errorf("go command %q, deadline %v", cmd, timeout)
	}
}

func TestGoClock(t *testing.T) {
	for _, c := range []struct {
		c    Clock
		want string
	}{
		{Clock{WTime: 1500 * time.Millisecond, BTime: time.Minute, WInc: 100 * time.Millisecond, BInc: 100 * time.Millisecond, MovesToGo: 12},
			"go wtime 1500 btime 60000 winc 100 binc 100 movestogo 12"},
		{Clock{WTime: 10 * time.Second, BTime: 200 * time.Microsecond}, "go wtime 10000 btime 1 winc 0 binc 0"},
	} {
		if got := goClock(c.c); got != c.want {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}
