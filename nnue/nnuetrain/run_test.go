package nnuetrain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/nnue"
)

func runOptions(t *testing.T, dir string, data *Data, epochs int) RunOptions {
	return RunOptions{Config: smallConfig(2), Data: data, DataName: "test", Epochs: epochs,
		Out: filepath.Join(dir, "n.nnue"), Best: filepath.Join(dir, "best.nnue"), State: filepath.Join(dir, "n.state")}
}

// Run: a network and a state an epoch, resumed to more epochs, refused
// over other data; a damaged state is an error naming it, never a fresh
// start over it.
func TestRun(t *testing.T) {
	all := testSamples(t, 10, 5)
	data := &Data{Train: all[:len(all)*4/5], Valid: all[len(all)*4/5:]}
	data.Stats.Fingerprint = 42
	dir := t.TempDir()
	o := runOptions(t, dir, data, 1)
	var epochs []*Metric
	o.Epoch = func(m *Metric) { epochs = append(epochs, m) }
	sum, err := Run(t.Context(), o)
	if err != nil || sum.Resumed || sum.Epoch != 1 || len(epochs) != 1 || epochs[0].ValidLossQuant == nil {
		t.Fatalf("%+v, %v, %d epochs", sum, err, len(epochs))
	}
	m := epochs[0]
	if d := *m.ValidLossQuant - *m.ValidLoss; d > 0.01 || d < -0.01 {
		t.Errorf("quantised validation loss %v, float %v", *m.ValidLossQuant, *m.ValidLoss)
	}
	n, err := nnue.Load(o.Out)
	if err != nil || !strings.Contains(n.Notes(), "epoch 1 of 1") {
		t.Fatalf("%v: %q", err, n.Notes())
	}
	o.Epochs = 2
	resumed := false
	o.Resumed = func(epoch, step int) { resumed = epoch == 1 && step == 0 }
	if sum, err = Run(t.Context(), o); err != nil || !sum.Resumed || !resumed || sum.Epoch != 2 || sum.CPU <= 0 {
		t.Fatalf("resumed: %+v, %v", sum, err)
	}
	if sum, err = Run(t.Context(), o); err != nil || !sum.Completed || sum.Last == nil || sum.Last.Epoch != 2 {
		t.Fatalf("at its epochs: %+v, %v", sum, err)
	}
	// The best network is the epoch's of the lowest quantised loss.
	best := 1
	if *sum.Last.ValidLossQuant < *m.ValidLossQuant {
		best = 2
	}
	if sum.BestEpoch != best || !m.Best {
		t.Errorf("best epoch %d, want %d (losses %v, %v)", sum.BestEpoch, best, *m.ValidLossQuant, *sum.Last.ValidLossQuant)
	}
	if b, err := nnue.Load(o.Best); err != nil || !strings.Contains(b.Notes(), fmt.Sprintf("epoch %d of", best)) {
		t.Errorf("best network: %v, %q", err, b.Notes())
	}
	other := *data
	other.Stats.Fingerprint = 43
	o.Data = &other
	o.Epochs = 3
	if _, err = Run(t.Context(), o); err == nil || !strings.Contains(err.Error(), "fingerprint") {
		t.Fatalf("other data: %v", err)
	}
	o.Data = data
	b, _ := os.ReadFile(o.State)
	b[len(b)/2] ^= 1
	os.WriteFile(o.State, b, 0o644)
	if _, err = Run(t.Context(), o); err == nil || !strings.Contains(err.Error(), "checksum mismatch") || !strings.Contains(err.Error(), o.State) {
		t.Fatalf("damaged state: %v", err)
	}
	// Stopped before its first step: the state saved where it stands.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	o = runOptions(t, t.TempDir(), data, 1)
	if sum, err = Run(ctx, o); err != nil || !sum.Stopped || sum.Epoch != 0 || sum.Step != 0 {
		t.Fatalf("stopped: %+v, %v", sum, err)
	}
	if _, _, err := LoadState(o.State, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), RunOptions{Config: smallConfig(1), Data: &Data{}, Epochs: 1, Out: "x", State: "y"}); err == nil {
		t.Error("no training positions: no error")
	}
}

// A state file is checked whole before a trainer is made of it.
func TestStateErrors(t *testing.T) {
	tr, err := New(smallConfig(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	path := filepath.Join(t.TempDir(), "s")
	if err := tr.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"empty", func(b []byte) []byte { return nil }, "truncated"},
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }, "bad magic"},
		{"version", func(b []byte) []byte { b[8] = 9; return b }, "state version 9"},
		{"cut", func(b []byte) []byte { return b[:len(b)-100] }, "checksum"},
		{"flipped", func(b []byte) []byte { b[len(b)-40] ^= 4; return b }, "checksum"},
	} {
		b := c.edit(append([]byte(nil), good...))
		if _, _, err := decodeState(b, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := LoadState(filepath.Join(t.TempDir(), "none"), 1); err == nil {
		t.Error("no file: no error")
	}
	if _, _, err := LoadState(t.TempDir(), 1); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}
