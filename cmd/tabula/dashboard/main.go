// Package dashboard is `tabula dashboard`: it serves the web dashboard of
// a run directory, finished or being trained by another process
// (read-only: status from the metrics, charts, matches and recorded
// games; the live game and the current phase need tabula train -http).
//
//	tabula dashboard -run runs/connect4 -http :8080
package dashboard

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/tabula-zero/tabula/dashboard"
	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/rundir"
)

// Run is `tabula dashboard`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(ctx, args, stdout)
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("dashboard", flag.ContinueOnError)
	fs.SetOutput(out)
	runDir := fs.String("run", "runs/connect4", "run directory to show")
	addr := fs.String("http", "localhost:8080", "address to serve on (host:port; :8080 for every interface)")
	cliflag.Usage(fs, "tabula dashboard [-run DIR] [-http ADDR]",
		"Serves the web dashboard of a run directory: status, charts, matches and its recorded games.", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if _, err := rundir.Dir(*runDir).FrozenConfig(); err != nil {
		return fmt.Errorf("-run %s: not a run directory: %w", *runDir, err)
	}
	srv := dashboard.New(*runDir, nil, nil, nil)
	err := dashboard.Serve(ctx, *addr, srv.Handler(), func(a string) {
		fmt.Fprintf(out, "dashboard of %s on http://%s (Ctrl-C stops)\n", *runDir, a)
	})
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	return err
}
