// Package remote joins self-play workers on other machines to a trainer
// through a natsrun hub: Ingest is the trainer's side (shards from the
// stream into RUN/replay), Worker the worker's (the run's config and best
// network from the hub, promotions followed as they happen, shards
// uploaded from a local spool).
package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/selfplay"
)

// Ingest takes the workers' shards into replayDir until ctx ends,
// accepting only shards of cfg's game and encoder version from the
// workers roster takes (nil: any), and counts them in tally (if not nil).
// A shard from an account the roster refuses is rejected before it is
// read. A rejected shard is terminated on the stream (never delivered
// again), logged by name with the count of its account's rejected shards,
// and counted in tally; the run goes on.
func Ingest(ctx context.Context, hub *natsrun.Hub, replayDir string, g game.Game, roster *natsrun.Roster, log *slog.Logger, tally *Tally) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if tally == nil {
		tally = &Tally{}
	}
	if g.Encoder == nil {
		return errors.New("remote: no game to take shards of")
	}
	check := func(from string, h data.Header) error {
		if h.Game != g.Name || h.EncoderVersion != g.Encoder.Version() {
			return fmt.Errorf("a shard of %s (encoder %d) for a run of %s (encoder %d)", h.Game, h.EncoderVersion, g.Name, g.Encoder.Version())
		}
		return nil
	}
	return hub.Ingest(ctx, replayDir, roster.Check, check,
		func(s natsrun.Stored) { tally.Add(s.Header, s.Games, s.Busy) },
		func(err error) {
			var rej *natsrun.Rejection
			if !errors.As(err, &rej) {
				log.Warn("taking in shards", "err", err)
				return
			}
			n := tally.Reject(rej.From)
			args := []any{"worker", rej.From, "rejected", n, "shard", rej.Shard, "err", rej.Err}
			if rej.Term != nil {
				args = append(args, "term_err", rej.Term)
			}
			log.Warn("rejected a worker's shard (terminated, not delivered again)", args...)
		})
}

// WorkerOptions configure a remote self-play worker.
type WorkerOptions struct {
	Name  string // worker name in shard names
	Spool string // local directory where shards wait for the server
	// Configure may change the run's config for this worker (parallel
	// games, say); the result is validated.
	Configure func(*configs.Config)
	// NewForwarder builds the network evaluator (net/infer in production).
	NewForwarder func(p *net.Params, maxBatch int, precision string) (mcts.Forwarder, error)
	Log          *slog.Logger
	// Started, if set, hears about the worker once it plays (for progress
	// displays).
	Started func(*selfplay.Worker)
	// Sent, if set, hears about every shard the server stored (the
	// publish latency).
	Sent func(natsrun.Sent)
}

