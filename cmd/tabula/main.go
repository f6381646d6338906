// Command tabula is the project's one command: `tabula train`,
// `tabula engine`, `tabula arena` and the others are its subcommands, one
// binary on the PATH under the project's name (the field's tools are one
// binary too: katago gtp|match, lc0 selfplay|benchmark). Each
// subcommand's code is the package of its name under cmd/tabula; this
// file only dispatches.
//
//	go install ./cmd/tabula
//	tabula help                 every subcommand with one line each
//	tabula help COMMAND         a subcommand's flags (as tabula COMMAND -h)
//	tabula COMMAND [flags]
//	tabula version              the build and the CPU's kernels (or tabula -version)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"

	"github.com/tabula-zero/tabula/cmd/tabula/arena"
	"github.com/tabula-zero/tabula/cmd/tabula/bench"
	"github.com/tabula-zero/tabula/cmd/tabula/dashboard"
	"github.com/tabula-zero/tabula/cmd/tabula/engine"
	"github.com/tabula-zero/tabula/cmd/tabula/export"
	"github.com/tabula-zero/tabula/cmd/tabula/liontb"
	"github.com/tabula-zero/tabula/cmd/tabula/nnue"
	"github.com/tabula-zero/tabula/cmd/tabula/reanalyse"
	"github.com/tabula-zero/tabula/cmd/tabula/selfplay"
	"github.com/tabula-zero/tabula/cmd/tabula/train"
	"github.com/tabula-zero/tabula/cmd/tabula/tune"
	"github.com/tabula-zero/tabula/cmd/tabula/version"
	"github.com/tabula-zero/tabula/internal/cliflag"
)

// A command is one subcommand: its name, its line in `tabula help`, and
// its Run, which gets the arguments after the name.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = []command{
	{"train", "train a network into a run directory (self-play, SGD, gating); resumes a run", train.Run},
	{"selfplay", "self-play workers only, for a shared run or a trainer's NATS server", selfplay.Run},
	{"reanalyse", "give a run's stored samples new targets from a network (its policy and value, or its search)", reanalyse.Run},
	{"arena", "matches between players, ratings of games, Connect Four accuracy", arena.Run},
	{"engine", "the UCI/UCCI/xboard engine a GUI starts; perft; Connect Four solver", engine.Run},
	{"export", "write a network as an ONNX model", export.Run},
	{"dashboard", "serve a run's web dashboard", dashboard.Run},
	{"tune", "fit the Xiangqi evaluation's weights to game results (Texel)", tune.Run},
	{"bench", "measure this machine for training runs (about a minute)", bench.Run},
	{"liontb", "build, verify and probe the Catch the Lion tablebase", liontb.Run},
	{"nnue", "Xiangqi's learned evaluation: gen plays the alpha-beta against itself into training data, train fits the network to it", nnue.Run},
	{"version", "the build (module version, VCS revision, Go) and the CPU's kernel dispatch; also tabula -version", version.Run},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	name, err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	cliflag.Exit(name, err)
}

// errNoCommand is tabula without arguments, after the usage.
var errNoCommand = errors.New("no command given")

// run dispatches args to their subcommand and returns the name that
// prefixes an error: the subcommand's, as its own binary said it before
// there was one command, else "tabula".
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (name string, err error) {
	if len(args) == 0 {
		usage(stderr)
		return "tabula", errNoCommand
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) == 1 {
			usage(stdout)
			return "tabula", nil
		}
		// help COMMAND is COMMAND -h, so the text is the command's own.
		if len(args) > 2 {
			return "tabula", fmt.Errorf("help takes one command, not %q", args[1:])
		}
		args = []string{args[1], "-h"}
	case "-version", "--version":
		// The flag most tools answer, as the version command.
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.name, c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	return "tabula", fmt.Errorf("unknown command %q (tabula help lists the commands)", args[0])
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: tabula COMMAND [flags]\n\ncommands:\n")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, "\ntabula help COMMAND (or tabula COMMAND -h) prints a command's flags.\n")
}
