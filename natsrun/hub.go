// Package natsrun carries a training run between a trainer and self-play
// workers on other machines through NATS JetStream: the frozen config
// and the best network (a key-value bucket and an object store) go out,
// replay shards come in (a work-queue stream with de-duplication by
// message id). It is the client side only: the trainer embeds a server
// (natsrun/natsserver) or uses an existing one; workers only connect.
// Everything received is data that is checked before use: configs are
// parsed strictly, networks are verified against their SHA-256, shards
// come only from admitted worker accounts and are checked whole (CRC,
// every record, the limits of package data, game, encoder) before they are
// written, under names derived from their verified headers. A worker
// creates no consumer on the server: it reads by direct gets.
package natsrun

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// Hub is one run's streams and buckets on a NATS server, from the
// trainer's side (Create) or a worker's (Attach).
type Hub struct {
	run string
	// from is a worker's account (anyWorker without one): the last token
	// of the subject its shards go out on.
	from string
	js   jetstream.JetStream
	kv   jetstream.KeyValue
	nets jetstream.ObjectStore
	// chunks is the network store's stream, whose messages (a network's
	// chunks) are read one by one.
	chunks chunkGetter
	stream jetstream.Stream
	// fetchBase is a network read's bound before its size is added
	// (fetchRate); tests shorten it.
	fetchBase time.Duration
	// published is the highest generation the trainer's side published
	// (-1: none yet): no honest shard comes from a later one.
	published atomic.Int64
}

// Key-value keys.
const (
	keyConfig = "config"
	keyBest   = "best"
)

// dedupWindow is how long the server remembers a shard's message id: a
// worker that retries a publish within it is never stored twice (the
// trainer also skips a shard already on disk, whenever it comes).
const dedupWindow = 2 * time.Hour

var runName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CheckRun reports whether name can name a run on the server.
func CheckRun(name string) error {
	if !runName.MatchString(name) {
		return fmt.Errorf("natsrun: run name %q must be 1-64 letters, digits, '_' or '-'", name)
	}
	return nil
}

// Names are where a run lives on the server: its shard stream, the
// subject its worker accounts' subjects start with, its key-value bucket
// (config, best) and its network store.
type Names struct {
	Stream, Subject, Bucket, Networks string
}

// NamesOf returns run's names on the server.
func NamesOf(run string) Names {
	return Names{Stream: streamName(run), Subject: shardSubject(run), Bucket: bucketName(run), Networks: netsName(run)}
}

func streamName(run string) string   { return "TABULA_" + run + "_SHARDS" }
func bucketName(run string) string   { return "tabula_" + run }
func netsName(run string) string     { return "tabula_" + run + "_nets" }
func shardSubject(run string) string { return "tabula." + run + ".shards" }

// shardFrom returns the account on a shard's subject.
func shardFrom(run, subject string) (string, bool) {
	from, ok := strings.CutPrefix(subject, shardSubject(run)+".")
	return from, ok && from != "" && !strings.Contains(from, ".")
}

// newHub checks the run's name and opens JetStream on nc.
func newHub(nc *nats.Conn, run string) (*Hub, error) {
	if err := CheckRun(run); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natsrun: %w", err)
	}
	h := &Hub{run: run, js: js, fetchBase: fetchBase, from: anyWorker}
	h.published.Store(-1)
	return h, nil
}

// Create makes (or opens) the run's stream and buckets: the trainer's side.
func Create(ctx context.Context, nc *nats.Conn, run string) (*Hub, error) {
	h, err := newHub(nc, run)
	if err != nil {
		return nil, err
	}
	js := h.js
	if h.stream, err = js.CreateOrUpdateStream(ctx, h.streamConfig()); err != nil {
		return nil, fmt.Errorf("natsrun: shard stream: %w", err)
	}
	if h.kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: bucketName(run), Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("natsrun: key-value bucket: %w", err)
	}
	if h.nets, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: netsName(run), Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("natsrun: network store: %w", err)
	}
	if h.chunks, err = js.Stream(ctx, objStream(run)); err != nil {
		return nil, fmt.Errorf("natsrun: network store: %w", err)
	}
	return h, nil
}

