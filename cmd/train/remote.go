package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/remote"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/trainer"
)

// natsFlags are the flags that serve a run to remote workers.
type natsFlags struct {
	serve, url, run, creds, cert, key, ca string
}

// serveRemote starts the embedded server (-serve) or connects to one
// (-nats), publishes the run through opts.Publisher and takes the
// workers' shards into RUN/replay until stop.
func serveRemote(ctx context.Context, f natsFlags, opts *trainer.Options, out io.Writer) (stop func(), err error) {
	if f.serve != "" && f.url != "" {
		return nil, errors.New("-serve and -nats exclude each other")
	}
	name := f.run
	if name == "" {
		name = filepath.Base(filepath.Clean(opts.Run))
	}
	if err := natsrun.CheckRun(name); err != nil {
		return nil, fmt.Errorf("%w (choose one with -nats-run)", err)
	}
	creds, err := natsrun.ReadCredentials(f.creds)
	if err != nil {
		return nil, err
	}
	cfg := opts.Config
	if cfg == nil {
		if cfg, err = configs.Load(rundir.Dir(opts.Run).Config()); err != nil {
			return nil, err
		}
	}
	url, ca := f.url, f.ca
	var shutdown func()
	var extra []nats.Option
	if f.serve != "" {
		s, err := natsrun.StartServer(natsrun.ServerConfig{Addr: f.serve, StoreDir: filepath.Join(opts.Run, "nats"),
			User: creds.User, Password: creds.Password, Token: creds.Token, TLSCert: f.cert, TLSKey: f.key})
		if err != nil {
			return nil, err
		}
		shutdown = s.Shutdown
		fmt.Fprintf(out, "serving run %q to remote workers at %s\n", name, s.ClientURL())
		// The trainer's own client connects in-process.
		url, extra = natsrun.InProcess(s)
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
	done := make(chan struct{})
	log := slog.New(slog.NewTextHandler(out, nil))
	go func() {
		defer close(done)
		if err := remote.Ingest(ictx, hub, rundir.Dir(opts.Run).Replay(), cfg, log, tally); err != nil {
			log.Error("taking in shards stopped", "err", err)
		}
	}()
	return func() {
		cancel()
		<-done
		nc.Close()
		if shutdown != nil {
			shutdown()
		}
	}, nil
}
