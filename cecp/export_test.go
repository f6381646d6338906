package cecp

import "time"

// SetQuitGrace sets how long a stopped search is waited for, and returns
// the function that restores it.
func SetQuitGrace(d time.Duration) (restore func()) {
	old := quitGrace
	quitGrace = d
	return func() { quitGrace = old }
}