// The streams behind the key-value bucket and the network store.
func kvStream(run string) string  { return "KV_" + bucketName(run) }
func objStream(run string) string { return "OBJ_" + netsName(run) }

// streamConfig is the shard stream's: a work queue with de-duplication.
func (h *Hub) streamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name: streamName(h.run), Subjects: []string{shardSubject(h.run) + ".*"}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: dedupWindow,
		// A worker that publishes without end fills this, not the disk.
		MaxBytes: maxStreamBytes, Discard: jetstream.DiscardNew,
	}
}

// maxStreamBytes bounds the shards waiting for the trainer: about 50,000
// Connect Four shards, or a day of a few dozen workers with a trainer
// away. Publishes beyond it fail and the shards wait in the spools.
const maxStreamBytes = 2 << 30

// Attach opens a run the trainer created: a worker's side. account is
// the worker's account on the server ("" without one): its shards go out
// under it.
func Attach(ctx context.Context, nc *nats.Conn, run, account string) (*Hub, error) {
	h, err := newHub(nc, run)
	if err != nil {
		return nil, err
	}
	if account != "" {
		if err := CheckAccount(account); err != nil {
			return nil, err
		}
		h.from = account
	}
	js := h.js
	if h.kv, err = js.KeyValue(ctx, bucketName(run)); err != nil {
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			return nil, fmt.Errorf("natsrun: the server has no run %q (is its trainer serving it?)", run)
		}
		return nil, fmt.Errorf("natsrun: run %q: %w", run, err)
	}
	if h.nets, err = js.ObjectStore(ctx, netsName(run)); err != nil {
		return nil, fmt.Errorf("natsrun: run %q networks: %w", run, err)
	}
	if h.chunks, err = js.Stream(ctx, objStream(run)); err != nil {
		return nil, fmt.Errorf("natsrun: run %q networks: %w", run, err)
	}
	return h, nil
}

// PublishConfig stores the run's frozen config (its sealed YAML).
func (h *Hub) PublishConfig(ctx context.Context, sealed []byte) error {
	if _, err := h.kv.Put(ctx, keyConfig, sealed); err != nil {
		return fmt.Errorf("natsrun: publish config: %w", err)
	}
	return nil
}

// Config returns the run's config text as the trainer published it.
func (h *Hub) Config(ctx context.Context) ([]byte, error) {
	e, err := h.kv.Get(ctx, keyConfig)
	if err != nil {
		return nil, fmt.Errorf("natsrun: run %q config: %w", h.run, err)
	}
	return e.Value(), nil
}

// Best names the run's best network: its checkpoint's name in the
// network store, its generation and SHA-256.
type Best struct {
	Name       string `json:"name"`
	Generation int    `json:"generation"`
	SHA256     string `json:"sha256"`
}

var checkpointName = regexp.MustCompile(`^g\d{6}-s\d{9}\.ckpt$`)

// PublishNetwork stores a checkpoint file's bytes under its name and
// makes it the best.
func (h *Hub) PublishNetwork(ctx context.Context, name string, generation int, ckpt []byte) error {
	if !checkpointName.MatchString(name) {
		return fmt.Errorf("natsrun: %q is not a checkpoint name", name)
	}
	if _, err := h.nets.PutBytes(ctx, name, ckpt); err != nil {
		return fmt.Errorf("natsrun: publish network %s: %w", name, err)
	}
	sum := sha256.Sum256(ckpt)
	b, _ := json.Marshal(Best{Name: name, Generation: generation, SHA256: hex.EncodeToString(sum[:])})
	if _, err := h.kv.Put(ctx, keyBest, b); err != nil {
		return fmt.Errorf("natsrun: publish best: %w", err)
	}
	for {
		old := h.published.Load()
		if int64(generation) <= old || h.published.CompareAndSwap(old, int64(generation)) {
			return nil
		}
	}
}

