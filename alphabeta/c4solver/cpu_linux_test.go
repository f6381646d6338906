package c4solver

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time of the calling OS thread (the goroutine
// must be locked to it): on a shared machine it is a steadier measure of
// solve time than the wall clock.
func threadCPU() (time.Duration, bool) {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
