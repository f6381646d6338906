package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tabula help lists every subcommand, and every package under cmd/tabula
// is one: a command added as a package but not to the table would be
// unreachable.
func TestHelpListsEveryCommand(t *testing.T) {
	var out, errs bytes.Buffer
	if _, err := run(t.Context(), []string{"help"}, nil, &out, &errs); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs, names []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" {
			dirs = append(dirs, e.Name())
		}
	}
	for _, c := range commands {
		names = append(names, c.name)
		if !strings.Contains(out.String(), "\n  "+c.name+" ") {
			t.Errorf("tabula help does not list %s:\n%s", c.name, out.String())
		}
	}
	slices.Sort(names)
	if !slices.Equal(dirs, names) {
		t.Errorf("packages under cmd/tabula %v, commands %v", dirs, names)
	}
	for _, want := range []string{"usage: tabula COMMAND", "tabula help COMMAND"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tabula help lacks %q:\n%s", want, out.String())
		}
	}
}

// tabula CMD -h and tabula help CMD print the command's own usage and
// exit 0 (cliflag.Exit takes flag.ErrHelp for success).
func TestCommandHelp(t *testing.T) {
	for _, c := range commands {
		var texts []string
		for _, args := range [][]string{{c.name, "-h"}, {"help", c.name}} {
			var out, errs bytes.Buffer
			name, err := run(t.Context(), args, strings.NewReader(""), &out, &errs)
			if err != nil && !errors.Is(err, flag.ErrHelp) {
				t.Errorf("%q: %v", args, err)
			}
			if name != c.name {
				t.Errorf("%q: errors would be named %q", args, name)
			}
			text := out.String() + errs.String()
			if !strings.Contains(text, "usage: tabula "+c.name) || !strings.Contains(text, "-") {
				t.Errorf("%q prints no usage of tabula %s:\n%s", args, c.name, text)
			}
			texts = append(texts, text)
		}
		if texts[0] != texts[1] {
			t.Errorf("tabula %s -h and tabula help %s differ:\n%s\n---\n%s", c.name, c.name, texts[0], texts[1])
		}
	}
}

// An unknown command, no command, or help for an unknown one is an error
// that says so.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "train", "arena"}, "one command"},
		{[]string{"arena", "-no-such-flag"}, "no-such-flag"},
	} {
		var out, errs bytes.Buffer
		_, err := run(t.Context(), c.args, strings.NewReader(""), &out, &errs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
	var out, errs bytes.Buffer
	run(t.Context(), nil, nil, &out, &errs)
	if !strings.Contains(errs.String(), "usage: tabula") || out.Len() > 0 {
		t.Errorf("tabula alone: stdout %q, stderr %q; want the usage on stderr", out.String(), errs.String())
	}
}

// A GUI starts the engine as `tabula engine`: the built binary answers
// uci with uciok, and its stdout holds the protocol alone.
func TestEngineBinaryUCI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tabula")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build tabula with")
	}
	bin := filepath.Join(t.TempDir(), "tabula")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "engine")
	cmd.Stdin = strings.NewReader("uci\nisready\nquit\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("tabula engine: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if !slices.Contains(lines, "uciok") || !slices.Contains(lines, "readyok") {
		t.Fatalf("no uciok and readyok in:\n%s", stdout.String())
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 0 || !slices.Contains([]string{"id", "option", "uciok", "readyok"}, f[0]) {
			t.Errorf("stdout line %q is not UCI", l)
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}
