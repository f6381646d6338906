// Package nnue is `tabula nnue`: the tools of Xiangqi's learned
// evaluation (docs/nnue.md), one subcommand each.
//
//	tabula nnue gen -out DIR -positions N [-nodes N | -depth D]   training data from the alpha-beta's own games
//	tabula nnue train -data DIR[,DIR...] -out FILE.nnue            the network trained on them
package nnue

import (
	"context"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
)

// subcommand is one of `tabula nnue`'s: its name, its line in the usage,
// and its run, which gets the arguments after the name.
type subcommand struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var subcommands = []subcommand{
	{"gen", "play the alpha-beta against itself into training data shards (resumable)", runGen},
	{"train", "train the network on the shards' positions (resumable)", runTrain},
}

// Run is `tabula nnue`: args are the subcommand and its flags.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return fmt.Errorf("no subcommand given (tabula nnue -h lists them)")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return flag.ErrHelp
	}
	for _, c := range subcommands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	return fmt.Errorf("unknown subcommand %q (tabula nnue -h lists them)", args[0])
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: tabula nnue SUBCOMMAND [flags]\n\nThe tools of Xiangqi's learned evaluation (docs/nnue.md).\n\nsubcommands:\n")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, c := range subcommands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, "\ntabula nnue SUBCOMMAND -h prints a subcommand's flags.\n")
}
