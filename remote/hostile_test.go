package remote

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabula-zero/tabula/data/datatest"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/natsrun/natsruntest"
)

// heapBound is what the trainer's heap may grow by while a hostile worker
// sends every bomb shape of datatest.Bombs, several times over, among
// honest workers' shards: a few decoders and their buffers, the server's
// messages in flight (measured: under 5 MiB on a 2-core EPYC). The old
// reader asked for 64 GiB at the first bomb.
const heapBound = 32 << 20

// heapWatch samples the heap in use until stopped and keeps its peak.
type heapWatch struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

func watchHeap() *heapWatch {
	h := &heapWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			h.peak = max(h.peak, m.HeapInuse)
			select {
			case <-h.stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return h
}

func (h *heapWatch) Peak() uint64 {
	close(h.stop)
	<-h.done
	return h.peak
}

// A hostile worker account sends every bomb shape of datatest.Bombs three
// times while two honest workers upload their shards from their spools,
// to a trainer taking shards in (Ingest) in this process: every honest
// shard arrives; every hostile one is rejected by name, terminated on the
// stream (never delivered again: each is counted once) and counted
// against its account in the tally and the log; and the heap in use
// grows by less than heapBound, and all that was allocated meanwhile
// (which bounds any peak the sampling missed) is less than twice that.
func TestHostileWorkerAmongHonest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	accounts := []natsrun.Account{{User: "w1", Password: "p1"}, {User: "w2", Password: "p2"}, {User: "evil", Password: "p3"}}
	s, tnc, hub := natsruntest.OpenRoles(t, "tiny", accounts)
	if err := hub.PublishNetwork(ctx, "g000001-s000000001.ckpt", 1, []byte("network")); err != nil {
		t.Fatal(err)
	}
	replay := t.TempDir()
	tally := &Tally{}
	var logged natsruntest.Log
	ictx, stopIngest := context.WithCancel(ctx)
	ingested := make(chan error, 1)
	go func() {
		ingested <- Ingest(ictx, hub, replay, gameOf(t, tinyConfig(t)), natsrun.NewRoster(accounts, nil), slog.New(slog.NewTextHandler(&logged, nil)), tally)
	}()
	defer func() { stopIngest(); <-ingested }()
	attach := func(a natsrun.Account) *natsrun.Hub {
		nc, err := natsrun.Connect(s.ClientURL(), a.User, natsrun.Credentials{User: a.User, Password: a.Password}, "", natsrun.WorkerOption(a.User))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		h, err := natsrun.Attach(ctx, nc, "tiny", a.User)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// The shards, made before the heap is watched.
	const perWorker = 12
	honest := map[string][]byte{}
	byWorker := map[string][]string{}
	for _, w := range []string{"w1", "w2"} {
		for seq := range perWorker {
			name, b := datatest.ShardBytes(t, "connect4", w, seq)
			honest[name] = b
			byWorker[w] = append(byWorker[w], name)
		}
	}
	bombs := datatest.Bombs("evil", "connect4", 1)
	const rounds = 3
	evil := attach(accounts[2])
	workers := map[string]*natsrun.Hub{"w1": attach(accounts[0]), "w2": attach(accounts[1])}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	heap := watchHeap()
	var wg sync.WaitGroup
	upctx, stopUploads := context.WithCancel(ctx)
	defer stopUploads()
	for w, h := range workers {
		spool := t.TempDir()
		wg.Add(2)
		go func() {
			defer wg.Done()
			h.Upload(upctx, spool, func(natsrun.Sent) {}, func(err error) { t.Logf("%s upload: %v", w, err) })
		}()
		go func() { // the worker's games finish one shard after another
			defer wg.Done()
			for _, name := range byWorker[w] {
				if err := os.WriteFile(filepath.Join(spool, "."+name), honest[name], 0o644); err == nil {
					os.Rename(filepath.Join(spool, "."+name), filepath.Join(spool, name))
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	for r := range rounds {
		for i, b := range bombs {
			if err := evil.PublishShard(ctx, fmt.Sprintf("bomb%d-%d", r, i), b.Bytes); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := rounds * len(bombs)
	for {
		have := 0
		for name := range honest {
			if _, err := os.Stat(filepath.Join(replay, name)); err == nil {
				have++
			}
		}
		got := tally.Rejected()["evil"]
		if have == len(honest) && got >= want {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%d of %d honest shards in, %d of %d hostile ones rejected\n%s", have, len(honest), got, want, logged.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	peak := heap.Peak()
	runtime.ReadMemStats(&after)
	stopUploads()
	wg.Wait()

	grew, allocated := int64(peak)-int64(before.HeapInuse), after.TotalAlloc-before.TotalAlloc
	t.Logf("heap in use %d MiB before, peak %d MiB (+%d KiB); %d MiB allocated meanwhile; %d honest shards in, %d hostile rejected",
		before.HeapInuse>>20, peak>>20, grew>>10, allocated>>20, len(honest), tally.Rejected()["evil"])
	if grew > heapBound || allocated > 2*heapBound {
		t.Errorf("the heap grew by %d bytes (bound %d) and %d were allocated (bound %d)", grew, heapBound, allocated, 2*heapBound)
	}
	// Terminated, not delivered again: the stream is left empty and the
	// count stays at one a bomb.
	js, _ := jetstream.New(tnc)
	for {
		st, err := js.Stream(ctx, natsrun.NamesOf("tiny").Stream)
		if err != nil {
			t.Fatal(err)
		}
		if st.CachedInfo().State.Msgs == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%d shards left in the stream", st.CachedInfo().State.Msgs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ci, err := js.Consumer(ctx, natsrun.NamesOf("tiny").Stream, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	if n := ci.CachedInfo().NumRedelivered; n != 0 || tally.Rejected()["evil"] != want {
		t.Errorf("%d deliveries again; %d rejections counted for %d hostile shards", n, tally.Rejected()["evil"], want)
	}
	out := logged.String()
	if !strings.Contains(out, fmt.Sprintf(`rejected a worker's shard (terminated, not delivered again)" worker=evil rejected=%d`, want)) {
		t.Errorf("no log line counting the hostile account's %d rejected shards:\n%s", want, out)
	}
	// The hostile account is reported with its rejections and nothing
	// taken in; each honest worker with its shards and none refused.
	for _, w := range tally.Workers() {
		if w.Name == "evil" && (w.Shards != 0 || w.Rejected != want) || w.Name != "evil" && (w.Shards != perWorker || w.Rejected != 0) {
			t.Errorf("tally %+v", w)
		}
	}
}
