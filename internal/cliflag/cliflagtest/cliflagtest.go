// Package cliflagtest holds the checks the commands' tests share.
package cliflagtest

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

// Help checks what a command's run returned for -h: flag.ErrHelp (the
// command then exits 0) and a text that mentions every want.
func Help(t *testing.T, err error, text string, wants ...string) {
	t.Helper()
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("-h does not mention %q:\n%s", want, text)
		}
	}
}