// parseBest reads and checks a best entry.
func parseBest(b []byte) (Best, error) {
	var best Best
	if err := json.Unmarshal(b, &best); err != nil {
		return best, fmt.Errorf("natsrun: best entry: %w", err)
	}
	if !checkpointName.MatchString(best.Name) || len(best.SHA256) != 64 || best.Generation < 0 {
		return best, fmt.Errorf("natsrun: best entry %q is malformed", b)
	}
	return best, nil
}

// Best returns the best network's entry, or an error when the trainer has
// published none yet.
func (h *Hub) Best(ctx context.Context) (Best, error) {
	e, err := h.kv.Get(ctx, keyBest)
	if err != nil {
		return Best{}, fmt.Errorf("natsrun: run %q best network: %w", h.run, err)
	}
	return parseBest(e.Value())
}

// A network read that stalls (a chunk's request that is never answered, a
// link that crawls) is abandoned after fetchBase plus the checkpoint's
// size at fetchRate and tried again, fetchAttempts times in all: a whole
// read has one bound, however many chunks it takes, and a worker whose
// read hangs does not wait for nothing.
const (
	fetchAttempts = 4
	fetchBase     = 10 * time.Second
	fetchRate     = 256 << 10 // bytes a second: the slowest link a worker is expected on
)

// errChecksum marks a network whose bytes do not match its entry: trying
// again fetches the same bytes.
var errChecksum = errors.New("does not match its SHA-256")

// Network fetches a best network's checkpoint bytes and verifies them
// against its SHA-256. Each read is bounded by the checkpoint's size and a
// failed one is retried, so a stalled read costs a bound, not the worker.
func (h *Hub) Network(ctx context.Context, b Best) ([]byte, error) {
	var err error
	for attempt := 1; attempt <= fetchAttempts; attempt++ {
		var ckpt []byte
		if ckpt, err = h.fetchNetwork(ctx, b); err == nil {
			return ckpt, nil
		}
		if ctx.Err() != nil || errors.Is(err, errChecksum) || errors.Is(err, jetstream.ErrObjectNotFound) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("natsrun: network %s: %w", b.Name, err)
}

// maxNetwork bounds a network a worker reads: the size its entry states
// is checked before its chunks are.
const maxNetwork = 1 << 30

// chunkGetter reads a stream's messages by sequence and subject
// (jetstream.Stream).
type chunkGetter interface {
	GetMsg(ctx context.Context, seq uint64, opts ...jetstream.GetMsgOpt) (*jetstream.RawStreamMsg, error)
}

// fetchNetwork is one bounded read of a network.
func (h *Hub) fetchNetwork(ctx context.Context, b Best) ([]byte, error) {
	info, err := h.nets.GetInfo(ctx, b.Name)
	if err != nil {
		return nil, err
	}
	if info.Size > maxNetwork {
		return nil, fmt.Errorf("%d bytes; a network is at most %d", info.Size, maxNetwork)
	}
	bound := h.fetchBase + time.Duration(info.Size)*time.Second/fetchRate
	rctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	ckpt, err := h.readChunks(rctx, info)
	if err != nil {
		if rctx.Err() != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("read not done within %v (%d bytes): %w", bound, info.Size, err)
		}
		return nil, err
	}
	if sum := sha256.Sum256(ckpt); hex.EncodeToString(sum[:]) != b.SHA256 {
		return nil, errChecksum
	}
	return ckpt, nil
}

// readChunks reads an object's chunks one by one, each the next message
// on its chunk subject (a direct get: a worker may create no consumer).
func (h *Hub) readChunks(ctx context.Context, info *jetstream.ObjectInfo) ([]byte, error) {
	subject := "$O." + netsName(h.run) + ".C." + info.NUID
	out := make([]byte, 0, info.Size)
	seq := uint64(1)
	for n := uint32(0); n < info.Chunks; n++ {
		m, err := h.chunks.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if err != nil {
			return nil, fmt.Errorf("chunk %d of %d: %w", n+1, info.Chunks, err)
		}
		if uint64(len(out))+uint64(len(m.Data)) > info.Size {
			return nil, fmt.Errorf("chunk %d of %d goes past the network's %d bytes", n+1, info.Chunks, info.Size)
		}
		out = append(out, m.Data...)
		seq = m.Sequence + 1
	}
	if uint64(len(out)) != info.Size {
		return nil, fmt.Errorf("%d chunks hold %d bytes, the network is %d", info.Chunks, len(out), info.Size)
	}
	return out, nil
}

