package cputime

import (
	"testing"
	"time"
)

// TestProcessCountsWork: work on the CPU shows up in the reading, which
// never goes back. The loop ends when the reading moves, so the test
// depends on no speed.
func TestProcessCountsWork(t *testing.T) {
	before, ok := Process()
	if !ok {
		t.Skip("this platform does not report the process's CPU time")
	}
	x := uint64(1)
	deadline := time.Now().Add(20 * time.Second)
	for {
		for range 1_000_000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		now, _ := Process()
		if now < before {
			t.Fatalf("CPU time went back from %v to %v", before, now)
		}
		if now >= before+20*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s of busy work, CPU time moved from %v only to %v (x=%d)", before, now, x)
		}
	}
}
