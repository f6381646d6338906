// Package filelock takes the exclusive lock a directory's one writer
// holds (a run's trainer, a data directory's generator), so that a second
// one is refused instead of filling the same files.
package filelock

import "errors"

// ErrHeld is Lock's error when another process holds the lock.
var ErrHeld = errors.New("in use by another process")
