// Package ucitest holds what tests of UCI engines share: an output buffer
// that is safe to read while the engine writes, a bounded run on fuzzed
// input, and the checks every output line must pass. It does not import
// uci, so that uci's own tests can use it.
package ucitest

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Output collects what an engine writes while its search goroutines run.
type Output struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// RunBounded calls run with a context that ends after deadline. It fails
// the test when run returns an error other than the deadline's, or does
// not return within grace after the deadline. input names the case.
func RunBounded(t testing.TB, run func(context.Context) error, deadline, grace time.Duration, input string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("input %q: Run = %v", input, err)
		}
	case <-time.After(deadline + grace):
		t.Fatalf("Run hangs on %q", input)
	}
}

// CheckLines fails the test unless text is empty or ends with a line
// break and every line is valid UTF-8 without control characters and
// matches line.
func CheckLines(t testing.TB, text string, line *regexp.Regexp, input string) {
	t.Helper()
	if text == "" {
		return
	}
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("input %q: output does not end with a line break: %q", input, text)
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !utf8.ValidString(l) || strings.ContainsFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f }) || !line.MatchString(l) {
			t.Fatalf("input %q: unexpected output line %q", input, l)
		}
	}
}
