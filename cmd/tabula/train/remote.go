package train

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/natsrun/natsserver"
	"github.com/tabula-zero/tabula/remote"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/trainer"
)

// natsFlags are the flags that serve a run to remote workers.
type natsFlags struct {
	serve, url, run, creds, workers, refuse, cert, key, ca string
	printConf                                              bool
}

func (f *natsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.serve, "serve", "", "serve the run to remote workers from an embedded NATS server on `ADDR` (host:port; beyond loopback it needs -nats-credentials and -nats-workers)")
	fs.StringVar(&f.url, "nats", "", "serve the run to remote workers through the NATS server at `URL` instead")
	fs.StringVar(&f.run, "nats-run", "", "the run's `NAME` on the server (default: the run directory's base name)")
	fs.StringVar(&f.creds, "nats-credentials", "", "the trainer's `FILE` with user:password (-nats: or a token)")
	fs.StringVar(&f.workers, "nats-workers", "", "`FILE` of worker accounts, user:password a line: each may only publish its shards and read the run (re-read when it changes; a removed line revokes; with -nats the trainer takes shards from these accounts only)")
	fs.StringVar(&f.refuse, "nats-refuse", "", "refuse shards from these worker accounts (`NAMES`, comma-separated)")
	fs.StringVar(&f.cert, "nats-tls-cert", "", "embedded server: TLS certificate `FILE` (PEM)")
	fs.StringVar(&f.key, "nats-tls-key", "", "embedded server: TLS key `FILE` (PEM)")
	fs.StringVar(&f.ca, "nats-ca", "", "-nats: certificate authority `FILE` (PEM) to trust")
	fs.BoolVar(&f.printConf, "print-nats-conf", false, "print a nats-server configuration with the trainer's and the workers' accounts for the run (-nats-credentials, -nats-workers) and exit")
}

// runName is the run's name on the server.
func (f natsFlags) runName(runDir string) (string, error) {
	name := f.run
	if name == "" {
		name = filepath.Base(filepath.Clean(runDir))
	}
	if err := natsrun.CheckRun(name); err != nil {
		return "", fmt.Errorf("%w (choose one with -nats-run)", err)
	}
	return name, nil
}

// printServerConf prints the configuration of a server of one's own that
// serves the run with both roles.
func printServerConf(f natsFlags, runDir string, out io.Writer) error {
	name, err := f.runName(runDir)
	if err != nil {
		return err
	}
	if f.creds == "" || f.workers == "" {
		return errors.New("-print-nats-conf needs -nats-credentials (the trainer's user:password) and -nats-workers")
	}
	creds, err := natsrun.ReadCredentials(f.creds)
	if err != nil {
		return err
	}
	workers, err := natsrun.ReadWorkers(f.workers)
	if err != nil {
		return err
	}
	conf, err := natsserver.ServerConf(name, "/var/lib/nats", natsrun.Account{User: creds.User, Password: creds.Password}, workers)
	if err != nil {
		return err
	}
	_, err = io.WriteString(out, conf)
	return err
}

