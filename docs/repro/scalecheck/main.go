// Command scalecheck reads a run that remote workers fed (docs/repro/scale.sh)
// and the workers' metrics files, and prints issue 19's figures: what
// each worker finished against what the trainer took in (nothing lost),
// (worker, game) pairs found in more than one shard (nothing twice),
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
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/rundir"
	"github.com/tabula-zero/tabula/trainer"
)

func main() {
	run := flag.String("run", "", "the trainer's run directory")
	flag.Parse()
	if *run == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: scalecheck -run RUN WORKER_METRICS.jsonl...")
		os.Exit(2)
	}
	if err := check(*run, flag.Args()); err != nil {
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

func check(run string, workerFiles []string) error {
	dir := rundir.Dir(run)
	shards, err := filepath.Glob(filepath.Join(dir.Replay(), "*"+data.Ext))
	if err != nil {
		return err
	}
	type key struct {
		worker string
		game   uint64
	}
	inShards := map[key]map[string]bool{}
	samples := map[string]int64{}
	for _, s := range shards {
		h, smp, err := data.Read(s)
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		samples[h.Worker] += int64(len(smp))
		for _, x := range smp {
			k := key{h.Worker, x.GameID}
			if inShards[k] == nil {
				inShards[k] = map[string]bool{}
			}
			inShards[k][filepath.Base(s)] = true
		}
	}
	twice := 0
	for _, files := range inShards {
		if len(files) > 1 {
			twice++
		}
	}
	var publish, age []float64
	lost, span := 0, 0.0
	fmt.Printf("| worker | games finished | samples finished | samples taken in |\n|---|---|---|---|\n")
	for _, f := range workerFiles {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		var final workerLine
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var l workerLine
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			if l.Kind == "publish" {
				publish, age = append(publish, l.PublishMillis), append(age, l.AgeMillis)
			} else if l.Samples > 0 {
				final = l
			}
		}
		fh.Close()
		span = max(span, final.Elapsed)
		name := workerName(f)
		fmt.Printf("| %s | %d | %d | %d |\n", name, final.Games, final.Samples, samples[name])
		if final.Samples != samples[name] {
			lost++
		}
	}
	// The rates are over the workers' playing time.
	fmt.Printf("\nshards %d, samples %d over %.0f s: %.2f shards/s, %.0f samples/s absorbed\n",
		len(shards), sum(samples), span, float64(len(shards))/span, float64(sum(samples))/span)
	fmt.Printf("(worker, game) pairs in more than one shard: %d of %d; workers whose finished samples differ from those taken in: %d\n",
		twice, len(inShards), lost)
	fmt.Printf("publish round trip: median %.1f ms, p95 %.1f ms, max %.1f ms; shard age at the acknowledgement: median %.0f ms, p95 %.0f ms\n",
		percentile(publish, 0.5), percentile(publish, 0.95), percentile(publish, 1), percentile(age, 0.5), percentile(age, 0.95))
	// The trainer's time spent taking shards in, from its last metrics line
	// with workers.
	mf, err := os.Open(dir.Metrics())
	if err != nil {
		return err
	}
	defer mf.Close()
	var t0, t1 time.Time
	var ws []trainer.WorkerStat
	sc := bufio.NewScanner(mf)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m trainer.Metric
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
	busy := 0.0
	for _, w := range ws {
		busy += w.IngestSeconds
	}
	if d := t1.Sub(t0).Seconds(); d > 0 {
		fmt.Printf("trainer: %.1f s taking shards in over %.0f s of its run (to its last generation): %.2f%%\n", busy, d, 100*busy/d)
	}
	return nil
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
