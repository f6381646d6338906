//go:build !linux

package c4solver

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
