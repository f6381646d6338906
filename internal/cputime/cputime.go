// Package cputime reads the CPU time the process has used, for the
// learning benchmark's CPU-hours beside its wall clock.
package cputime

import "time"

// Process returns the user plus system CPU time of the process so far;
// ok is false where the platform does not report it.
func Process() (d time.Duration, ok bool) {
	return process()
}
