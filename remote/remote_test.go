package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/configs/configstest"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/data/datatest"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/natsrun/natsruntest"
	"github.com/tabula-zero/tabula/natsrun/natsserver"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/selfplay"
	"github.com/tabula-zero/tabula/trainer"
)

func tinyConfig(t *testing.T) *configs.Config { return configstest.TinyConnectFour(t) }

// gameOf is cfg's game with its network's encoder.
func gameOf(t *testing.T, cfg *configs.Config) game.Game {
	t.Helper()
	g, err := cfg.LookupGame()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func newFwd(p *net.Params, n int, _ string) (mcts.Forwarder, error) { return infer.New(p, n) }

// A tiny Connect Four run whose self-play happens only in two remote
// workers, each with its worker account, on an embedded server over
// loopback: the trainer takes their shards in and trains, the promotions
// reach the workers, and every shard they wrote is in the replay
// directory exactly once (each worker's sequence without a gap, each
// game in one shard).
func TestRemoteWorkers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := natsserver.Start(natsserver.Config{Addr: "127.0.0.1:0", StoreDir: t.TempDir(),
		User: "trainer", Password: "tpw", Run: "tiny", Workers: []natsrun.Account{{User: "w1", Password: "p1"}, {User: "w2", Password: "p2"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	connect := func(user, pass string, opts ...nats.Option) *nats.Conn {
		nc, err := nats.Connect(s.ClientURL(), append(opts, nats.UserInfo(user, pass))...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	hub, err := natsrun.Create(ctx, connect("trainer", "tpw"), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	cfg := tinyConfig(t)
	replay := filepath.Join(run, "replay")
	tally := &Tally{}
	go Ingest(ctx, hub, replay, gameOf(t, cfg), nil, nil, tally)

	wctx, stopWorkers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var mu sync.Mutex
	workers := map[string]*selfplay.Worker{}
	for _, name := range []string{"w1", "w2"} {
		wh, err := natsrun.Attach(ctx, connect(name, "p"+name[1:], natsrun.WorkerOption(name)), "tiny", name)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Work(wctx, wh, WorkerOptions{Name: name, Spool: t.TempDir(), NewForwarder: newFwd,
				Started: func(w *selfplay.Worker) { mu.Lock(); workers[name] = w; mu.Unlock() }}, 0)
			if err != nil {
				t.Errorf("worker %s: %v", name, err)
			}
		}()
	}
	var out bytes.Buffer
	err = trainer.Run(ctx, trainer.Options{Run: run, Config: cfg, SelfPlay: false, MaxGenerations: 3, Out: &out,
		NewForwarder: newFwd, Publisher: hub, Remote: tally})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// The last promotion reaches the workers.
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n, g1, g2 := len(workers), -1, -1
		if n == 2 {
			g1, g2 = workers["w1"].Generation(), workers["w2"].Generation()
		}
		mu.Unlock()
		if g1 == 3 && g2 == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers at generations %d and %d, the trainer promoted 3", g1, g2)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopWorkers()
	wg.Wait()
	// The last shards the workers drained on stopping are taken in too.
	time.Sleep(2 * time.Second)
	files, _ := filepath.Glob(filepath.Join(replay, "*"+data.Ext))
	seqs := map[string][]int{}
	games := map[string]string{}
	for _, f := range files {
		h, samples, err := data.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		seqs[h.Worker] = append(seqs[h.Worker], h.Seq)
		for _, s := range samples {
			id := fmt.Sprintf("%s/%d", h.Worker, s.GameID)
			if other, ok := games[id]; ok && other != f {
				t.Fatalf("game %s is in %s and %s", id, other, f)
			}
			games[id] = f
		}
	}
	// The trainer's metrics name both workers with what they sent, and
	// the tally matches the shards on disk.
	ms, err := os.ReadFile(filepath.Join(run, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var last metrics.Metric
	for _, line := range bytes.Split(bytes.TrimSpace(ms), []byte("\n")) {
		var m metrics.Metric
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		if m.Kind == "generation" {
			last = m
		}
	}
	if len(last.Workers) != 2 || last.Workers[0].Name != "w1" || last.Workers[1].Name != "w2" || last.Workers[0].Samples == 0 || last.Workers[1].Games == 0 {
		t.Fatalf("workers in the last generation line: %+v", last.Workers)
	}
	if _, err := os.Stat(filepath.Join(run, "plots", "workers.png")); err != nil {
		t.Error(err)
	}
	onDisk := map[string]int{}
	for _, f := range files {
		h, _, _ := data.Read(f)
		onDisk[h.Worker] += h.Samples
	}
	for _, w := range tally.Workers() {
		if w.Samples != onDisk[w.Name] || w.Shards != len(seqs[w.Name]) {
			t.Errorf("tally %+v, on disk %d samples in %d shards", w, onDisk[w.Name], len(seqs[w.Name]))
		}
	}
	for _, w := range []string{"w1", "w2"} {
		if len(seqs[w]) < 2 {
			t.Fatalf("worker %s: shards %v", w, seqs[w])
		}
		have := map[int]bool{}
		for _, seq := range seqs[w] {
			if have[seq] {
				t.Fatalf("worker %s: shard %d twice", w, seq)
			}
			have[seq] = true
		}
		for seq := range len(seqs[w]) {
			if !have[seq] {
				t.Fatalf("worker %s: shard %d missing of %v", w, seq, seqs[w])
			}
		}
	}
}

// A worker that starts before its trainer has published the run waits,
// and stopping it while it waits is a clean stop, not a failure.
func TestWorkerStoppedWhileWaiting(t *testing.T) {
	_, hub := natsruntest.OpenServer(t, "empty")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if err := Work(ctx, hub, WorkerOptions{Name: "w1", Spool: t.TempDir(), NewForwarder: newFwd}, 0); err != nil {
		t.Fatalf("a worker stopped while waiting for the run: %v", err)
	}
}

// A worker follows whatever the trainer publishes as best, also a lower
// generation than one it saw (a best planted before roles, or a run
// restarted from an earlier checkpoint), and a shard from an account the
// roster refuses is dropped.
func TestWorkerFollowsLowerGeneration(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, hub := natsruntest.OpenServer(t, "tiny")
	cfg := tinyConfig(t)
	if err := hub.PublishConfig(ctx, cfg.MarshalSealed()); err != nil {
		t.Fatal(err)
	}
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	publish := func(gen int) {
		p, err := net.NewParams(spec, uint64(gen))
		if err != nil {
			t.Fatal(err)
		}
		b, err := checkpoints.Encode(&checkpoints.Checkpoint{Generation: gen, Params: p})
		if err != nil {
			t.Fatal(err)
		}
		if err := hub.PublishNetwork(ctx, checkpoints.Name(gen, int64(gen)), gen, b); err != nil {
			t.Fatal(err)
		}
	}
	publish(5)
	started := make(chan *selfplay.Worker, 1)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- Work(wctx, hub, WorkerOptions{Name: "w1", Spool: t.TempDir(), NewForwarder: newFwd,
			Started: func(w *selfplay.Worker) { started <- w }}, 0)
	}()
	var w *selfplay.Worker
	select {
	case w = <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not start")
	}
	if w.Generation() != 5 {
		t.Fatalf("worker at generation %d, the best is 5", w.Generation())
	}
	publish(2)
	deadline := time.Now().Add(20 * time.Second)
	for w.Generation() != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("worker at generation %d after the trainer published generation 2 as best", w.Generation())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// The roster: a refused account's shard is dropped by name.
	roster := natsrun.NewRoster(nil, []string{"w9"})
	var mu sync.Mutex
	var dropped []string
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) {
		mu.Lock()
		dropped = append(dropped, string(p))
		mu.Unlock()
	}), nil))
	go Ingest(ctx, hub, t.TempDir(), gameOf(t, cfg), roster, log, nil)
	w9, err := natsrun.Attach(ctx, natsruntest.Conn(t, s.ClientURL()), "tiny", "w9")
	if err != nil {
		t.Fatal(err)
	}
	name, b := datatest.ShardBytes(t, "connect4", "w9", 0)
	if err := w9.PublishShard(ctx, name, b); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		all := strings.Join(dropped, "")
		mu.Unlock()
		if strings.Contains(all, `worker \"w9\" is refused`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the refused worker's shard: log %q", all)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// The run's config reaches a worker as the trainer's sealed copy: one
// without its checksum line (edited on the way, or planted) is refused
// before anything is played.
func TestWorkerRefusesUnsealedConfig(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, hub := natsruntest.OpenServer(t, "unsealed")
	cfg := tinyConfig(t)
	if err := hub.PublishConfig(ctx, cfg.Marshal()); err != nil {
		t.Fatal(err)
	}
	spec, err := configs.NetSpec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := net.NewParams(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := checkpoints.Encode(&checkpoints.Checkpoint{Generation: 1, Params: p})
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.PublishNetwork(ctx, checkpoints.Name(1, 1), 1, b); err != nil {
		t.Fatal(err)
	}
	err = Work(ctx, hub, WorkerOptions{Name: "w1", Spool: t.TempDir(), NewForwarder: newFwd}, 1)
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("an unsealed config from the server: %v", err)
	}
}
