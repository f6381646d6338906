package train

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/natsrun/natsruntest"
)

// Revoking a worker (its line removed from the workers file) removes the
// consumers left on the run's streams (made under older rights, which
// let a worker make durable and push consumers), besides refusing its
// shards and its connection; the trainer's own consumer stays.
func TestRevocationRemovesStrayConsumers(t *testing.T) {
	defer func(d time.Duration) { workersPoll = d }(workersPoll)
	workersPoll = 20 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	file := filepath.Join(dir, "workers")
	if err := os.WriteFile(file, []byte("w1:p1\nw2:p2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	workers, err := natsrun.ReadWorkers(file)
	if err != nil {
		t.Fatal(err)
	}
	srv, tnc, hub := natsruntest.OpenRoles(t, "c4", workers)
	// The trainer's consumer, and what a worker left.
	ictx, stopIngest := context.WithCancel(ctx)
	defer stopIngest()
	go hub.Ingest(ictx, t.TempDir(), nil, nil, func(natsrun.Stored) {}, func(error) {})
	js, _ := jetstream.New(tnc)
	n := natsrun.NamesOf("c4")
	for i := range 30 {
		if _, err := js.CreateOrUpdateConsumer(ctx, "KV_"+n.Bucket, jetstream.ConsumerConfig{Durable: fmt.Sprintf("w2d%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	push := fmt.Sprintf(`{"stream_name":"OBJ_%s","config":{"name":"w2push","deliver_subject":"elsewhere","ack_policy":"none"}}`, n.Networks)
	if _, err := tnc.Request("$JS.API.CONSUMER.CREATE.OBJ_"+n.Networks+".w2push", []byte(push), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := natsruntest.Consumers(t, tnc, "c4"); len(got["KV_"+n.Bucket]) != 30 || len(got["OBJ_"+n.Networks]) != 1 {
		t.Fatalf("planted %v", got)
	}
	roster := natsrun.NewRoster(workers, nil)
	var out natsruntest.Log
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		followWorkers(ctx, file, srv, roster, hub, slog.New(slog.NewTextHandler(&out, nil)))
	}()
	defer func() { cancel(); <-followed }()
	// The file is written again (a comment longer each time) until the
	// follower has seen it change: it may start after the first write.
	for i := 0; !strings.Contains(out.String(), "removed consumers the trainer did not make") || len(natsruntest.Consumers(t, tnc, "c4")) > 0; i++ {
		if ctx.Err() != nil {
			t.Fatalf("consumers left after the revocation: %v\n%s", natsruntest.Consumers(t, tnc, "c4"), out.String())
		}
		if i%25 == 0 {
			if err := os.WriteFile(file, []byte("w1:p1\n#"+strings.Repeat("x", i/25)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := roster.Check("w2"); err == nil {
		t.Error("the revoked account's shards are still taken")
	}
	if nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo("w2", "p2")); err == nil {
		nc.Close()
		t.Error("the revoked account connects")
	}
	natsruntest.CheckIntact(t, tnc, "c4")
}
