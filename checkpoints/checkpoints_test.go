package checkpoints

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/net"
)

func sample(t *testing.T) *Checkpoint { return sampleWith(t, "") }

// sampleWith is a checkpoint of a small network with the given heads:
// "" the plain network, "fromto" with the from-to policy head, "wdl"
// with the win/draw/loss value head.
func sampleWith(t *testing.T, heads string) *Checkpoint {
	t.Helper()
	spec := net.Spec{Game: "connect4", EncoderVersion: 1, Channels: 2, Height: 6, Width: 7, Actions: 7,
		Blocks: 1, Filters: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
	if heads == "fromto" {
		spec.Actions, spec.PolicyHead = 42*42, net.PolicyFromTo
	}
	if heads == "wdl" {
		spec.ValueHead = net.ValueWDL
	}
	p, err := net.NewParams(spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range p.Layers() {
		for i := range l.Mean {
			l.Mean[i] = rng.Float32()
			l.Var[i] = 0.5 + rng.Float32()
		}
	}
	return &Checkpoint{
		Step: 1234, Generation: 7, Params: p, OptimizerStep: 1234,
		Optimizer: [][]float32{{1, 2, 3}, {}, {-0.5}},
		RNG:       []byte{9, 8, 7, 6},
		Meta:      map[string]string{"config": "abc"},
		Created:   time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
	}
}

func TestRoundTrip(t *testing.T) {
	for _, heads := range []string{"", "fromto", "wdl"} {
		c := sampleWith(t, heads)
		if heads != "" {
			c.Params.Randomize(5)
		}
		path := filepath.Join(t.TempDir(), "x.ckpt")
		if err := Save(path, c); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("heads %q: round trip differs:\n got %+v\nwant %+v", heads, got, c)
		}
		if got.Params.Spec != c.Params.Spec || len(got.Params.FromTo.B) != len(c.Params.FromTo.B) {
			t.Fatalf("heads %q: loaded spec %+v", heads, got.Params.Spec)
		}
	}
}

// Checkpoints written by the build before the reply head was retired
// (testdata, the sample above) load as they were; one with the reply
// head is refused with the reason.
func TestBeforeReplyHeadRetired(t *testing.T) {
	got, err := Load("testdata/before-retirement.ckpt")
	if err != nil {
		t.Fatal(err)
	}
	if want := sample(t); !reflect.DeepEqual(got, want) {
		t.Fatalf("the checkpoint from before the retirement reads as\n%+v\nwant %+v", got, want)
	}
	_, err = Load("testdata/reply-head.ckpt")
	if err == nil || !strings.Contains(err.Error(), "reply-head.ckpt: the network has the opponent's-reply head, which was retired (docs/retired.md)") {
		t.Fatalf("a checkpoint with the reply head: %v", err)
	}
}

func TestCorruptionDetected(t *testing.T) {
	data, err := Encode(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	// Every truncation point and a flipped bit anywhere are rejected.
	for n := 0; n < len(data); n += 1 + n/50 {
		if _, err := Decode(data[:n]); err == nil {
			t.Fatalf("truncation to %d of %d bytes accepted", n, len(data))
		}
	}
	for i := 0; i < len(data); i += 1 + i/40 {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x10
		if _, err := Decode(bad); err == nil {
			t.Fatalf("flipped bit at byte %d accepted", i)
		}
	}
	if _, err := Decode([]byte("hello world, this is not a checkpoint at all......")); err == nil || !strings.Contains(err.Error(), "bad magic") {
		t.Fatalf("garbage: %v", err)
	}
}

func TestVersionAndGame(t *testing.T) {
	dir := t.TempDir()
	data, _ := Encode(sample(t))
	v2 := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(v2[8:], FormatVersionWDL+1)
	path := filepath.Join(dir, "v2.ckpt")
	os.WriteFile(path, v2, 0o644)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "format version") || !strings.Contains(err.Error(), "v2.ckpt") {
		t.Fatalf("future version: %v", err)
	}
	path = filepath.Join(dir, "c4.ckpt")
	Save(path, sample(t))
	if _, err := LoadFor(path, "xiangqi", 1); err == nil || !strings.Contains(err.Error(), "connect4 network") {
		t.Fatalf("wrong game: %v", err)
	}
	if _, err := LoadFor(path, "connect4", 2); err == nil || !strings.Contains(err.Error(), "encoder version") {
		t.Fatalf("wrong encoder: %v", err)
	}
	if _, err := LoadFor(path, "connect4", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(filepath.Join(dir, "missing.ckpt")); err == nil {
		t.Fatal("missing file accepted")
	}
}

// A WDL network is written as format version 2 and a scalar one still as
// version 1 (what older builds read); a file whose version and value
// head disagree is refused, even with a valid checksum.
func TestValueHeadVersion(t *testing.T) {
	for _, c := range []struct {
		heads string
		want  uint32
	}{{"", FormatVersion}, {"fromto", FormatVersion}, {"wdl", FormatVersionWDL}} {
		data, err := Encode(sampleWith(t, c.heads))
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint32(data[8:]); got != c.want {
			t.Errorf("heads %q: written as version %d, want %d", c.heads, got, c.want)
		}
		// The other version, checksummed again.
		other := FormatVersion + FormatVersionWDL - c.want
		bad := append([]byte(nil), data[:len(data)-sha256.Size]...)
		binary.LittleEndian.PutUint32(bad[8:], other)
		sum := sha256.Sum256(bad)
		if _, err := Decode(append(bad, sum[:]...)); err == nil || !strings.Contains(err.Error(), "value head") {
			t.Errorf("heads %q as version %d: %v", c.heads, other, err)
		}
	}
}

// The shipped networks (models/*.ckpt, scalar value heads written before
// the WDL head existed) decode and encode again to the same bytes: the
// format of a scalar-head network did not change.
func TestShippedModelsEncodeAsBefore(t *testing.T) {
	paths, err := filepath.Glob("../models/*.ckpt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no shipped models: %v", err)
	}
	for _, path := range append(paths, "testdata/before-retirement.ckpt") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if c.Params.Spec.WDLHead() {
			t.Errorf("%s has the WDL head", path)
		}
		again, err := Encode(c)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !bytes.Equal(again, data) {
			t.Errorf("%s encodes to other bytes (%d, was %d)", path, len(again), len(data))
		}
	}
}
