package cliflag

import (
	"errors"
	"flag"
	"math"
	"strings"
	"testing"
	"time"
)

func TestChecks(t *testing.T) {
	var c Checks
	c.Int("games", 0, 0, math.MaxInt)
	c.Int("depth", 20, 0, 20)
	c.Duration("time", 0, 0)
	if err := c.Err(); err != nil {
		t.Fatalf("values in range: %v", err)
	}
	c.Int("games", -1, 0, math.MaxInt)
	c.Int("depth", 21, 0, 20)
	c.Duration("poll", 0, time.Millisecond)
	err := c.Err()
	if err == nil {
		t.Fatal("no error for values out of range")
	}
	for _, want := range []string{"-games -1: want at least 0", "-depth 21: want 0 to 20", "-poll 0s: want at least 1ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

func TestMessageAndUsage(t *testing.T) {
	for _, c := range [][2]string{
		{"arena: player \"x\": unknown kind", "arena: player \"x\": unknown kind"},
		{"player \"x\": unknown kind", "arena: player \"x\": unknown kind"},
		{"arenas: x", "arena: arenas: x"},
	} {
		if got := Message("arena", errors.New(c[0])); got != c[1] {
			t.Errorf("Message(%q) = %q, want %q", c[0], got, c[1])
		}
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var b strings.Builder
	fs.SetOutput(&b)
	fs.Int("n", 1, "how many")
	Usage(fs, "x [-n N]", "Does x.", "Notes.")
	if err := fs.Parse([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, want := range []string{"usage: x [-n N]\n\nDoes x.\n\nflags:\n", "-n int", "how many", "\nNotes.\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, b.String())
		}
	}
}
