package remote

import (
	"testing"
	"time"

	"github.com/tabula-zero/tabula/data"
)

// Shards a worker spooled while the trainer was away arrive together:
// its rate comes from when it wrote them (100 samples every 10 s here,
// 10 samples/s), and is not given while they span less than RateSpan.
func TestTallyRate(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	shard := func(i int) data.Header {
		return data.Header{Worker: "w", Seq: i, Samples: 100, Created: t0.Add(time.Duration(i) * 10 * time.Second)}
	}
	var tally Tally
	for _, i := range []int{2, 0, 1} { // 20 s of shards, out of order
		tally.Add(shard(i), 3, time.Millisecond)
	}
	ws := tally.Workers()
	if len(ws) != 1 || ws[0].Samples != 300 || ws[0].Shards != 3 || ws[0].Games != 9 || ws[0].SamplesPerSec != 0 {
		t.Fatalf("after 20 s of shards: %+v, want no rate yet", ws)
	}
	for _, i := range []int{9, 3, 8, 4, 7, 5, 6} {
		tally.Add(shard(i), 3, time.Millisecond)
	}
	// The first shard's samples were played before its time: 900 samples
	// over the 90 s from the first shard to the last.
	if w := tally.Workers()[0]; w.Samples != 1000 || w.SamplesPerSec != 10 {
		t.Fatalf("after 90 s of shards: %+v, want 10 samples/s", w)
	}
	// A shard whose header has no time counts at its arrival, which is
	// no stretch of the worker's own.
	var bare Tally
	for i := range 5 {
		bare.Add(data.Header{Worker: "old", Seq: i, Samples: 100}, 1, 0)
	}
	if w := bare.Workers()[0]; w.Samples != 500 || w.SamplesPerSec != 0 {
		t.Fatalf("shards without times, arriving together: %+v", w)
	}
}

// Refused shards are counted by account and reported with the workers,
// also for an account none of whose shards was taken in.
func TestTallyRejected(t *testing.T) {
	var tally Tally
	tally.Add(data.Header{Worker: "box1", Samples: 10}, 1, 0)
	tally.Reject("box1")
	for range 3 {
		tally.Reject("evil")
	}
	ws := tally.Workers()
	if len(ws) != 2 || ws[0].Name != "box1" || ws[0].Rejected != 1 || ws[0].Shards != 1 ||
		ws[1].Name != "evil" || ws[1].Rejected != 3 || ws[1].Shards != 0 {
		t.Fatalf("workers %+v", ws)
	}
}
