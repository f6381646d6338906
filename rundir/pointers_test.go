package rundir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/checkpoints"
)

// sample is a small checkpoint (its generation and step are set by the
// tests).
func sample(t *testing.T) *checkpoints.Checkpoint {
	t.Helper()
	p, err := FreshParams(tinyConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	return &checkpoints.Checkpoint{Params: p}
}

func TestRunDirectory(t *testing.T) {
	run := Dir(t.TempDir())
	if _, err := run.Pointer(Latest); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("new run: %v", err)
	}
	c := sample(t)
	var names []string
	for g := 3; g >= 1; g-- {
		c.Generation, c.Step = g, int64(g*100)
		name, err := run.Save(c)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	list, err := run.List()
	if err != nil || len(list) != 3 || list[0] != names[2] || list[2] != names[0] {
		t.Fatalf("List = %v, %v", list, err)
	}
	latest, err := run.Pointer(Latest)
	if err != nil || filepath.Base(latest) != names[2] {
		t.Fatalf("latest = %s, %v (want the last saved)", latest, err)
	}
	if err := run.SetPointer(Best, names[0]); err != nil {
		t.Fatal(err)
	}
	if best, err := run.Pointer(Best); err != nil || filepath.Base(best) != names[0] {
		t.Fatalf("best = %s, %v", best, err)
	}
	if err := run.SetPointer(Best, "nope.ckpt"); err == nil {
		t.Fatal("pointer to a missing checkpoint accepted")
	}
	if err := run.SetPointer(Best, "../x.ckpt"); err == nil {
		t.Fatal("path in a pointer accepted")
	}
	os.Remove(run.Checkpoint(names[0]))
	if _, err := run.Pointer(Best); err == nil || !strings.Contains(err.Error(), "missing checkpoint") {
		t.Fatalf("dangling pointer: %v", err)
	}
}

// A pointer records its checkpoint's generation and checksum: a damaged
// byte that makes it name another existing checkpoint is detected, and
// RepairPointer finds the checkpoint it recorded. Damage elsewhere, a
// pointer written by hand with a name alone, and control bytes are handled
// with errors that quote the text.
func TestPointerIntegrity(t *testing.T) {
	run := Dir(t.TempDir())
	c := sample(t)
	var names []string
	for g := 1; g <= 3; g++ {
		c.Generation, c.Step = g, int64(g*100)
		name, err := run.Save(c)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	latest := run.Path(Latest)
	good, _ := os.ReadFile(latest)
	// Damage that names an older, existing checkpoint.
	flipped := bytes.Replace(good, []byte(names[2]), []byte(names[0]), 1)
	os.WriteFile(latest, flipped, 0o644)
	if _, err := run.Pointer(Latest); !errors.Is(err, ErrDamagedPointer) {
		t.Fatalf("flipped name followed: %v", err)
	}
	name, err := run.RepairPointer(Latest)
	if err != nil || name != names[2] {
		t.Fatalf("RepairPointer = %s, %v; want %s", name, err, names[2])
	}
	if p, err := run.Pointer(Latest); err != nil || filepath.Base(p) != names[2] {
		t.Fatalf("after repair: %s, %v", p, err)
	}
	for _, damaged := range [][]byte{
		bytes.Replace(good, []byte("generation 3"), []byte("generation 7"), 1),
		bytes.Replace(good, []byte("sha256 "), []byte("sha256 00"), 1),
		good[:len(good)-20],
		[]byte("g000003\x00\x00.ckpt\n"),
	} {
		os.WriteFile(latest, damaged, 0o644)
		_, err := run.Pointer(Latest)
		if !errors.Is(err, ErrDamagedPointer) {
			t.Errorf("%q: %v", damaged, err)
		} else if strings.ContainsRune(err.Error(), 0) {
			t.Errorf("error prints raw NUL bytes: %q", err.Error())
		}
	}
	// A checkpoint replaced under its name (same generation, new contents).
	os.WriteFile(latest, good, 0o644)
	c.Generation, c.Step, c.Meta = 3, 300, map[string]string{"replaced": "yes"}
	if _, err := run.Save(c); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(latest, good, 0o644)
	if _, err := run.Pointer(Latest); !errors.Is(err, ErrDamagedPointer) {
		t.Errorf("replaced checkpoint accepted: %v", err)
	}
	if _, err := run.RepairPointer(Latest); err == nil {
		t.Error("repaired to a checkpoint with another checksum")
	}
	// A name alone, as a user writes it to choose a checkpoint.
	os.WriteFile(latest, []byte(names[1]+"\n"), 0o644)
	if p, err := run.Pointer(Latest); err != nil || filepath.Base(p) != names[1] {
		t.Fatalf("name-only pointer: %s, %v", p, err)
	}
}
