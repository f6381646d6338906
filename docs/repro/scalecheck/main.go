// Command scalecheck reads a run that remote workers fed (docs/repro/scale.sh)
// and the workers' metrics files, and prints issue 19's figures: what
// each worker finished against what the trainer took in (nothing lost;
// a restarted worker's processes summed), games found in more than one
// shard (nothing twice; a game is its worker, its process's game seed
// and its id, since ids start again in each process),
// shards and samples per second absorbed, the publish latency, and the
// trainer's time spent taking shards in.
//
//	go run ./docs/repro/scalecheck -run RUN WORKER_METRICS.jsonl...
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/metrics"
	"github.com/tabula-zero/tabula/rundir"
)

func main() {
	run := flag.String("run", "", "the trainer's run directory")
	flag.Parse()
	if *run == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: scalecheck -run RUN WORKER_METRICS.jsonl...")
		os.Exit(2)
	}
	if _, err := check(os.Stdout, *run, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "scalecheck:", err)
		os.Exit(1)
	}
}

type workerLine struct {
	Kind          string    `json:"kind"`
	Time          time.Time `json:"time"`
	Games         int64     `json:"games"`
	Samples       int64     `json:"samples"`
	Elapsed       float64   `json:"elapsed_s"`
	PublishMillis float64   `json:"publish_ms"`
	AgeMillis     float64   `json:"age_ms"`
}

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[min(len(xs)-1, int(p*float64(len(xs))))]
}

// findings are the checks' counts: games found in more than one shard
// (of all games) and workers whose finished samples differ from those
// taken in.
type findings struct {
	twice, games, lost int
}

// gameKey names a game across worker restarts: a worker's game ids start
// again in each process, whose games have their own seed (the shard
// header's game_seed, selfplay.GameSeed).
type gameKey struct {
	worker string
	seed   uint64
	game   uint64
}

// shardGames reads the run's shards: the shards each game has samples
// in, and the samples per worker.
func shardGames(shards []string) (map[gameKey]map[string]bool, map[string]int64, error) {
	inShards := map[gameKey]map[string]bool{}
	samples := map[string]int64{}
	for _, s := range shards {
		h, smp, err := data.Read(s)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s, err)
		}
		samples[h.Worker] += int64(len(smp))
		for _, x := range smp {
			k := gameKey{h.Worker, h.GameSeed, x.GameID}
			if inShards[k] == nil {
				inShards[k] = map[string]bool{}
			}
			inShards[k][filepath.Base(s)] = true
		}
	}
	return inShards, samples, nil
}

// workerTotals reads a worker's metrics file: the games and samples it
// finished, summed over its processes (each counts from zero: the last
// line of each is its total), its longest process's playing time, and the
// publish lines' figures.
func workerTotals(path string) (games, samples int64, span float64, publish, age []float64, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, 0, 0, nil, nil, err
	}
	defer fh.Close()
	var final workerLine
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var l workerLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		// A process began at Time - Elapsed: one that began after the
		// previous line was written is a restart, whose counts start again.
		began := l.Time.Add(-time.Duration(l.Elapsed * float64(time.Second)))
		switch {
		case l.Kind == "publish":
			publish, age = append(publish, l.PublishMillis), append(age, l.AgeMillis)
		case l.Kind != "":
		case !final.Time.IsZero() && (l.Elapsed < final.Elapsed || began.After(final.Time)):
			games, samples = games+final.Games, samples+final.Samples
			span = max(span, final.Elapsed)
			final = l
		default:
			final = l
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, 0, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return games + final.Games, samples + final.Samples, max(span, final.Elapsed), publish, age, nil
}

func check(out io.Writer, run string, workerFiles []string) (findings, error) {
	var f findings
	dir := rundir.Dir(run)
	shards, err := filepath.Glob(filepath.Join(dir.Replay(), "*"+data.Ext))
	if err != nil {
		return f, err
	}
	inShards, samples, err := shardGames(shards)
	if err != nil {
		return f, err
	}
	f.games = len(inShards)
	for _, files := range inShards {
		if len(files) > 1 {
			f.twice++
		}
	}
	var publish, age []float64
	span := 0.0
	fmt.Fprintf(out, "| worker | games finished | samples finished | samples taken in |\n|---|---|---|---|\n")
	for _, path := range workerFiles {
		games, finished, s, p, a, err := workerTotals(path)
		if err != nil {
			return f, err
		}
		publish, age, span = append(publish, p...), append(age, a...), max(span, s)
		name := workerName(path)
		fmt.Fprintf(out, "| %s | %d | %d | %d |\n", name, games, finished, samples[name])
		if finished != samples[name] {
			f.lost++
		}
	}
	// The rates are over the workers' playing time.
	fmt.Fprintf(out, "\nshards %d, samples %d over %.0f s: %.2f shards/s, %.0f samples/s absorbed\n",
		len(shards), sum(samples), span, float64(len(shards))/span, float64(sum(samples))/span)
	fmt.Fprintf(out, "(worker, game seed, game) in more than one shard: %d of %d; workers whose finished samples differ from those taken in: %d\n",
		f.twice, f.games, f.lost)
	fmt.Fprintf(out, "publish round trip: median %.1f ms, p95 %.1f ms, max %.1f ms; shard age at the acknowledgement: median %.0f ms, p95 %.0f ms\n",
		percentile(publish, 0.5), percentile(publish, 0.95), percentile(publish, 1), percentile(age, 0.5), percentile(age, 0.95))
	// The trainer's time spent taking shards in, from its last metrics line
	// with workers.
	mf, err := os.Open(dir.Metrics())
	if err != nil {
		return f, err
	}
	defer mf.Close()
	var t0, t1 time.Time
	var ws []metrics.WorkerStat
	sc := bufio.NewScanner(mf)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m metrics.Metric
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if t0.IsZero() {
			t0 = m.Time
		}
		t1 = m.Time
		if len(m.Workers) > 0 {
			ws = m.Workers
		}
	}
	if err := sc.Err(); err != nil {
		return f, fmt.Errorf("%s: %w", dir.Metrics(), err)
	}
	busy := 0.0
	for _, w := range ws {
		busy += w.IngestSeconds
	}
	if d := t1.Sub(t0).Seconds(); d > 0 {
		fmt.Fprintf(out, "trainer: %.1f s taking shards in over %.0f s of its run (to its last generation): %.2f%%\n", busy, d, 100*busy/d)
	}
	return f, nil
}

func sum(m map[string]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}

// workerName is the worker of a metrics file RUN-WORKER.jsonl.
func workerName(path string) string {
	b := filepath.Base(path)
	b = b[:len(b)-len(filepath.Ext(b))]
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '-' {
			return b[i+1:]
		}
	}
	return b
}
