package configs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Schedule kinds (selfplay.abzero.m).
const (
	ScheduleConstant = "constant" // Low always
	ScheduleLinear   = "linear"   // Low at generation From, rising linearly to High at To
	ScheduleStep     = "step"     // Low before generation To, High from To on
)

// Schedule gives the Alpha-Beta-Zero blend's network weight m for a
// training generation (selfplay.abzero.m): low early (lean on alpha-beta
// while the network is weak), high late (the network decides, alpha-beta
// only vetoes blunders). Its grammar is the config's, so Validate reads it
// whatever the program links; self-play reads it the same way.
type Schedule struct {
	Kind string  `json:"kind" yaml:"kind"`
	Low  float64 `json:"low" yaml:"low"`
	High float64 `json:"high" yaml:"high"`
	// From and To bound the linear ramp; To is the step's generation.
	From int `json:"from" yaml:"from"`
	To   int `json:"to" yaml:"to"`
}

// At returns m at generation gen.
func (s Schedule) At(gen int) float64 {
	switch s.Kind {
	case ScheduleLinear:
		switch {
		case gen <= s.From:
			return s.Low
		case gen >= s.To:
			return s.High
		}
		return s.Low + (s.High-s.Low)*float64(gen-s.From)/float64(s.To-s.From)
	case ScheduleStep:
		if gen >= s.To {
			return s.High
		}
	}
	return s.Low
}

// Check reports a schedule that cannot be used.
func (s Schedule) Check() error {
	for _, v := range []float64{s.Low, s.High} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("schedule weight %v must be finite and >= 0", v)
		}
	}
	switch s.Kind {
	case ScheduleConstant:
	case ScheduleLinear:
		if s.From < 0 || s.To <= s.From {
			return fmt.Errorf("linear schedule needs 0 <= from < to, got from %d to %d", s.From, s.To)
		}
	case ScheduleStep:
		if s.To < 0 {
			return fmt.Errorf("step schedule at generation %d", s.To)
		}
	default:
		return fmt.Errorf("unknown schedule kind %q (valid: %s, %s, %s)", s.Kind, ScheduleConstant, ScheduleLinear, ScheduleStep)
	}
	return nil
}

// ParseSchedule reads "W" (constant), "linear:LOW,HIGH,FROM,TO" or
// "step:LOW,HIGH,AT".
func ParseSchedule(text string) (Schedule, error) {
	kind, args, found := strings.Cut(strings.TrimSpace(text), ":")
	if !found {
		v, err := strconv.ParseFloat(kind, 64)
		if err != nil {
			return Schedule{}, fmt.Errorf("schedule %q: want W, linear:LOW,HIGH,FROM,TO or step:LOW,HIGH,AT", text)
		}
		s := Schedule{Kind: ScheduleConstant, Low: v, High: v}
		return s, s.Check()
	}
	parts := strings.Split(args, ",")
	want := map[string]int{ScheduleLinear: 4, ScheduleStep: 3}[kind]
	if want == 0 || len(parts) != want {
		return Schedule{}, fmt.Errorf("schedule %q: want linear:LOW,HIGH,FROM,TO or step:LOW,HIGH,AT", text)
	}
	var f [2]float64
	for i := range f {
		v, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
		if err != nil {
			return Schedule{}, fmt.Errorf("schedule %q: %q is not a number", text, parts[i])
		}
		f[i] = v
	}
	var g []int
	for _, p := range parts[2:] {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return Schedule{}, fmt.Errorf("schedule %q: %q is not a generation number", text, p)
		}
		g = append(g, n)
	}
	s := Schedule{Kind: kind, Low: f[0], High: f[1]}
	if kind == ScheduleLinear {
		s.From, s.To = g[0], g[1]
	} else {
		s.To = g[0]
	}
	return s, s.Check()
}

// checkWeights is selfplay.abzero.m's Syntax.
func checkWeights(text string) error {
	_, err := ParseSchedule(text)
	return err
}
