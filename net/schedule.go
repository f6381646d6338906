package net

import (
	"fmt"
	"math"
)

// Schedule kinds.
const (
	ScheduleConstant  = "constant"
	SchedulePiecewise = "piecewise"
	ScheduleCosine    = "cosine"
)

// Schedule is a learning-rate schedule over the step count (0 for the
// first step).
//
//   - "constant" (or ""): LR at every step.
//   - "piecewise": LR before Boundaries[0], then Values[i] from step
//     Boundaries[i] on (Boundaries strictly increasing and positive,
//     len(Values) == len(Boundaries)).
//   - "cosine": linear warm-up to LR over Warmup steps (step s < Warmup
//     uses LR*(s+1)/Warmup), then cosine decay from LR at step Warmup to
//     MinLR at step Total, and MinLR from Total on.
type Schedule struct {
	Kind string
	LR   float64

	Boundaries []int64
	Values     []float64

	Warmup, Total int64
	MinLR         float64
}

// Validate reports a schedule that would give a negative, infinite or NaN
// rate, or whose fields contradict its kind.
func (s Schedule) Validate() error {
	rate := func(name string, v float64) error {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("net: schedule %s %v is not a finite non-negative number", name, v)
		}
		return nil
	}
	if err := rate("learning rate", s.LR); err != nil {
		return err
	}
	switch s.Kind {
	case "", ScheduleConstant:
	case SchedulePiecewise:
		if len(s.Values) != len(s.Boundaries) {
			return fmt.Errorf("net: piecewise schedule has %d boundaries and %d values", len(s.Boundaries), len(s.Values))
		}
		for i, b := range s.Boundaries {
			if b <= 0 || (i > 0 && b <= s.Boundaries[i-1]) {
				return fmt.Errorf("net: piecewise schedule boundaries %v are not positive and strictly increasing", s.Boundaries)
			}
			if err := rate("value", s.Values[i]); err != nil {
				return err
			}
		}
	case ScheduleCosine:
		if s.Warmup < 0 || s.Total <= s.Warmup {
			return fmt.Errorf("net: cosine schedule needs 0 <= warmup < total, got warmup %d, total %d", s.Warmup, s.Total)
		}
		if err := rate("minimum learning rate", s.MinLR); err != nil {
			return err
		}
	default:
		return fmt.Errorf("net: unknown schedule kind %q", s.Kind)
	}
	return nil
}

// At returns the learning rate of step (0-based). Steps before 0 count as
// step 0. The schedule should be valid (Validate).
func (s Schedule) At(step int64) float64 {
	step = max(step, 0)
	switch s.Kind {
	case SchedulePiecewise:
		lr := s.LR
		for i, b := range s.Boundaries {
			if step < b {
				break
			}
			lr = s.Values[i]
		}
		return lr
	case ScheduleCosine:
		if step < s.Warmup {
			return s.LR * float64(step+1) / float64(s.Warmup)
		}
		if step >= s.Total {
			return s.MinLR
		}
		p := float64(step-s.Warmup) / float64(s.Total-s.Warmup)
		return s.MinLR + (s.LR-s.MinLR)*0.5*(1+math.Cos(math.Pi*p))
	default:
		return s.LR
	}
}
