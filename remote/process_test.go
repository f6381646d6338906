//go:build unix

package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/data/datatest"
	"github.com/tabula-zero/tabula/natsrun"
	"github.com/tabula-zero/tabula/natsrun/natsruntest"
	"github.com/tabula-zero/tabula/natsrun/natsserver"
	"github.com/tabula-zero/tabula/rundir"
)

// proc is a child process with its output in a file.
type proc struct {
	cmd *exec.Cmd
	log string
}

func start(t *testing.T, log string, name string, args ...string) *proc {
	t.Helper()
	f, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p := &proc{cmd: cmd, log: log}
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *proc) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

// stop sends SIGINT and waits for the exit.
func (p *proc) stop(t *testing.T) error {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		p.kill()
		t.Fatalf("%s did not stop within 60s after SIGINT", p.cmd.Path)
		return nil
	}
}

func (p *proc) output() string {
	b, _ := os.ReadFile(p.log)
	return string(b)
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func waitUntil(t *testing.T, what string, d time.Duration, ok func() bool, state ...func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			for _, s := range state {
				what += " (" + s() + ")"
			}
			t.Fatalf("after %v: %s\n%s", d, what, logTails(filepath.Dir(logDir)))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logDir is a log file of the running test: its directory holds them all.
var logDir string

// logTails returns the last lines of every log in dir.
func logTails(dir string) string {
	var b strings.Builder
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		out, _ := os.ReadFile(l)
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		fmt.Fprintf(&b, "--- %s\n%s\n", filepath.Base(l), strings.Join(lines[max(0, len(lines)-8):], "\n"))
	}
	return b.String()
}

// shardsOf lists the shards in dir by worker: their sequence numbers.
func shardsOf(dir string) map[string][]int {
	out := map[string][]int{}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if _, w, seq, ok := data.ParseName(e.Name()); ok {
			out[w] = append(out[w], seq)
		}
	}
	return out
}