// Work plays self-play games for the hub's run until ctx ends (or games
// games, or duration): it reads the run's config and best network from
// the hub, follows promotions as the trainer publishes them, and uploads
// every finished shard. Shards not yet uploaded stay in the spool for the
// next start.
func Work(ctx context.Context, hub *natsrun.Hub, o WorkerOptions, games int) error {
	if err := data.CheckWorker(o.Name); err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	var text []byte
	var best natsrun.Best
	err := waitFor(ctx, o.Log, func() (err error) {
		if text, err = hub.Config(ctx); err == nil {
			best, err = hub.Best(ctx)
		}
		return err
	})
	if err != nil {
		return stopped(ctx, err)
	}
	cfg, err := configs.ParseFrozen(text, "the run's config from the server")
	if err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	if o.Configure != nil {
		o.Configure(cfg)
		if err := cfg.Validate(); err != nil {
			return fmt.Errorf("remote: %w", err)
		}
	}
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		return err
	}
	fwd, err := fetch(ctx, hub, best, spec, cfg.SelfPlay, o)
	if err != nil {
		return stopped(ctx, err)
	}
	if err := os.MkdirAll(o.Spool, 0o755); err != nil {
		return fmt.Errorf("remote: spool: %w", err)
	}
	setup, err := selfplay.ConfigSetup(cfg)
	if err != nil {
		return err
	}
	w, err := selfplay.New(setup, selfplay.Options{ReplayDir: o.Spool, Worker: o.Name}, fwd, best.Generation)
	if err != nil {
		return err
	}
	o.Log.Info("remote self-play", "game", cfg.Game, "network", best.Name, "generation", best.Generation, "worker", o.Name, "game_seed", w.Seed())
	if o.Started != nil {
		o.Started(w)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates, err := hub.WatchBest(ctx)
	if err != nil {
		return err
	}
	go func() {
		// Whatever the trainer publishes as best is followed, also a
		// lower generation: a best that was once higher may have been
		// planted (or the run restarted from an earlier checkpoint).
		current := best.SHA256
		for b := range updates {
			if b.SHA256 == current {
				continue
			}
			fwd, err := fetch(ctx, hub, b, spec, cfg.SelfPlay, o)
			if err != nil {
				o.Log.Warn("new best network refused", "network", b.Name, "err", err)
				continue
			}
			o.Log.Info("switching network", "network", b.Name, "generation", b.Generation)
			w.SetNetwork(fwd, b.Generation)
			current = b.SHA256
		}
	}()
	sent := func(natsrun.Sent) {}
	if o.Sent != nil {
		sent = o.Sent
	}
	uploaded := make(chan error, 1)
	upCtx, stopUpload := context.WithCancel(context.Background())
	go func() {
		uploaded <- hub.Upload(upCtx, o.Spool, sent, func(err error) { o.Log.Warn("upload", "err", err) })
	}()
	err = w.Run(ctx, games, 0)
	stopUpload()
	if uerr := <-uploaded; uerr != nil {
		err = errors.Join(err, uerr)
	}
	// The last shards: what cannot go now waits for the next start.
	dctx, cancel2 := context.WithTimeout(context.Background(), drainTime)
	defer cancel2()
	if derr := hub.Drain(dctx, o.Spool, sent); derr != nil {
		o.Log.Warn("shards left in the spool for the next start", "spool", o.Spool, "err", derr)
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// stopped is nil when err is ctx ending: a worker stopped before it
// played has stopped, not failed.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return err
}

// Attach opens the run on the server as the worker account ("" without
// one), waiting for its trainer to create it: a worker may start first.
func Attach(ctx context.Context, nc *nats.Conn, run, account string, log *slog.Logger) (*natsrun.Hub, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := natsrun.CheckRun(run); err != nil {
		return nil, err
	}
	var hub *natsrun.Hub
	err := waitFor(ctx, log, func() (err error) {
		hub, err = natsrun.Attach(ctx, nc, run, account)
		return err
	})
	return hub, err
}

// waitFor retries f every second until it succeeds or ctx ends: a worker
// may start before its trainer has published the run.
func waitFor(ctx context.Context, log *slog.Logger, f func() error) error {
	for i := 0; ; i++ {
		err := f()
		if err == nil {
			return nil
		}
		if i == 0 {
			log.Info("waiting for the trainer to publish the run", "err", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("remote: %w (last: %v)", ctx.Err(), err)
		case <-time.After(time.Second):
		}
	}
}

// drainTime bounds the last upload when a worker stops.
const drainTime = 10 * time.Second

// fetch downloads a best network, checks that it has the run's shape
// want (configs.NetSpec) and builds its evaluator with the self-play
// section's batch size and precision.
func fetch(ctx context.Context, hub *natsrun.Hub, b natsrun.Best, want net.Spec, sp configs.SelfPlay, o WorkerOptions) (mcts.Forwarder, error) {
	b2, err := hub.Network(ctx, b)
	if err != nil {
		return nil, err
	}
	c, err := checkpoints.Decode(b2)
	if err != nil {
		return nil, fmt.Errorf("remote: network %s: %w", b.Name, err)
	}
	if c.Params.Spec != want {
		return nil, fmt.Errorf("remote: network %s is %+v, the run's config wants %+v", b.Name, c.Params.Spec, want)
	}
	return o.NewForwarder(c.Params, sp.BatchSize, sp.Precision)
}
