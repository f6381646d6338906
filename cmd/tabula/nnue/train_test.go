package nnue

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/nnue/nnuedata"
	"github.com/tabula-zero/tabula/nnue/nnuetrain"
)

// trainData writes shards of random games' positions, labelled by the
// number of pieces each side has, into a new directory.
func trainData(t *testing.T, games int) string {
	t.Helper()
	dir := t.TempDir()
	h := nnuedata.Header{Game: "xiangqi", Seed: 1, Budget: nnuedata.Budget{Depth: 1}, Eval: "classical"}
	var recs []nnuedata.Record
	for g := range games {
		n := 0
		for _, gp := range gametest.RandomPositions(xiangqi.New(xiangqi.DefaultRules), 1, 60, uint64(g)) {
			p := gp.(*xiangqi.Position)
			if p.Status().Over() {
				continue
			}
			r, err := nnuedata.FromPosition(p)
			if err != nil {
				t.Fatal(err)
			}
			balance := 0
			for i, sq := range r.Squares {
				if sq != nnuedata.NoSquare {
					if i/16 == int(r.Side) {
						balance += 100
					} else {
						balance -= 100
					}
				}
			}
			r.SetScore(balance)
			r.Result = int8(max(min(balance, 1), -1))
			r.Move = uint16(p.GenerateMoves(nil)[0])
			recs = append(recs, r)
			n++
		}
		h.Games++
		h.GameRecords = append(h.GameRecords, n)
	}
	if _, err := nnuedata.Write(dir, h, recs); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tabula nnue train end to end: the network, its notes, the metrics and
// the state after each epoch; run again with more epochs it resumes; at
// its epochs it has nothing to do; with another configuration it refuses
// the state; stopped, it saves and says how to go on.
func TestTrain(t *testing.T) {
	data := trainData(t, 40)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.nnue")
	args := []string{"train", "-data", data, "-out", out, "-sizes", "64,8,8", "-batch", "128", "-threads", "2", "-valid", "0.2"}
	stdout, log, err := runCmd(t.Context(), append(args, "-epochs", "2")...)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, log, stdout)
	}
	for _, want := range []string{"training positions", "held out", "64x2-8-8-1, batch 128", "epoch 1/2: train loss", "epoch 2/2: train loss", "validation", "quantised", "positions/s"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
	if !strings.Contains(stdout, out+": epoch 2 of 2") || !strings.Contains(stdout, filepath.Join(dir, "x.best.nnue")+": epoch ") {
		t.Errorf("stdout: %s", stdout)
	}
	if _, err := nnue.Load(filepath.Join(dir, "x.best.nnue")); err != nil {
		t.Error(err)
	}
	n, err := nnue.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"tabula nnue train: data " + data, "epoch 2 of 2", "batch 128", "validation loss", "CPU time"} {
		if !strings.Contains(n.Notes(), want) {
			t.Errorf("the network's notes lack %q: %s", want, n.Notes())
		}
	}
	if n.Sizes() != (nnue.Sizes{L1: 64, L2: 8, L3: 8}) {
		t.Errorf("sizes %s", n.Sizes())
	}
	ms := readMetrics(t, filepath.Join(dir, "x.jsonl"))
	if len(ms) != 2 || ms[1].Epoch != 2 || ms[1].ValidLoss == nil || ms[1].ValidLossQuant == nil || ms[1].CPUSeconds <= 0 || ms[1].PositionsPerSec <= 0 {
		t.Fatalf("metrics %+v", ms)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.state")); err != nil {
		t.Fatal(err)
	}

	stdout, log, err = runCmd(t.Context(), append(args, "-epochs", "3", "-threads", "1")...)
	if err != nil || !strings.Contains(log, "resuming") || !strings.Contains(log, "epoch 3/3") || strings.Contains(log, "epoch 2/3") {
		t.Fatalf("resumed: %v\n%s%s", err, log, stdout)
	}
	if ms := readMetrics(t, filepath.Join(dir, "x.jsonl")); len(ms) != 3 || ms[2].CPUSeconds < ms[1].CPUSeconds {
		t.Fatalf("metrics after resuming: %+v", ms)
	}
	stdout, _, err = runCmd(t.Context(), append(args, "-epochs", "3")...)
	if err != nil || !strings.Contains(stdout, "nothing to do") {
		t.Fatalf("at its epochs: %v\n%s", err, stdout)
	}
	_, _, err = runCmd(t.Context(), append(args, "-epochs", "4", "-lr", "0.002")...)
	if err == nil || !strings.Contains(err.Error(), "lr 0.001 (asked: 0.002)") || !strings.Contains(err.Error(), "remove it to start anew") {
		t.Fatalf("another lr: %v", err)
	}
	_, _, err = runCmd(t.Context(), append(args, "-epochs", "4", "-init", out)...)
	if err == nil || !strings.Contains(err.Error(), "initial network") {
		t.Fatalf("another start: %v", err)
	}

	// Stopped: the state saved, a line saying how to go on.
	out2 := filepath.Join(dir, "y.nnue")
	stdout, log, err = runCmd(t.Context(), "train", "-data", data, "-out", out2, "-init", out, "-max-time", "1ns")
	if err != nil || !strings.Contains(stdout, "the same command resumes") {
		t.Fatalf("stopped: %v\n%s%s", err, log, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "y.state")); err != nil {
		t.Fatal(err)
	}
	// Interrupted while loading: an error, nothing written.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	out3 := filepath.Join(dir, "z.nnue")
	if _, _, err = runCmd(ctx, "train", "-data", data, "-out", out3); err == nil {
		t.Fatal("interrupted while loading: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "z.state")); err == nil {
		t.Fatal("interrupted while loading: a state written")
	}
}

