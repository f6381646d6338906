package uci

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TimeControl is a clock in cutechess-cli's tc= form: Base for every
// Moves moves (Moves 0: for the whole game), and Inc added after each
// move.
type TimeControl struct {
	Moves int
	Base  time.Duration
	Inc   time.Duration
}

// maxClock bounds a time control's base and increment (a day).
const maxClock = 24 * time.Hour

// ParseTimeControl reads a time control as cutechess-cli writes it:
// [MOVES/]SECONDS[+INCREMENT], seconds as decimals: 40/60+0.6 (60 s for
// every 40 moves, 0.6 s more a move), 60+0.6, 10+0.1, 40/60, 60.
func ParseTimeControl(s string) (TimeControl, error) {
	var tc TimeControl
	const forms = "want [MOVES/]SECONDS[+INCREMENT], e.g. 40/60+0.6, 60+0.6 or 10"
	bad := func(why string) (TimeControl, error) {
		return TimeControl{}, fmt.Errorf("time control %q: %s (%s)", s, why, forms)
	}
	rest := strings.TrimSpace(s)
	if rest == "" {
		return bad("empty")
	}
	if m, after, ok := strings.Cut(rest, "/"); ok {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 || n > 1000 {
			return bad(fmt.Sprintf("the moves %q are not a whole number from 1 to 1000", m))
		}
		tc.Moves, rest = n, after
	}
	base, inc, hasInc := strings.Cut(rest, "+")
	var err error
	if tc.Base, err = seconds(base); err != nil {
		return bad("the time " + err.Error())
	}
	if tc.Base <= 0 {
		return bad("the time must be more than 0")
	}
	if hasInc {
		if tc.Inc, err = seconds(inc); err != nil {
			return bad("the increment " + err.Error())
		}
	}
	return tc, nil
}

// seconds reads a non-negative decimal number of seconds up to a day, to
// the millisecond.
func seconds(s string) (time.Duration, error) {
	// Digits with at most one point: no sign, exponent, Inf or NaN.
	if s == "" || s == "." || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	if f > maxClock.Seconds() {
		return 0, fmt.Errorf("%q is more than a day", s)
	}
	return time.Duration(math.Round(f*1000)) * time.Millisecond, nil
}

// String writes tc as ParseTimeControl reads it.
func (tc TimeControl) String() string {
	s := strconv.FormatFloat(tc.Base.Seconds(), 'f', -1, 64)
	if tc.Moves > 0 {
		s = strconv.Itoa(tc.Moves) + "/" + s
	}
	if tc.Inc > 0 {
		s += "+" + strconv.FormatFloat(tc.Inc.Seconds(), 'f', -1, 64)
	}
	return s
}

// Clock is what a clocked `go` tells the engine: each side's time left
// and increment (white is the first player, Red in Xiangqi) and the moves
// until the next time control (0: none, the clock is the whole game's).
type Clock struct {
	WTime, BTime time.Duration
	WInc, BInc   time.Duration
	MovesToGo    int
}

// goClock is the `go` command of c: `go wtime W btime B winc WI binc BI
// [movestogo N]`, times in whole milliseconds (at least 1: engines read
// 0 as no time at all or as no clock).
func goClock(c Clock) string {
	ms := func(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) }
	inc := func(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 0), 10) }
	s := "go wtime " + ms(c.WTime) + " btime " + ms(c.BTime) + " winc " + inc(c.WInc) + " binc " + inc(c.BInc)
	if c.MovesToGo > 0 {
		s += " movestogo " + strconv.Itoa(c.MovesToGo)
	}
	return s
}

// errNoClock is MoveClock on a player without a time control.
var errNoClock = errors.New("uci player: a clock for a player without tc=")
