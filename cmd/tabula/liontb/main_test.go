package liontb

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The smallest sub-game (the lions alone) built, verified and probed
// through the command, with the figures on stdout and the progress on
// stderr.
func TestBuildVerifyProbe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lions.tb")
	var out, log bytes.Buffer
	if err := Run(t.Context(), []string{"-out", path, "-material", "0,0,0", "-workers", "1"}, nil, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "liontb: wrote "+path) || out.Len() > 0 {
		t.Errorf("build: stdout %q, stderr %q", out.String(), log.String())
	}
	out.Reset()
	if err := Run(t.Context(), []string{"-verify", path}, nil, &out, &log); err != nil || !strings.Contains(out.String(), "checksum ok; material 0C0G0E") {
		t.Errorf("verify: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := Run(t.Context(), []string{"-probe", path, "-pos", "1l1/3/3/1L1 w - 1"}, nil, &out, &log); err != nil || !strings.Contains(out.String(), "optimal moves: ") {
		t.Errorf("probe: %v\n%s", err, out.String())
	}
}

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "nothing to do"},
		{[]string{"-workers", "-1"}, "-workers -1"},
		{[]string{"-progress", "-1s"}, "-progress -1s"},
		{[]string{"-verify", "x.tb", "extra"}, "unexpected arguments"},
		{[]string{"-out", "x.tb", "-material", "1,1"}, "-material"},
	} {
		var out, log bytes.Buffer
		if err := Run(t.Context(), c.args, nil, &out, &log); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
	var out bytes.Buffer
	if err := Run(t.Context(), []string{"-h"}, nil, &out, &out); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "usage: tabula liontb") {
		t.Errorf("-h: %v\n%s", err, out.String())
	}
}

// A build into a FIFO or a link to a device is refused before any
// building, and the path stays what it was.
func TestBuildRefusesSpecialOutput(t *testing.T) {
	dir := t.TempDir()
	null := filepath.Join(dir, "null.tb")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	var out, log bytes.Buffer
	err := Run(t.Context(), []string{"-out", null, "-material", "0,0,0", "-workers", "1"}, nil, &out, &log)
	if err == nil || !strings.Contains(err.Error(), "not a regular file: refusing to replace it") {
		t.Fatalf("%v", err)
	}
	if log.Len() > 0 {
		t.Errorf("built before refusing: %s", log.String())
	}
	if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s was replaced", null)
	}
}
