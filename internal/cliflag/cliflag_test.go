package cliflag

import (
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
