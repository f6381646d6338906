// Package cliflag is what the commands share around their flags: range
// checks, so that every command rejects a bad value the same way (naming
// the flag, the value and the range, before any work starts), the -h
// text, and the exit. (The flag package accepts any value
// of the right type; a negative count or duration would otherwise read as
// "no limit" or panic deep inside.)
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
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

// Usage makes fs's -h print a synopsis, a description of what the command
// does, the flags, and any notes after them.
func Usage(fs *flag.FlagSet, synopsis, description, notes string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s\n\n%s\n\nflags:\n", synopsis, strings.TrimSpace(description))
		fs.PrintDefaults()
		if notes != "" {
			fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(notes))
		}
	}
}

// Exit ends a command's main: status 0 when err is nil or -h asked for
// help, else the error on stderr as "name: message" (the prefix once, even
// when the message starts with it already) and status 1.
func Exit(name string, err error) {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	fmt.Fprintln(os.Stderr, Message(name, err))
	os.Exit(1)
}

// Message is err as "name: message", without doubling a "name: " prefix.
func Message(name string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, name+": ") {
		return msg
	}
	return name + ": " + msg
}
