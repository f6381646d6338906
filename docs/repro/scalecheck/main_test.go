package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/data"
)

// writeShard writes a shard of worker w whose games have seed seed and
// the given ids, two samples each.
func writeShard(t *testing.T, dir, w string, seed uint64, seq int, ids ...uint64) int {
	t.Helper()
	var samples []data.Sample
	for _, id := range ids {
		for ply := range 2 {
			samples = append(samples, data.Sample{Position: strings.Repeat("4", ply), Ply: ply, GameID: id,
				Policy: []data.PolicyEntry{{Action: 3, Prob: 1}}})
		}
	}
	h := data.Header{Game: "connect4", EncoderVersion: 1, Worker: w, Seq: seq, GameSeed: seed, Created: time.Now().UTC()}
	if _, err := data.Write(dir, h, samples); err != nil {
		t.Fatal(err)
	}
	return len(samples)
}

func writeLines(t *testing.T, path string, lines ...any) {
	t.Helper()
	var b []byte
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, j...), '\n')
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A worker restarted numbers its games from 0 again with a new game
// seed: its games are not duplicates, and its processes' samples add up.
// A game in two shards of one process is a duplicate, and a worker's
// samples missing from the shards a loss.
func TestRestartedWorker(t *testing.T) {
	run := t.TempDir()
	replay := filepath.Join(run, "replay")
	os.MkdirAll(replay, 0o755)
	first := writeShard(t, replay, "w1", 11, 0, 0, 1)
	second := writeShard(t, replay, "w1", 22, 1, 0, 1) // the restart: ids 0 and 1 again
	dup := writeShard(t, replay, "w2", 33, 0, 5)
	dup += writeShard(t, replay, "w2", 33, 1, 5) // the same game twice
	writeLines(t, filepath.Join(run, "metrics.jsonl"), map[string]any{"kind": "generation", "time": time.Now().UTC()})

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	line := func(at, elapsed float64, samples int) workerLine {
		return workerLine{Time: t0.Add(time.Duration(at * float64(time.Second))), Elapsed: elapsed, Samples: int64(samples), Games: int64(samples / 2)}
	}
	w1 := filepath.Join(run, "run-w1.jsonl")
	// The second process's first line is at a longer elapsed time than
	// the first's last, but it began (60 - 25 s) after that line.
	writeLines(t, w1, line(10, 10, 2), line(20, 20, first), workerLine{Kind: "publish", Time: t0, PublishMillis: 2},
		line(60, 25, 2), line(65, 30, second))
	w2 := filepath.Join(run, "run-w2.jsonl")
	writeLines(t, w2, line(10, 10, dup))
	w3 := filepath.Join(run, "run-w3.jsonl") // finished samples the run never took in
	writeLines(t, w3, line(10, 10, 6))

	f, err := check(io.Discard, run, []string{w1, w2, w3})
	if err != nil {
		t.Fatal(err)
	}
	if f != (findings{twice: 1, games: 5, lost: 1}) {
		t.Fatalf("findings %+v, want w2's game twice of 5 games, w3's samples lost", f)
	}
	games, samples, span, publish, _, err := workerTotals(w1)
	if err != nil || games != int64(first+second)/2 || samples != int64(first+second) || span != 30 || len(publish) != 1 {
		t.Fatalf("w1's totals: %d games, %d samples, %v s, %v publish lines, %v", games, samples, span, len(publish), err)
	}
}