// serveRemote starts the embedded server (-serve) or connects to one
// (-nats), publishes the run through opts.Publisher and takes the
// workers' shards into RUN/replay until stop.
func serveRemote(ctx context.Context, f natsFlags, opts *trainer.Options, out io.Writer) (stop func(), err error) {
	if f.serve != "" && f.url != "" {
		return nil, errors.New("-serve and -nats exclude each other")
	}
	name, err := f.runName(opts.Run)
	if err != nil {
		return nil, err
	}
	creds, err := natsrun.ReadCredentials(f.creds)
	if err != nil {
		return nil, err
	}
	var workers []natsrun.Account
	if f.workers != "" {
		if workers, err = natsrun.ReadWorkers(f.workers); err != nil {
			return nil, err
		}
	}
	var refused []string
	for _, n := range strings.Split(f.refuse, ",") {
		if n = strings.TrimSpace(n); n != "" {
			refused = append(refused, n)
		}
	}
	roster := natsrun.NewRoster(workers, refused)
	cfg := opts.Config
	if cfg == nil {
		if cfg, err = configs.LoadFrozen(rundir.Dir(opts.Run).Config()); err != nil {
			return nil, err
		}
	}
	g, err := cfg.LookupGame()
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(out, nil))
	url, ca := f.url, f.ca
	var shutdown func()
	var extra []nats.Option
	var srv *natsserver.Server
	if f.serve != "" {
		if creds.Token != "" {
			return nil, errors.New("-serve: the trainer's -nats-credentials must be user:password (worker accounts are users beside it)")
		}
		srv, err = natsserver.Start(natsserver.Config{Addr: f.serve, StoreDir: filepath.Join(opts.Run, "nats"),
			User: creds.User, Password: creds.Password, Run: name, Workers: workers, TLSCert: f.cert, TLSKey: f.key})
		if err != nil {
			return nil, fmt.Errorf("-serve: %w", err)
		}
		shutdown = srv.Shutdown
		fmt.Fprintf(out, "serving run %q to remote workers at %s (%d worker accounts)\n", name, srv.ClientURL(), len(workers))
		// The trainer's own client connects in-process.
		url, extra = natsserver.InProcess(srv)
	}
	nc, err := natsrun.Connect(url, "trainer", creds, ca, extra...)
	if err != nil {
		if shutdown != nil {
			shutdown()
		}
		return nil, err
	}
	hub, err := natsrun.Create(ctx, nc, name)
	if err != nil {
		nc.Close()
		if shutdown != nil {
			shutdown()
		}
		return nil, err
	}
	tally := &remote.Tally{}
	opts.Publisher, opts.Remote = hub, tally
	ictx, cancel := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	go func() {
		defer func() { done <- struct{}{} }()
		if err := remote.Ingest(ictx, hub, rundir.Dir(opts.Run).Replay(), g, roster, log, tally); err != nil {
			log.Error("taking in shards stopped", "err", err)
		}
	}()
	go func() {
		defer func() { done <- struct{}{} }()
		removeStray(ictx, hub, log)
		if f.workers != "" {
			followWorkers(ictx, f.workers, srv, roster, hub, log)
		}
	}()
	return func() {
		cancel()
		<-done
		<-done
		nc.Close()
		if shutdown != nil {
			shutdown()
		}
	}, nil
}

// removeStray deletes the consumers on the run's streams that are not the
// trainer's (natsrun.Hub.RemoveStrayConsumers): no worker account may
// make one, so any there outlived the rights or the account that made it.
func removeStray(ctx context.Context, hub *natsrun.Hub, log *slog.Logger) {
	removed, err := hub.RemoveStrayConsumers(ctx)
	for stream, names := range removed {
		log.Warn("removed consumers the trainer did not make", "stream", stream, "count", len(names), "first", names[0])
	}
	if err != nil && ctx.Err() == nil {
		log.Warn("stray consumers", "err", err)
	}
}

// followWorkers reads the worker accounts' file again whenever it
// changes: the trainer takes shards only from the accounts in it, the
// embedded server (srv, if not nil) lets only them in, and consumers on
// the run's streams that the trainer did not make are removed. A file
// that does not read keeps the accounts as they were.
func followWorkers(ctx context.Context, path string, srv *natsserver.Server, roster *natsrun.Roster, hub *natsrun.Hub, log *slog.Logger) {
	stamp := func() string {
		st, err := os.Stat(path)
		if err != nil {
			return ""
		}
		return fmt.Sprint(st.ModTime().UnixNano(), st.Size())
	}
	last := stamp()
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(workersPoll):
		}
		now := stamp()
		if now == last {
			continue
		}
		last = now
		workers, err := natsrun.ReadWorkers(path)
		if err == nil && srv != nil {
			err = srv.SetWorkers(workers)
		}
		if err != nil {
			log.Warn("worker accounts not changed", "file", path, "err", err)
			continue
		}
		roster.SetAccounts(workers)
		names := make([]string, len(workers))
		for i, w := range workers {
			names[i] = w.User
		}
		log.Info("worker accounts", "file", path, "accounts", strings.Join(names, ","))
		removeStray(ctx, hub, log)
	}
}

// workersPoll is how often the worker accounts' file is looked at.
var workersPoll = 2 * time.Second
