// Package dashboard is `tabula dashboard`: it serves the web dashboard of
// a run directory, finished or being trained by another process
// (read-only: status from the metrics, charts, matches and recorded
// games; the live game and the current phase need tabula train -http),
// its charts beside those of other runs, and the Play page, where a
// person plays a network or alpha-beta.
//
//	tabula dashboard -run runs/connect4 -http :8080
//	tabula dashboard -run runs/a -run runs/b      runs/a, its charts beside runs/b's
//	tabula dashboard -run runs                    every run under runs, the newest shown
//	tabula dashboard -play [-net FILE] ...        the Play page alone
package dashboard

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

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
	var runDirs listFlag
	fs.Var(&runDirs, "run", "run directory to show (default runs/connect4; with -play: only if given); repeated, or a directory of runs: "+
		"the charts compare them; the status, games and matches are the first's until the page chooses another (of a directory of runs: the one whose metrics changed last)")
	addr := fs.String("http", "localhost:8080", "address to serve on (host:port; :8080 for every interface)")
	play := fs.Bool("play", false, "serve the Play page even without a run directory, and open at it")
	var nets listFlag
	fs.Var(&nets, "net", "a checkpoint file or run directory the Play page offers as an opponent (repeatable)")
	named := fs.Bool("named-networks", false, "let the Play page name any network file on this machine (keep to localhost)")
	records := fs.String("records", "runs/play", "directory the Play page saves finished games under: DIR/GAME/arena/play.jsonl (\"\": none)")
	lionTB := fs.String("lion-tablebase", "", "Catch the Lion's tablebase `FILE` (tabula liontb -out FILE), from which the Play page shows each move's exact value")
	cliflag.Usage(fs, "tabula dashboard [-run DIR]... [-http ADDR] | tabula dashboard -play [-net FILE]... [-http ADDR]",
		"Serves the web dashboard of a run directory: status, charts, matches and its recorded games,\n"+
			"and the Play page (/play.html), where you play Connect Four, Catch the Lion or Xiangqi against\n"+
			"a network or alpha-beta. Played games are rated by tabula arena -run DIR/GAME -ratings.", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var runs []string
	switch {
	case len(runDirs) > 0:
		var err error
		if runs, err = runsOf(runDirs); err != nil {
			return err
		}
	case !*play:
		runs = []string{"runs/connect4"}
		if _, err := rundir.Dir(runs[0]).FrozenConfig(); err != nil {
			return fmt.Errorf("-run %s: not a run directory (tabula dashboard -play serves the Play page without one): %w", runs[0], err)
		}
	}
	runDir := ""
	if len(runs) > 0 {
		runDir = runs[0]
	}
	opts := dashboard.PlayOptions{Networks: nets, NamedNetworks: *named, Records: *records, DefaultNetwork: shippedModel}
	if *lionTB != "" {
		t, err := dashboard.OpenLionTablebase(*lionTB)
		if err != nil {
			return fmt.Errorf("-lion-tablebase: %w", err)
		}
		defer t.Close()
		opts.LionTablebase = t
	}
	srv := dashboard.New(runDir, nil, nil, nil)
	if len(runs) > 1 {
		srv.Compare(runs[1:]...)
	}
	srv.SetPlay(opts)
	err := dashboard.Serve(ctx, *addr, srv.Handler(), func(a string) {
		if runDir == "" {
			fmt.Fprintf(out, "Play page on http://%s/play.html (Ctrl-C stops)\n", a)
			return
		}
		also := ""
		if len(runs) > 1 {
			also = fmt.Sprintf(" (charts beside %s)", strings.Join(runs[1:], ", "))
		}
		fmt.Fprintf(out, "dashboard of %s%s on http://%s, Play page on http://%s/play.html (Ctrl-C stops)\n", runDir, also, a, a)
	})
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return err
}

// runsOf expands the -run values into run directories: a run directory
// as itself, a directory of runs (dashboard.Runs) as its runs, the one
// whose metrics changed last first when it is the first value.
func runsOf(dirs []string) ([]string, error) {
	var out []string
	for i, d := range dirs {
		if _, err := rundir.Dir(d).FrozenConfig(); err == nil {
			out = append(out, d)
			continue
		} else if _, serr := os.Stat(rundir.Dir(d).Config()); serr == nil {
			return nil, fmt.Errorf("-run %s: %w", d, err) // a run, but its config does not read
		}
		under, err := dashboard.Runs(d)
		if err != nil {
			return nil, fmt.Errorf("-run %s: neither a run directory nor a directory of runs: %w", d, err)
		}
		if i == 0 {
			newest := 0
			var at time.Time
			for k, r := range under {
				if st, err := os.Stat(rundir.Dir(r).Metrics()); err == nil && st.ModTime().After(at) {
					newest, at = k, st.ModTime()
				}
			}
			under[0], under[newest] = under[newest], under[0]
		}
		out = append(out, under...)
	}
	return out, nil
}

// shippedModel names the shipped network of a game (package models), which
// arena's net: players resolve.
func shippedModel(gameName string) (string, bool) {
	m, ok := models.Lookup(gameName)
	return m.Game, ok
}