func readMetrics(t *testing.T, path string) []nnuetrain.Metric {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ms []nnuetrain.Metric
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m nnuetrain.Metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		ms = append(ms, m)
	}
	return ms
}

func TestTrainFlagErrors(t *testing.T) {
	data := trainData(t, 2)
	dir := t.TempDir()
	out := filepath.Join(dir, "x.nnue")
	os.WriteFile(filepath.Join(dir, "bad.nnue"), []byte("not a network"), 0o644)
	base := []string{"train", "-data", data, "-out", out}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train"}, "usage: tabula nnue train"},
		{[]string{"train", "-data", data}, "usage"},
		{[]string{"train", "-out", out}, "usage"},
		{append(base, "extra"), "usage"},
		{append(base, "-epochs", "0"), "-epochs 0"},
		{append(base, "-batch", "0"), "-batch 0"},
		{append(base, "-threads", "0"), "-threads 0"},
		{append(base, "-lr", "0"), "-lr 0"},
		{append(base, "-lr", "NaN"), "-lr NaN"},
		{append(base, "-lr-decay", "1.5"), "-lr-decay 1.5"},
		{append(base, "-lambda", "-0.1"), "-lambda -0.1"},
		{append(base, "-k", "0"), "-k 0"},
		{append(base, "-sizes", "100,16,32"), "-sizes"},
		{append(base, "-sizes", "256,16"), "three widths"},
		{append(base, "-valid", "1"), "-valid 1"},
		{append(base, "-max-score", "-1"), "-max-score -1"},
		{append(base, "-save-every", "-1s"), "-save-every -1s"},
		{append(base, "-state", out), "different files"},
		{append(base, "-best", out), "different files"},
		{[]string{"train", "-data", ",", "-out", out}, "names no directory"},
		{[]string{"train", "-data", filepath.Join(dir, "none"), "-out", out}, "no such file"},
		{append(base, "-init", filepath.Join(dir, "bad.nnue")), "-init"},
		{append(base, "-init", filepath.Join(dir, "none.nnue")), "-init"},
		{append(base, "-epochs", "x"), "invalid value"},
	} {
		if _, log, err := runCmd(t.Context(), c.args...); err == nil || !strings.Contains(err.Error()+log, c.want) {
			t.Errorf("%q: %v, want an error naming %q\n%s", c.args, err, c.want, log)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused command wrote %s", out)
	}
}
