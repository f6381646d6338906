package natsrun_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/data/datatest"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/natsrun/natsruntest"
)

// Every hostile shard (the bomb shapes of datatest.Bombs, and one whose
// checking panics) is rejected with a *Rejection naming its account and
// terminated on the stream: it is not delivered again, and the stream is
// left empty; the honest shards among them are all taken in, and the
// trainer's Ingest goes on after the panic.
func TestIngestTerminatesBadShards(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, trainer := natsruntest.OpenServer(t, "c4")
	if err := trainer.PublishNetwork(ctx, "g000001-s000000100.ckpt", 1, []byte("n")); err != nil {
		t.Fatal(err)
	}
	restore := natsrun.SetInspect(func(b []byte) (data.Header, data.Summary, error) {
		h, sum, err := data.Inspect(b)
		if h.Worker == "panics" {
			panic("a decoder bug")
		}
		return h, sum, err
	})
	defer restore()
	var mu sync.Mutex
	written := map[string]bool{}
	var rejected []*natsrun.Rejection
	var other []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		trainer.Ingest(ctx, t.TempDir(), nil, connect4Only, func(s natsrun.Stored) {
			mu.Lock()
			written[s.Header.Name()] = true
			mu.Unlock()
		}, func(err error) {
			mu.Lock()
			defer mu.Unlock()
			var r *natsrun.Rejection
			if errors.As(err, &r) {
				rejected = append(rejected, r)
			} else {
				other = append(other, err.Error())
			}
		})
	}()
	defer func() { cancel(); <-done }()

	worker, err := natsrun.Attach(ctx, natsruntest.Conn(t, s.ClientURL()), "c4", "")
	if err != nil {
		t.Fatal(err)
	}
	bombs := datatest.Bombs("w9", "connect4", 1)
	pname, pb := datatest.ShardBytes(t, "connect4", "panics", 0)
	var honest []string
	for i, b := range bombs {
		name, hb := datatest.ShardBytes(t, "connect4", "w1", i)
		honest = append(honest, name)
		for _, m := range []struct {
			name string
			b    []byte
		}{{name, hb}, {"bomb-" + b.Name, b.Bytes}} {
			if err := worker.PublishShard(ctx, m.name, m.b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := worker.PublishShard(ctx, pname, pb); err != nil {
		t.Fatal(err)
	}
	last, lb := datatest.ShardBytes(t, "connect4", "w1", 99)
	honest = append(honest, last)
	if err := worker.PublishShard(ctx, last, lb); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		n, r := len(written), len(rejected)
		mu.Unlock()
		if n == len(honest) && r == len(bombs)+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s: %d of %d honest shards in, %d of %d rejected (%q)", n, len(honest), r, len(bombs)+1, other)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, name := range honest {
		if !written[name] {
			t.Errorf("honest shard %s not taken in", name)
		}
	}
	panicked := 0
	for _, r := range rejected {
		if r.From != "any" || r.Term != nil {
			t.Errorf("rejection %v: from %q, termination %v", r, r.From, r.Term)
		}
		if strings.Contains(r.Error(), "checking it panicked: a decoder bug") {
			panicked++
		}
	}
	if panicked != 1 {
		t.Errorf("%d rejections for the shard whose checking panics, want 1", panicked)
	}
	// Terminated: gone from the work-queue stream, none waiting for an
	// acknowledgement and none delivered twice.
	js, _ := jetstream.New(natsruntest.Conn(t, s.ClientURL()))
	n := natsrun.NamesOf("c4")
	for {
		st, err := js.Stream(ctx, n.Stream)
		if err != nil {
			t.Fatal(err)
		}
		ci, err := js.Consumer(ctx, n.Stream, "trainer")
		if err != nil {
			t.Fatal(err)
		}
		info := ci.CachedInfo()
		if st.CachedInfo().State.Msgs == 0 && info.NumAckPending == 0 {
			if info.NumRedelivered != 0 {
				t.Errorf("%d shards delivered again", info.NumRedelivered)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s the stream holds %d shards, %d wait for an acknowledgement", st.CachedInfo().State.Msgs, info.NumAckPending)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