// bestPoll is how often WatchBest reads the best entry: a worker has no
// consumer to watch it with, so a promotion reaches it within this.
var bestPoll = 2 * time.Second

// WatchBest sends every new best entry (the current one first) until ctx
// ends, reading the entry every bestPoll: of promotions closer together
// than that, the last is sent. Malformed entries are skipped.
func (h *Hub) WatchBest(ctx context.Context) (<-chan Best, error) {
	out := make(chan Best, 1)
	go func() {
		defer close(out)
		var sent uint64 // the revision last sent
		for {
			if e, err := h.kv.Get(ctx, keyBest); err == nil && e.Revision() != sent {
				sent = e.Revision()
				if b, err := parseBest(e.Value()); err == nil {
					select {
					case out <- b:
					case <-ctx.Done():
						return
					}
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(bestPoll):
			}
		}
	}()
	return out, nil
}

// PublishShard sends a shard file's bytes on the worker's subject, with
// its name as the message id: a retried publish is stored once. The
// server answers "duplicate" also when another client sent that id
// first (any client may set any id); the shard then goes again under an
// id nobody can guess, and the trainer, which keeps a shard by the name
// in its verified header, takes a true repeat once.
func (h *Hub) PublishShard(ctx context.Context, name string, shard []byte) error {
	subject, id := shardSubject(h.run)+"."+h.from, h.run+"/"+h.from+"/"+name
	ack, err := h.js.Publish(ctx, subject, shard, jetstream.WithMsgID(id))
	if err == nil && ack.Duplicate {
		_, err = h.js.Publish(ctx, subject, shard, jetstream.WithMsgID(id+"/"+rand.Text()))
	}
	if err != nil {
		return fmt.Errorf("natsrun: publish shard %s: %w", name, err)
	}
	return nil
}

// Stored is a shard Ingest took in: where it was written, its header,
// the worker account it came from, the games it holds samples of, and
// the time Ingest spent on it (decode, check, write, acknowledgement).
type Stored struct {
	Path   string
	Header data.Header
	From   string
	Games  int
	Busy   time.Duration
}

// Admit judges the worker account a shard comes from ("any" from a
// worker without one) before anything of the shard is read: a refused or
// revoked account's shards are never decoded.
type Admit func(from string) error

// ShardCheck judges a checked shard's header (its game and encoder
// version) and the worker account it came from.
type ShardCheck func(from string, h data.Header) error

// Rejection is a shard that can never be taken in: it is terminated on
// the stream (never delivered again), and the account it came from is
// named so that the trainer can count it.
type Rejection struct {
	From  string // the worker account on the shard's subject
	Shard string // the shard's name by its header, if it has one
	Err   error
	// Term is the error of the stream's termination, if it failed (the
	// shard then comes again, and is rejected again).
	Term error
}

func (r *Rejection) Error() string {
	if r.Shard == "" {
		return fmt.Sprintf("natsrun: shard from %q rejected: %v", r.From, r.Err)
	}
	return fmt.Sprintf("natsrun: shard %s from %q rejected: %v", r.Shard, r.From, r.Err)
}

func (r *Rejection) Unwrap() error { return r.Err }

// Ingest takes shards from the stream into dir until ctx ends: the worker
// account on each shard's subject is judged by admit first, then the
// shard is checked whole without keeping its samples (data.Inspect: its
// CRC, every record, every limit), bound to that account (the worker name
// in its header must be the account, or start with it and '_'), held to
// the generations published (none from a later one), judged by check,
// written atomically under the name its header gives, and acknowledged
// only then. A shard already in dir is acknowledged without a write. A
// shard that fails any of this (or whose checking panicked) is reported
// to bad as a *Rejection and terminated on the stream, never delivered
// again; one that cannot be written (a full disk) or that comes before
// any network was published is reported and comes again later. got hears
// about every shard written. A stream or consumer that disappears (a
// server that lost its store) is made again, and said so.
func (h *Hub) Ingest(ctx context.Context, dir string, admit Admit, check ShardCheck, got func(Stored), bad func(error)) error {
	if h.stream == nil {
		return errors.New("natsrun: Ingest needs the trainer's side (Create)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("natsrun: %w", err)
	}
	var cons jetstream.Consumer
	failing := time.Time{} // since when fetches fail
	checked := time.Now()  // when the consumer was last seen
	for ctx.Err() == nil {
		if cons == nil {
			var err error
			if cons, err = h.consumer(ctx); err != nil {
				if ctx.Err() != nil {
					break
				}
				bad(err)
				sleep(ctx, 2*time.Second)
				continue
			}
		}
		batch, err := cons.Fetch(16, jetstream.FetchMaxWait(time.Second))
		if err == nil && time.Since(checked) > consumerCheck {
			// A pull from a consumer that is gone is answered by nothing
			// at all: look at it now and then.
			checked = time.Now()
			if _, err = h.js.Stream(ctx, streamName(h.run)); err == nil {
				_, err = cons.Info(ctx)
			}
		}
		if err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			if ctx.Err() != nil {
				break
			}
			if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) ||
				errors.Is(err, jetstream.ErrConsumerDeleted) {
				bad(fmt.Errorf("natsrun: the shard stream's consumer is gone (%w): making it again", err))
				cons = nil
			}
			// The server may be restarting: the client reconnects. Say so
			// when it lasts.
			if failing.IsZero() {
				failing = time.Now()
			} else if time.Since(failing) > 30*time.Second {
				bad(fmt.Errorf("natsrun: no shards taken in for %v: %w", time.Since(failing).Round(time.Second), err))
				failing = time.Now()
			}
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		failing = time.Time{}
		if batch == nil {
			continue
		}
		for msg := range batch.Messages() {
			t0 := time.Now()
			from, _ := shardFrom(h.run, msg.Subject())
			path, hd, games, err := store(dir, msg.Data(), from, int(h.published.Load()), admit, check)
			var rej *Rejection
			switch {
			case errors.As(err, &rej):
				rej.Term = msg.TermWithReason(termReason(rej))
				bad(rej)
				continue
			case err != nil:
				// Not the shard's fault (a full disk, no network published
				// yet): it comes again.
				bad(err)
				_ = msg.NakWithDelay(5 * time.Second)
				continue
			}
			if err := msg.DoubleAck(ctx); err != nil {
				// Not acknowledged: it comes again and is found on disk.
				continue
			}
			if path != "" {
				got(Stored{Path: path, Header: hd, From: from, Games: games, Busy: time.Since(t0)})
			}
		}
	}
	return nil
}

// termReason is a rejection's reason on the stream's advisory, bounded.
func termReason(r *Rejection) string {
	s := r.Err.Error()
	if len(s) > 200 {
		s = s[:200]
	}
	return "tabula: " + s
}

// ackWait is how long a shard delivered to the trainer waits for its
// acknowledgement before it comes again. A delivery the trainer never saw
// (it was killed holding a batch, or the server was, mid-send) arrives this
// late; storing a batch takes well under a second, so a long wait only
// delays those shards.
const ackWait = 15 * time.Second

// consumerCheck is how often Ingest makes sure its consumer exists.
const consumerCheck = 5 * time.Second

// consumer makes (or finds) the stream and the trainer's durable consumer.
func (h *Hub) consumer(ctx context.Context) (jetstream.Consumer, error) {
	if _, err := h.js.Stream(ctx, streamName(h.run)); errors.Is(err, jetstream.ErrStreamNotFound) {
		if h.stream, err = h.js.CreateOrUpdateStream(ctx, h.streamConfig()); err != nil {
			return nil, fmt.Errorf("natsrun: shard stream: %w", err)
		}
	}
	cons, err := h.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: "trainer", AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait,
	})
	if err != nil {
		return nil, fmt.Errorf("natsrun: shard consumer: %w", err)
	}
	return cons, nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// inspect checks a shard whole without keeping its samples; tests
