package trainer

import (
	"fmt"
	"time"

	"github.com/tabula-zero/tabula/net"
)

// scheduleCheckAfter is how much training time an invocation runs before
// its step rate is trusted to say where its time limit will stop it.
// (A variable for the loop's test.)
var scheduleCheckAfter = 5 * time.Minute

// cosineShortfall says where a run at rate steps a second, at step with
// left of its time limit to go, will stop, and the learning rate there,
// when that is before the cosine reaches its floor (short). A cosine's
// steps are sized for one machine's speed: on a slower one the limit
// stops the run with the rate still high, before the last of the
// imitation's gain, which comes as the rate anneals (docs/notebook/xiangqi.md,
// "The teacher for the whole two hours").
func cosineShortfall(s net.Schedule, step int64, rate float64, left time.Duration) (end int64, lr float64, short bool) {
	if s.Kind != net.ScheduleCosine || rate <= 0 || left <= 0 {
		return 0, 0, false
	}
	end = step + int64(rate*left.Seconds())
	if end >= s.Total {
		return end, s.MinLR, false
	}
	return end, s.At(end), true
}

// cpuFlag names the flag that set the CPU limit.
func (l *Loop) cpuFlag() string {
	if l.opts.UntilCPU > 0 && l.cpuLimit == l.opts.UntilCPU {
		return "-until-cpu"
	}
	return "-max-cpu"
}

// checkSchedule warns once per invocation, after scheduleCheckAfter of
// training, when a limit (-max-time at the rate by the wall clock so far,
// -max-train-time by the training clock, or -max-cpu or -until-cpu at the
// CPU rate) will stop the run before its cosine reaches the floor.
func (l *Loop) checkSchedule() {
	ran := l.clock.elapsed() - l.startClock
	if l.scheduleChecked || (l.opts.MaxTime <= 0 && l.opts.MaxTrainTime <= 0 && l.cpuLimit <= 0) || ran < scheduleCheckAfter {
		return
	}
	l.scheduleChecked = true
	step := l.trainer.State().Step
	steps := float64(step - l.startStep)
	s := trainConfig(l.cfg.Training).Schedule
	var (
		end      int64
		rate, lr float64
		short    bool
		flag     string
		rateKey  string
	)
	// Each limit's rate is steps per second of what it counts; the
	// earlier end is where the run stops.
	for _, lim := range []struct {
		name, rateKey string
		spent, budget time.Duration
	}{{"-max-time", "steps_per_s", time.Since(l.wallStart), l.opts.MaxTime}, {"-max-train-time", "steps_per_s", ran, l.opts.MaxTrainTime},
		{l.cpuFlag(), "steps_per_cpu_s", l.clock.cpu() - l.startCPU, l.cpuLimit - l.startCPU}} {
		if lim.budget <= 0 || lim.spent <= 0 {
			continue
		}
		r := steps / lim.spent.Seconds()
		if e, at, sh := cosineShortfall(s, step, r, lim.budget-lim.spent); sh && (!short || e < end) {
			end, rate, lr, short, flag, rateKey = e, r, at, true, lim.name, lim.rateKey
		}
	}
	if !short {
		return
	}
	l.log.Warn("the limit stops this run before its learning-rate cosine reaches the floor",
		"limit", flag, "total_steps", s.Total, rateKey, fmt.Sprintf("%.1f", rate), "last_step", end,
		"learning_rate_there", fmt.Sprintf("%.3g", lr),
		"fix", fmt.Sprintf("-set training.total_steps=%d", end))
}