// The trainer (-nats) and two `tabula selfplay` workers as processes around a
// separate nats-server with file storage and the roles of
// natsserver.ServerConf, each worker with its own account. Faults, at
// seeded random moments: kill -9 a worker and restart it; kill -9 the
// trainer and restart it while the workers go on publishing; kill -9 the
// server and restart it; a worker with a wrong password; a hostile client
// with a worker account tries everything a bad worker might, while the
// run goes on, and publishes a corrupt shard, a shard of another game and
// one under another worker's name, and every decompression bomb shape of
// datatest.Bombs, each rejected once and counted; its account is then
// revoked. At the
// end every shard each worker finished is in the run exactly once (its
// sequence without a gap), no game is in two shards, and the best network
// on the server is the trainer's.
func TestProcessesAndFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("processes and faults: not with -short")
	}
	natsBin, err := exec.LookPath("nats-server")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nats-server"); serr != nil {
			t.Skip("nats-server is not installed (apt-get install nats-server; .ci/run installs it)")
		}
		natsBin = "/usr/sbin/nats-server"
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("TABULA_FAULT_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("fault moments from seed %d (TABULA_FAULT_SEED=%d repeats them)", seed, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 47))
	moment := func() { time.Sleep(time.Duration(rng.IntN(3000)) * time.Millisecond) }
	dir := t.TempDir()
	tabula := filepath.Join(dir, "tabula")
	if b, err := exec.Command("go", "build", "-o", tabula, "github.com/tabula-zero/tabula/cmd/tabula").CombinedOutput(); err != nil {
		t.Fatalf("go build tabula: %v\n%s", err, b)
	}
	logDir = filepath.Join(dir, "x.log")
	port := freePort(t)
	url := "nats://127.0.0.1:" + port
	accounts := []natsrun.Account{{User: "w1", Password: "pw1"}, {User: "w2", Password: "pw2"}, {User: "evil", Password: "pw3"}}
	conf, err := natsserver.ServerConf("tiny", filepath.Join(dir, "jetstream"), natsrun.Account{User: "trainer", Password: "tpw"}, accounts)
	if err != nil {
		t.Fatal(err)
	}
	confFile := filepath.Join(dir, "nats.conf")
	os.WriteFile(confFile, []byte(conf+"listen: 127.0.0.1:"+port+"\n"), 0o600)
	startNats := func() *proc {
		p := start(t, filepath.Join(dir, "nats.log"), natsBin, "-c", confFile)
		waitUntil(t, "nats-server accepts connections", 20*time.Second, func() bool {
			c, err := net.Dial("tcp", "127.0.0.1:"+port)
			if err == nil {
				c.Close()
			}
			return err == nil
		})
		return p
	}
	credsFile := func(name, content string) string {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(content+"\n"), 0o600)
		return f
	}
	trainerCreds := credsFile("trainer.creds", "trainer:tpw")
	workersFile := credsFile("workers", "w1:pw1\nw2:pw2\nevil:pw3")
	cfgFile := filepath.Join(dir, "tiny.yaml")
	cfg := tinyConfig(t)
	cfg.Training.StepsPerGeneration = 5
	os.WriteFile(cfgFile, cfg.Marshal(), 0o644)
	run := filepath.Join(dir, "tiny")
	replay := filepath.Join(run, "replay")
	startTrainer := func() *proc {
		return start(t, filepath.Join(dir, "train.log"), tabula, "train", "-config", cfgFile, "-run", run,
			"-selfplay=false", "-nats", url, "-nats-credentials", trainerCreds, "-nats-workers", workersFile)
	}
	spools := map[string]string{"w1": filepath.Join(dir, "spool1"), "w2": filepath.Join(dir, "spool2")}
	startWorker := func(name, creds string) *proc {
		return start(t, filepath.Join(dir, name+".log"), tabula, "selfplay", "-nats", url, "-run", "tiny",
			"-worker", name, "-spool", spools[name], "-nats-credentials", credsFile(name+".creds", creds), "-parallel", "4")
	}
	count := func(w string) int { return len(shardsOf(replay)[w]) }

	server := startNats()
	trainer := startTrainer()
	w1, w2 := startWorker("w1", "w1:pw1"), startWorker("w2", "w2:pw2")
	waitUntil(t, "both workers' shards in the run", 60*time.Second, func() bool { return count("w1") >= 2 && count("w2") >= 2 })

	// A hostile client with a worker account while the run goes on.
	tnc, err := natsrun.Connect(url, "test-trainer", natsrun.Credentials{User: "trainer", Password: "tpw"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tnc.Close()
	enc, err := natsrun.Connect(url, "evil", natsrun.Credentials{User: "evil", Password: "pw3"}, "", natsrun.WorkerOption("evil"))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	enc.SetErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})
	if won := natsruntest.Attack(t, enc, "tiny", func(subj string) { tnc.Publish(subj, []byte("x")); tnc.Flush() }); len(won) > 0 {
		t.Errorf("a worker account could: %s", strings.Join(won, "; "))
	}
	natsruntest.CheckIntact(t, tnc, "tiny")

	// kill -9 a worker mid-game and start it again.
	moment()
	w1.cmd.Process.Kill()
	w1.cmd.Wait()
	before := count("w1")
	w1 = startWorker("w1", "w1:pw1")
	waitUntil(t, "the restarted worker's shards", 60*time.Second, func() bool { return count("w1") >= before+2 })

	// kill -9 the trainer; the workers go on publishing into the stream.
	moment()
	trainer.cmd.Process.Kill()
	trainer.cmd.Wait()
	n := len(shardsOf(replay)["w2"])
	time.Sleep(3 * time.Second)
	if got := len(shardsOf(replay)["w2"]); got != n {
		t.Fatalf("shards written while the trainer was down: %d -> %d", n, got)
	}
	trainer = startTrainer()
	waitUntil(t, "the shards published while the trainer was down", 60*time.Second, func() bool { return count("w2") >= n+2 })

	// kill -9 the server (file storage) while the workers publish.
	moment()
	server.cmd.Process.Kill()
	server.cmd.Wait()
	moment()
	server = startNats()
	m1, m2 := count("w1"), count("w2")
	waitUntil(t, "shards after the server's restart", 90*time.Second, func() bool { return count("w1") > m1 && count("w2") > m2 })

	// A worker with a wrong password is refused.
	bad := startWorker("w1", "w1:guess")
	done := make(chan error, 1)
	go func() { done <- bad.cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(strings.ToLower(bad.output()), "authorization") {
			t.Fatalf("a worker with a wrong password: %v\n%s", err, bad.output())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a worker with a wrong password did not stop")
	}

	// The hostile account's shards: corrupt, of another game, under
	// another worker's name: each rejected by name. Then it is revoked
	// (its line removed from the trainer's file): its own good shard is
	// refused.
	if err := enc.ForceReconnect(); err != nil {
		t.Fatal(err)
	}
	hub, err := Attach(context.Background(), enc, "tiny", "evil", nil)
	if err != nil {
		t.Fatal(err)
	}
	name, b := datatest.ShardBytes(t, "connect4", "evil", 0)
	b[len(b)/2] ^= 0xff
	xname, xb := datatest.ShardBytes(t, "xiangqi", "evil", 1)
	wname, wb := datatest.ShardBytes(t, "connect4", "w1", 900)
	hostile := map[string][]byte{name: b, xname: xb, wname: wb}
	// And every decompression bomb shape (the first once crash-looped the
	// trainer: 64 GiB asked for, at every restart).
	bombs := datatest.Bombs("evil", "connect4", 1)
	for i, bomb := range bombs {
		hostile[fmt.Sprintf("bomb%d", i)] = bomb.Bytes
	}
	for nm, payload := range hostile {
		if err := hub.PublishShard(context.Background(), nm, payload); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, "the bad shards and the bombs rejected in the trainer's log", 30*time.Second, func() bool {
		out := trainer.output()
		return strings.Contains(out, fmt.Sprintf("worker=evil rejected=%d ", len(hostile))) && strings.Contains(out, "xiangqi") &&
			strings.Contains(out, `may send only shards of worker \"evil\"`) && strings.Contains(out, "a shard holds at most 262144")
	})
	os.WriteFile(workersFile, []byte("w1:pw1\nw2:pw2\n"), 0o600)
	waitUntil(t, "the trainer re-reads its worker accounts", 30*time.Second, func() bool {
		return strings.Contains(trainer.output(), "accounts=w1,w2")
	})
	gname, gb := datatest.ShardBytes(t, "connect4", "evil", 2)
	if err := hub.PublishShard(context.Background(), gname, gb); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the revoked account's shard refused", 30*time.Second, func() bool {
		return strings.Contains(trainer.output(), `worker \"evil\" has no account`)
	})

	// Stop: the workers drain their spools, the trainer takes the rest in.
	for _, w := range []*proc{w1, w2} {
		if err := w.stop(t); err != nil {
			t.Fatalf("worker: %v\n%s", err, w.output())
		}
	}
	for name, spool := range spools {
		if left, _ := filepath.Glob(filepath.Join(spool, "*"+data.Ext)); len(left) > 0 {
			t.Fatalf("worker %s left %d shards in its spool", name, len(left))
		}
	}
	final := map[string]int{"w1": data.NextSeq(spools["w1"], "w1"), "w2": data.NextSeq(spools["w2"], "w2")}
	// A delivery lost to the server's kill comes again after the trainer's
	// ack wait (15 s).
	waitUntil(t, "every finished shard in the run", 60*time.Second, func() bool {
		return count("w1") == final["w1"] && count("w2") == final["w2"]
	}, func() string {
		return fmt.Sprintf("in the run w1 %d w2 %d, finished w1 %d w2 %d", count("w1"), count("w2"), final["w1"], final["w2"])
	})
	// Once the trainer has stopped (it may promote until then), the best
	// network on the server is its best checkpoint.
	if err := trainer.stop(t); err != nil {
		t.Fatalf("trainer: %v\n%s", err, trainer.output())
	}
	best, err := hub.Best(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bestPath, err := rundir.Dir(run).Pointer(rundir.Best)
	if err != nil {
		t.Fatal(err)
	}
	ckpt, err := os.ReadFile(bestPath)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(ckpt); filepath.Base(bestPath) != best.Name || hex.EncodeToString(sum[:]) != best.SHA256 {
		t.Errorf("the server's best %+v is not the trainer's %s", best, bestPath)
	}
	if got := shardsOf(replay)["evil"]; len(got) > 0 {
		t.Errorf("the hostile account's shards in the run: %v", got)
	}
	for w, seqs := range shardsOf(replay) {
		have := map[int]bool{}
		for _, s := range seqs {
			if have[s] {
				t.Errorf("worker %s: shard %d twice", w, s)
			}
			have[s] = true
		}
		for s := range final[w] {
			if !have[s] {
				t.Errorf("worker %s: shard %d of %d missing", w, s, final[w])
			}
		}
		if len(seqs) != final[w] {
			t.Errorf("worker %s: %d shards in the run, %d finished", w, len(seqs), final[w])
		}
	}
	games := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(replay, "*"+data.Ext))
	for _, f := range files {
		h, samples, err := data.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			id := fmt.Sprintf("%s/%d/%d", h.Worker, h.GameSeed, s.GameID)
			if other, ok := games[id]; ok && other != f {
				t.Fatalf("game %s is in %s and %s", id, filepath.Base(other), filepath.Base(f))
			}
			games[id] = f
		}
	}
}
