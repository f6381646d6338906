//go:build !linux

package c4solver

// allocEntries returns n zeroed entries.
func allocEntries(n int) []uint64 { return make([]uint64, n) }
