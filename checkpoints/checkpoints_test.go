package checkpoints

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/net"
)

func sample(t *testing.T) *Checkpoint {
	t.Helper()
	spec := net.Spec{Game: "connect4", EncoderVersion: 1, Channels: 2, Height: 6, Width: 7, Actions: 7,
		Blocks: 1, Filters: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 8}
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
	c := sample(t)
	path := filepath.Join(t.TempDir(), "x.ckpt")
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip differs:\n got %+v\nwant %+v", got, c)
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
	binary.LittleEndian.PutUint32(v2[8:], FormatVersion+1)
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

func TestRunDirectory(t *testing.T) {
	run := t.TempDir()
	if _, err := Pointer(run, LatestFile); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("new run: %v", err)
	}
	c := sample(t)
	var names []string
	for g := 3; g >= 1; g-- {
		c.Generation, c.Step = g, int64(g*100)
		name, err := SaveRun(run, c)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	list, err := List(run)
	if err != nil || len(list) != 3 || list[0] != names[2] || list[2] != names[0] {
		t.Fatalf("List = %v, %v", list, err)
	}
	latest, err := Pointer(run, LatestFile)
	if err != nil || filepath.Base(latest) != names[2] {
		t.Fatalf("latest = %s, %v (want the last saved)", latest, err)
	}
	if err := SetPointer(run, BestFile, names[0]); err != nil {
		t.Fatal(err)
	}
	if best, err := Pointer(run, BestFile); err != nil || filepath.Base(best) != names[0] {
		t.Fatalf("best = %s, %v", best, err)
	}
	if err := SetPointer(run, BestFile, "nope.ckpt"); err == nil {
		t.Fatal("pointer to a missing checkpoint accepted")
	}
	if err := SetPointer(run, BestFile, "../x.ckpt"); err == nil {
		t.Fatal("path in a pointer accepted")
	}
	os.Remove(filepath.Join(run, Subdir, names[0]))
	if _, err := Pointer(run, BestFile); err == nil || !strings.Contains(err.Error(), "missing checkpoint") {
		t.Fatalf("dangling pointer: %v", err)
	}
}

// A pointer records its checkpoint's generation and checksum: a damaged
// byte that makes it name another existing checkpoint is detected, and
// RepairPointer finds the checkpoint it recorded. Damage elsewhere, a
// pointer written by hand with a name alone, and control bytes are handled
// with errors that quote the text.
func TestPointerIntegrity(t *testing.T) {
	run := t.TempDir()
	c := sample(t)
	var names []string
	for g := 1; g <= 3; g++ {
		c.Generation, c.Step = g, int64(g*100)
		name, err := SaveRun(run, c)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	latest := filepath.Join(run, LatestFile)
	good, _ := os.ReadFile(latest)
	// Damage that names an older, existing checkpoint.
	flipped := bytes.Replace(good, []byte(names[2]), []byte(names[0]), 1)
	os.WriteFile(latest, flipped, 0o644)
	if _, err := Pointer(run, LatestFile); !errors.Is(err, ErrDamagedPointer) {
		t.Fatalf("flipped name followed: %v", err)
	}
	name, err := RepairPointer(run, LatestFile)
	if err != nil || name != names[2] {
		t.Fatalf("RepairPointer = %s, %v; want %s", name, err, names[2])
	}
	if p, err := Pointer(run, LatestFile); err != nil || filepath.Base(p) != names[2] {
		t.Fatalf("after repair: %s, %v", p, err)
	}
	for _, damaged := range [][]byte{
		bytes.Replace(good, []byte("generation 3"), []byte("generation 7"), 1),
		bytes.Replace(good, []byte("sha256 "), []byte("sha256 00"), 1),
		good[:len(good)-20],
		[]byte("g000003\x00\x00.ckpt\n"),
	} {
		os.WriteFile(latest, damaged, 0o644)
		_, err := Pointer(run, LatestFile)
		if !errors.Is(err, ErrDamagedPointer) {
			t.Errorf("%q: %v", damaged, err)
		} else if strings.ContainsRune(err.Error(), 0) {
			t.Errorf("error prints raw NUL bytes: %q", err.Error())
		}
	}
	// A checkpoint replaced under its name (same generation, new contents).
	os.WriteFile(latest, good, 0o644)
	c.Generation, c.Step, c.Meta = 3, 300, map[string]string{"replaced": "yes"}
	if _, err := SaveRun(run, c); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(latest, good, 0o644)
	if _, err := Pointer(run, LatestFile); !errors.Is(err, ErrDamagedPointer) {
		t.Errorf("replaced checkpoint accepted: %v", err)
	}
	if _, err := RepairPointer(run, LatestFile); err == nil {
		t.Error("repaired to a checkpoint with another checksum")
	}
	// A name alone, as a user writes it to choose a checkpoint.
	os.WriteFile(latest, []byte(names[1]+"\n"), 0o644)
	if p, err := Pointer(run, LatestFile); err != nil || filepath.Base(p) != names[1] {
		t.Fatalf("name-only pointer: %s, %v", p, err)
	}
}
