package trainer

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/net"
)

func TestCosineShortfall(t *testing.T) {
	cos := net.Schedule{Kind: net.ScheduleCosine, LR: 0.1, Warmup: 500, Total: 60000, MinLR: 0.002}
	for _, tc := range []struct {
		name  string
		s     net.Schedule
		step  int64
		rate  float64
		left  time.Duration
		end   int64
		short bool
	}{
		// 8.9 steps/s for two hours reaches the floor; 5 does not.
		{"fast machine", cos, 0, 8.9, 2 * time.Hour, 64080, false},
		{"slow machine", cos, 0, 5, 2 * time.Hour, 36000, true},
		{"resumed, half way", cos, 30000, 5, time.Hour, 48000, true},
		{"resumed past the floor", cos, 61000, 5, time.Hour, 79000, false},
		{"piecewise has no end", net.Schedule{Kind: net.SchedulePiecewise, LR: 0.02}, 0, 1, time.Hour, 0, false},
		{"no rate yet", cos, 100, 0, time.Hour, 0, false},
		{"no time left", cos, 100, 5, 0, 0, false},
	} {
		end, lr, short := cosineShortfall(tc.s, tc.step, tc.rate, tc.left)
		if end != tc.end || short != tc.short {
			t.Errorf("%s: end %d short %v, want %d %v", tc.name, end, short, tc.end, tc.short)
		}
		if short {
			// The rate there is the cosine's own, above its floor.
			p := float64(tc.end-cos.Warmup) / float64(cos.Total-cos.Warmup)
			want := cos.MinLR + (cos.LR-cos.MinLR)*0.5*(1+math.Cos(math.Pi*p))
			if math.Abs(lr-want) > 1e-12 || lr <= cos.MinLR {
				t.Errorf("%s: learning rate %g, want %g", tc.name, lr, want)
			}
		}
	}
}

// TestScheduleWarning: a run whose time limit (or CPU-time limit) stops it
// long before its cosine's total_steps says so, naming the limit, with the
// steps to set; a piecewise schedule has no end to warn about.
func TestScheduleWarning(t *testing.T) {
	defer func(d time.Duration) { scheduleCheckAfter = d }(scheduleCheckAfter)
	scheduleCheckAfter = 0
	for _, c := range []struct{ kind, limit string }{{"cosine", "-max-time"}, {"cosine", "-max-train-time"}, {"cosine", "-max-cpu"}, {"cosine", "-until-cpu"}, {"piecewise", "-max-time"}} {
		kind := c.kind
		cfg := tinyConfig(t)
		cfg.Training.Schedule, cfg.Training.LearningRate = kind, 0.05
		if kind == "cosine" {
			cfg.Training.WarmupSteps, cfg.Training.TotalSteps, cfg.Training.MinLearningRate = 0, 1e9, 0.004
		}
		var out bytes.Buffer
		opts := Options{Run: t.TempDir(), Config: cfg, SelfPlay: true, MaxGenerations: 2, Out: &out, NewForwarder: newFwd}
		switch c.limit {
		case "-max-time":
			opts.MaxTime = time.Hour
		case "-max-train-time":
			opts.MaxTrainTime = time.Hour
		case "-max-cpu":
			opts.MaxCPU = time.Hour
		default:
			opts.UntilCPU = time.Hour
		}
		if err := Run(context.Background(), opts); err != nil {
			t.Fatalf("%s: %v\n%s", kind, err, out.String())
		}
		warned := strings.Count(out.String(), "before its learning-rate cosine reaches the floor")
		if want := map[string]int{"cosine": 1, "piecewise": 0}[kind]; warned != want ||
			(want == 1 && (!strings.Contains(out.String(), "-set training.total_steps=") || !strings.Contains(out.String(), "limit="+c.limit))) {
			t.Errorf("%s schedule under %s: %d warnings, want %d\n%s", kind, c.limit, warned, want, out.String())
		}
	}
}