// replace it.
var inspect = data.Inspect

// store checks a shard from the account from and writes it into dir;
// path is empty when it was there already; games counts the games it
// holds samples of. published is the highest generation published (-1:
// none yet). A bad shard is a *Rejection; so is one whose checking
// panicked, so that no shard can stop the trainer.
func store(dir string, shard []byte, from string, published int, admit Admit, check ShardCheck) (path string, hd data.Header, games int, err error) {
	reject := func(err error) error {
		r := &Rejection{From: from, Err: err}
		if data.CheckWorker(hd.Worker) == nil {
			r.Shard = hd.Name()
		}
		return r
	}
	if from == "" {
		return "", hd, 0, reject(errors.New("no worker account on its subject"))
	}
	if admit != nil {
		if err := admit(from); err != nil {
			return "", hd, 0, reject(err)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			path, games, err = "", 0, reject(fmt.Errorf("checking it panicked: %v", p))
		}
	}()
	hd, sum, err := inspect(shard)
	if err != nil {
		return "", hd, 0, reject(err)
	}
	if err := data.CheckWorker(hd.Worker); err != nil {
		return "", hd, 0, reject(err)
	}
	// Under another worker's name a shard could take the place of that
	// worker's own (the trainer keeps one shard of a name).
	if from != anyWorker && hd.Worker != from && !strings.HasPrefix(hd.Worker, from+"_") {
		return "", hd, 0, reject(fmt.Errorf("worker account %q may send only shards of worker %q or %q_*", from, from, from))
	}
	if published < 0 {
		return "", hd, 0, fmt.Errorf("natsrun: shard %s waits: no network published yet", hd.Name())
	}
	if hd.Generation > published {
		return "", hd, 0, reject(fmt.Errorf("generation %d, but the trainer published none after %d", hd.Generation, published))
	}
	if check != nil {
		if err := check(from, hd); err != nil {
			return "", hd, 0, reject(err)
		}
	}
	path = filepath.Join(dir, hd.Name())
	if _, err := os.Stat(path); err == nil {
		return "", hd, sum.Games, nil
	}
	if err := atomicfile.WriteBytes(path, shard, 0o644); err != nil {
		return "", hd, 0, fmt.Errorf("natsrun: write shard: %w", err)
	}
	return path, hd, sum.Games, nil
}

