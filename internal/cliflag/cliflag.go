// Package cliflag checks the values of command-line flags, so that every
// command rejects a bad value the same way: naming the flag, the value and
// the range, before any work starts. (The flag package accepts any value
// of the right type; a negative count or duration would otherwise read as
// "no limit" or panic deep inside.)
package cliflag

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Checks collects the problems of several flags.
type Checks struct {
	errs []error
}

// Int wants lo <= v <= hi; hi = math.MaxInt means no upper bound.
func (c *Checks) Int(name string, v, lo, hi int) {
	switch {
	case v >= lo && v <= hi:
	case hi == math.MaxInt:
		c.errs = append(c.errs, fmt.Errorf("-%s %d: want at least %d", name, v, lo))
	default:
		c.errs = append(c.errs, fmt.Errorf("-%s %d: want %d to %d", name, v, lo, hi))
	}
}

// Duration wants v >= lo.
func (c *Checks) Duration(name string, v, lo time.Duration) {
	if v < lo {
		c.errs = append(c.errs, fmt.Errorf("-%s %v: want at least %v", name, v, lo))
	}
}

// Err returns the problems found, or nil.
func (c *Checks) Err() error { return errors.Join(c.errs...) }
