package selfplay

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/internal/jsonl"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/player"
	"github.com/tabula-zero/tabula/remote"
	"github.com/tabula-zero/tabula/selfplay"
)

type remoteFlags struct {
	url, run, creds, ca, spool, worker string
	workerSet                          bool
	games, parallel, sims              int
	limit                              time.Duration
}

// runRemote plays for a run served over NATS.
func runRemote(ctx context.Context, f remoteFlags, out io.Writer) error {
	if err := natsrun.CheckRun(f.run); err != nil {
		return fmt.Errorf("-run: %w", err)
	}
	creds, err := natsrun.ReadCredentials(f.creds)
	if err != nil {
		return err
	}
	var extra []nats.Option
	if creds.User != "" {
		// A worker account: shards go out under its name, which the
		// trainer checks against the worker name in each shard.
		if err := natsrun.CheckAccount(creds.User); err != nil {
			return fmt.Errorf("-nats-credentials: %w", err)
		}
		if !f.workerSet {
			f.worker = creds.User
		} else if f.worker != creds.User && !strings.HasPrefix(f.worker, creds.User+"_") {
			return fmt.Errorf("-worker %s: the account %s may send only shards of worker %s or %s_SUFFIX", f.worker, creds.User, creds.User, creds.User)
		}
		extra = append(extra, natsrun.WorkerOption(creds.User))
	}
	if f.spool == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = "."
		}
		f.spool = filepath.Join(base, "tabula", "spool", f.run)
	}
	log := slog.New(slog.NewTextHandler(out, nil))
	// The server may be down, or its trainer not started yet: wait for it.
	nc, err := natsrun.ConnectRetry(ctx, log, f.url, f.worker, creds, f.ca, extra...)
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while waiting
		}
		return err
	}
	defer nc.Close()
	hub, err := remote.Attach(ctx, nc, f.run, creds.User, log)
	if err != nil {
		return err
	}
	if f.limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.limit)
		defer cancel()
	}
	if err := os.MkdirAll(f.spool, 0o755); err != nil {
		return fmt.Errorf("-spool: %w", err)
	}
	metrics, err := jsonl.Open(filepath.Join(f.spool, "..", f.run+"-"+f.worker+".jsonl"))
	if err != nil {
		return err
	}
	defer metrics.Close()
	pctx, stopProgress := context.WithCancel(ctx)
	defer stopProgress()
	var prog *selfplay.Progress
	err = remote.Work(ctx, hub, remote.WorkerOptions{
		Name: f.worker, Spool: f.spool, Log: log,
		Configure: func(c *configs.Config) {
			if f.parallel > 0 {
				c.SelfPlay.ParallelGames = f.parallel
			}
			if f.sims > 0 {
				c.Search.Simulations = f.sims
			}
		},
		NewForwarder: player.NewForwarder,
		Sent: func(s natsrun.Sent) {
			metrics.Append(publishLine{Kind: "publish", Time: time.Now().UTC(), Shard: s.Name,
				PublishMillis: float64(s.Publish.Microseconds()) / 1000, AgeMillis: float64(s.Age.Microseconds()) / 1000})
		},
		Started: func(w *selfplay.Worker) {
			prog = selfplay.NewProgress(out, metrics, w, f.games, f.limit)
			go prog.Run(pctx)
		},
	}, f.games)
	stopProgress()
	if prog != nil {
		if perr := prog.Final(); err == nil {
			err = perr
		}
	}
	if ctx.Err() != nil && f.limit > 0 {
		err = nil // the time limit
	}
	return err
}

// publishLine is the worker's metrics line for a shard the server stored:
// the publish's round trip and the shard's age at the acknowledgement.
type publishLine struct {
	Kind          string    `json:"kind"`
	Time          time.Time `json:"time"`
	Shard         string    `json:"shard"`
	PublishMillis float64   `json:"publish_ms"`
	AgeMillis     float64   `json:"age_ms"`
}
