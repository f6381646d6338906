package train

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/tabula-zero/tabula/trainer"
)

// printSummary ends an invocation that stopped cleanly (a limit, Ctrl-C
// or the end) with what the run achieved (trainer.Summary: the best
// network, its latest evaluation and what changed since the run began)
// and the command that resumes it. A summary that cannot be read is said
// so; the training is saved either way.
func printSummary(out io.Writer, run string, fs *flag.FlagSet) {
	s, err := trainer.Summarize(run)
	if err != nil {
		fmt.Fprintf(out, "no summary of the run: %v\n", err)
		return
	}
	fmt.Fprintf(out, "\n== %s: what the run has achieved ==\n%sresume: %s\n", run, s.Text(), resumeCommand(run, fs))
}

// configFlags choose the config or the first network; a resumed run has
// its frozen copy and its checkpoints, which hold their effect.
var configFlags = []string{"config", "game", "set", "accept-config-change", "run", "init"}

// resumeCommand is the command that resumes the run: -run and the flags
// given this time, but those that chose the config.
func resumeCommand(run string, fs *flag.FlagSet) string {
	args := []string{invokedAs(os.Args[0]), "train", "-run", shellQuote(run)}
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(configFlags, f.Name) {
			return
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			args = append(args, "-"+f.Name+"="+f.Value.String())
			return
		}
		args = append(args, "-"+f.Name, shellQuote(f.Value.String()))
	})
	return strings.Join(args, " ")
}

// invokedAs is tabula as the user started it, for the resume line: the
// name or path they typed, but `go run ./cmd/tabula` for a binary that go
// run built in its cache (gone once go run exits).
func invokedAs(arg0 string) string {
	switch {
	case arg0 == "":
		return "tabula"
	case strings.Contains(strings.ReplaceAll(arg0, `\`, "/"), "/go-build"): // either separator
		return "go run ./cmd/tabula"
	}
	return shellQuote(arg0)
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,@+%-]+$`)

// shellQuote quotes s for a POSIX shell where it needs quoting.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
