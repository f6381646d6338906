package natsrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/internal/atomicfile"
)

// Hub is one run's streams and buckets on a NATS server, from the
// trainer's side (Create) or a worker's (Attach).
type Hub struct {
	run    string
	js     jetstream.JetStream
	kv     jetstream.KeyValue
	nets   jetstream.ObjectStore
	stream jetstream.Stream
	// fetchBase is a network read's bound before its size is added
	// (fetchRate); tests shorten it.
	fetchBase time.Duration
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

func streamName(run string) string   { return "TABULA_" + run + "_SHARDS" }
func bucketName(run string) string   { return "tabula_" + run }
func netsName(run string) string     { return "tabula_" + run + "_nets" }
func shardSubject(run string) string { return "tabula." + run + ".shards" }

// newHub checks the run's name and opens JetStream on nc.
func newHub(nc *nats.Conn, run string) (*Hub, error) {
	if err := CheckRun(run); err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("natsrun: %w", err)
	}
	return &Hub{run: run, js: js, fetchBase: fetchBase}, nil
}

// Create makes (or opens) the run's stream and buckets: the trainer's side.
func Create(ctx context.Context, nc *nats.Conn, run string) (*Hub, error) {
	h, err := newHub(nc, run)
	if err != nil {
		return nil, err
	}
	js := h.js
	if h.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: streamName(run), Subjects: []string{shardSubject(run)}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: dedupWindow,
	}); err != nil {
		return nil, fmt.Errorf("natsrun: shard stream: %w", err)
	}
	if h.kv, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: bucketName(run), Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("natsrun: key-value bucket: %w", err)
	}
	if h.nets, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: netsName(run), Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("natsrun: network store: %w", err)
	}
	return h, nil
}

// Attach opens a run the trainer created: a worker's side.
func Attach(ctx context.Context, nc *nats.Conn, run string) (*Hub, error) {
	h, err := newHub(nc, run)
	if err != nil {
		return nil, err
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
	return nil
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

// A network read that stalls (an object-store read whose ordered consumer
// stops, as nats.js#430 describes) is abandoned after fetchBase plus the
// checkpoint's size at fetchRate and tried again, fetchAttempts times in
// all. Without a bound of its own jetstream gives a whole read its 5 s
// API timeout: too short for a large network on a slow link, and a worker
// whose read hangs would wait for nothing.
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

// fetchNetwork is one bounded read of a network.
func (h *Hub) fetchNetwork(ctx context.Context, b Best) ([]byte, error) {
	info, err := h.nets.GetInfo(ctx, b.Name)
	if err != nil {
		return nil, err
	}
	bound := h.fetchBase + time.Duration(info.Size)*time.Second/fetchRate
	rctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	ckpt, err := h.nets.GetBytes(rctx, b.Name)
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

// WatchBest sends every new best entry (the current one first) until ctx
// ends. Malformed entries are skipped.
func (h *Hub) WatchBest(ctx context.Context) (<-chan Best, error) {
	w, err := h.kv.Watch(ctx, keyBest)
	if err != nil {
		return nil, fmt.Errorf("natsrun: watch best: %w", err)
	}
	out := make(chan Best, 1)
	go func() {
		defer close(out)
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e, ok := <-w.Updates():
				if !ok {
					return
				}
				if e == nil || e.Operation() != jetstream.KeyValuePut {
					continue // the end of the initial values, or a delete
				}
				b, err := parseBest(e.Value())
				if err != nil {
					continue
				}
				select {
				case out <- b:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// PublishShard sends a shard file's bytes, with its name as the message
// id: a retried publish is stored once.
func (h *Hub) PublishShard(ctx context.Context, name string, shard []byte) error {
	if _, err := h.js.Publish(ctx, shardSubject(h.run), shard, jetstream.WithMsgID(h.run+"/"+name)); err != nil {
		return fmt.Errorf("natsrun: publish shard %s: %w", name, err)
	}
	return nil
}

// Stored is a shard Ingest took in: where it was written, its header,
// the games it holds samples of, and the time Ingest spent on it (decode,
// check, write, acknowledgement).
type Stored struct {
	Path   string
	Header data.Header
	Games  int
	Busy   time.Duration
}

// ShardCheck judges a decoded shard (its game and encoder version).
type ShardCheck func(data.Header) error

// Ingest takes shards from the stream into dir until ctx ends: each one is
// decoded (its CRC checked), judged by check, written atomically under the
// name its header gives, and acknowledged only then. A shard already in
// dir is acknowledged without a write. A bad shard is reported to bad
// and dropped from the stream; one that cannot be written (a full disk)
// is reported and comes again later. got hears about every shard written.
func (h *Hub) Ingest(ctx context.Context, dir string, check ShardCheck, got func(Stored), bad func(error)) error {
	if h.stream == nil {
		return errors.New("natsrun: Ingest needs the trainer's side (Create)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("natsrun: %w", err)
	}
	cons, err := h.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable: "trainer", AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute,
	})
	if err != nil {
		return fmt.Errorf("natsrun: shard consumer: %w", err)
	}
	for ctx.Err() == nil {
		batch, err := cons.Fetch(16, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			// The server may be restarting: the client reconnects.
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for msg := range batch.Messages() {
			t0 := time.Now()
			path, hd, games, err := store(dir, msg.Data(), check)
			var rej *rejection
			switch {
			case errors.As(err, &rej):
				bad(err)
				_ = msg.TermWithReason(err.Error())
				continue
			case err != nil:
				// Not the shard's fault (a full disk): it comes again.
				bad(err)
				_ = msg.NakWithDelay(5 * time.Second)
				continue
			}
			if err := msg.DoubleAck(ctx); err != nil {
				// Not acknowledged: it comes again and is found on disk.
				continue
			}
			if path != "" {
				got(Stored{Path: path, Header: hd, Games: games, Busy: time.Since(t0)})
			}
		}
	}
	return nil
}

// rejection is a shard that can never be taken in.
type rejection struct{ err error }

func (r *rejection) Error() string { return r.err.Error() }
func (r *rejection) Unwrap() error { return r.err }

// store decodes and checks a shard and writes it into dir; path is empty
// when it was there already; games counts the games it holds samples
// of. A bad shard is a *rejection.
func store(dir string, shard []byte, check ShardCheck) (path string, hd data.Header, games int, err error) {
	hd, samples, err := data.Decode(shard)
	if err != nil {
		return "", hd, 0, &rejection{fmt.Errorf("natsrun: shard rejected: %w", err)}
	}
	if err := data.CheckWorker(hd.Worker); err != nil {
		return "", hd, 0, &rejection{fmt.Errorf("natsrun: shard rejected: %w", err)}
	}
	if err := check(hd); err != nil {
		return "", hd, 0, &rejection{fmt.Errorf("natsrun: shard %s rejected: %w", hd.Name(), err)}
	}
	ids := map[uint64]bool{}
	for _, s := range samples {
		ids[s.GameID] = true
	}
	path = filepath.Join(dir, hd.Name())
	if _, err := os.Stat(path); err == nil {
		return "", hd, len(ids), nil
	}
	if err := atomicfile.WriteBytes(path, shard, 0o644); err != nil {
		return "", hd, 0, fmt.Errorf("natsrun: write shard: %w", err)
	}
	return path, hd, len(ids), nil
}