// RemoveStrayConsumers deletes every consumer on the run's streams but
// the trainer's own ("trainer" on the shard stream) and returns their
// names by stream. No worker account may make one (WorkerPermissions),
// so whatever is there was made under older rights, by hand, or by an
// account since revoked; an extra consumer on the work-queue shard stream
// would take shards from the trainer. The trainer calls it when it starts
// and whenever its worker accounts change.
func (h *Hub) RemoveStrayConsumers(ctx context.Context) (map[string][]string, error) {
	removed := map[string][]string{}
	var errs []error
	for _, stream := range []string{streamName(h.run), kvStream(h.run), objStream(h.run)} {
		st, err := h.js.Stream(ctx, stream)
		if err != nil {
			if !errors.Is(err, jetstream.ErrStreamNotFound) {
				errs = append(errs, fmt.Errorf("stream %s: %w", stream, err))
			}
			continue
		}
		var stray []string
		names := st.ConsumerNames(ctx)
		for name := range names.Name() {
			if stream != streamName(h.run) || name != "trainer" {
				stray = append(stray, name)
			}
		}
		if err := names.Err(); err != nil {
			errs = append(errs, fmt.Errorf("consumers of %s: %w", stream, err))
		}
		for _, name := range stray {
			if err := st.DeleteConsumer(ctx, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
				errs = append(errs, fmt.Errorf("consumer %s of %s: %w", name, stream, err))
				continue
			}
			removed[stream] = append(removed[stream], name)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("natsrun: removing stray consumers: %w", err)
	}
	return removed, nil
}
