// Package dashboard is `tabula dashboard`: it serves the web dashboard of
// a run directory, finished or being trained by another process
// (read-only: status from the metrics, charts, matches and recorded
// games; the live game and the current phase need tabula train -http),
// and the Play page, where a person plays a network or alpha-beta.
//
//	tabula dashboard -run runs/connect4 -http :8080
//	tabula dashboard -play [-net FILE] ...   the Play page alone
package dashboard

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tabula-zero/tabula/dashboard"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/models"
	"github.com/tabula-zero/tabula/rundir"
)

// Run is `tabula dashboard`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(ctx, args, stdout)
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.SetOutput(out)
	runDir := fs.String("run", "runs/connect4", "run directory to show (with -play: only if given)")
	addr := fs.String("http", "localhost:8080", "address to serve on (host:port; :8080 for every interface)")
	play := fs.Bool("play", false, "serve the Play page even without a run directory, and open at it")
	var nets listFlag
	fs.Var(&nets, "net", "a checkpoint file or run directory the Play page offers as an opponent (repeatable)")
	named := fs.Bool("named-networks", false, "let the Play page name any network file on this machine (keep to localhost)")
	records := fs.String("records", "runs/play", "directory the Play page saves finished games under: DIR/GAME/arena/play.jsonl (\"\": none)")
	cliflag.Usage(fs, "tabula dashboard [-run DIR] [-http ADDR] | tabula dashboard -play [-net FILE]... [-http ADDR]",
		"Serves the web dashboard of a run directory: status, charts, matches and its recorded games,\n"+
			"and the Play page (/play.html), where you play Connect Four, Catch the Lion or Xiangqi against\n"+
			"a network or alpha-beta. Played games are rated by tabula arena -run DIR/GAME -ratings.", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	runGiven := false
	fs.Visit(func(f *flag.Flag) { runGiven = runGiven || f.Name == "run" })
	if !*play || runGiven {
		if _, err := rundir.Dir(*runDir).FrozenConfig(); err != nil {
			return fmt.Errorf("-run %s: not a run directory (tabula dashboard -play serves the Play page without one): %w", *runDir, err)
		}
	} else {
		*runDir = ""
	}
	srv := dashboard.New(*runDir, nil, nil, nil)
	srv.SetPlay(dashboard.PlayOptions{Networks: nets, NamedNetworks: *named, Records: *records, DefaultNetwork: shippedModel})
	err := dashboard.Serve(ctx, *addr, srv.Handler(), func(a string) {
		if *runDir == "" {
			fmt.Fprintf(out, "Play page on http://%s/play.html (Ctrl-C stops)\n", a)
			return
		}
		fmt.Fprintf(out, "dashboard of %s on http://%s, Play page on http://%s/play.html (Ctrl-C stops)\n", *runDir, a, a)
	})
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return err
}

// shippedModel names the shipped network of a game (package models), which
// arena's net: players resolve.
func shippedModel(gameName string) (string, bool) {
	m, ok := models.Lookup(gameName)
	return m.Game, ok
}
