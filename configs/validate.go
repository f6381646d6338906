package configs

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/net"
)

// Validate checks every field against its entry in the table options
// (its range or values, and its Syntax), then the cross-field checks.
// Nothing is registered from outside: a config is checked whole by every
// program that validates it.
func (c *Config) Validate() error {
	var errs []string
	root := reflect.ValueOf(c).Elem()
	for i := range options {
		o := &options[i]
		if o.When != nil && !o.When.On(c) {
			continue
		}
		for _, f := range locate(root, o.Path) {
			errs = append(errs, o.check(root, f.name, f.v)...)
		}
	}
	for _, k := range crossChecks {
		errs = append(errs, k.check(c)...)
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// Defaults returns a config holding every field's default (game empty:
// it has none).
func Defaults() *Config {
	var c Config
	root := reflect.ValueOf(&c).Elem()
	for _, o := range options {
		if o.Required || strings.Contains(o.Path, "[]") {
			continue // list items are decoded from zero values
		}
		fs := locate(root, o.Path)
		if len(fs) != 1 {
			continue // inside an absent optional section: zero by design
		}
		fs[0].v.Set(clone(reflect.ValueOf(o.Default)))
	}
	return &c
}

// clone copies a slice or map default, so that configs never share one.
func clone(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(out, v)
		return out
	case reflect.Map:
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), it.Value())
		}
		return out
	}
	return v
}

// located is one value at an option's path: list items and list entries
// are named with their index (gating.matches[0].games).
type located struct {
	name string
	v    reflect.Value
}

// locate returns the values at path below the struct v; an absent
// optional section (a nil pointer) or an empty list has none.
func locate(v reflect.Value, path string) []located {
	return locateParts(v, strings.Split(path, "."), "")
}

func locateParts(v reflect.Value, parts []string, prefix string) []located {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	key, each := strings.CutSuffix(parts[0], "[]")
	f, ok := fieldByTag(v.Type(), key)
	if !ok {
		panic("configs: no field " + prefix + key) // the table names a field Config lacks (TestOptionsCoverFields)
	}
	fv, name := v.FieldByIndex(f.Index), prefix+key
	if each {
		var out []located
		for i := range fv.Len() {
			out = append(out, locateParts(fv.Index(i), parts[1:], fmt.Sprintf("%s[%d].", name, i))...)
		}
		return out
	}
	if len(parts) == 1 {
		return []located{{name, fv}}
	}
	return locateParts(fv, parts[1:], name+".")
}

// fieldByTag finds the field of struct type t whose YAML key is key.
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if yamlKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// inlineMap finds the map field of struct type t that takes the keys its
// other fields do not (Evaluation.Sets).
func inlineMap(t reflect.Type) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Map && strings.Contains(f.Tag.Get("yaml"), ",inline") {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// yamlKey is a field's YAML key ("" for none).
func yamlKey(f reflect.StructField) string {
	k, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if k == "-" || !f.IsExported() {
		return ""
	}
	return k
}

// lookupOption returns the table's entry for path.
func lookupOption(path string) *Option {
	for i := range options {
		if options[i].Path == path {
			return &options[i]
		}
	}
	return nil
}

// check returns the errors of value v of the field named name.
func (o *Option) check(root reflect.Value, name string, v reflect.Value) []string {
	if o.Required && v.Kind() == reflect.String && v.String() == "" {
		return []string{name + " is missing"}
	}
	if o.Values != nil && !slices.Contains(o.Values, v.String()) {
		return []string{fmt.Sprintf("%s = %q is not %s", name, v.String(), orList(o.Values))}
	}
	if o.Syntax != nil {
		if err := o.Syntax(v.String()); err != nil {
			return []string{fmt.Sprintf("%s: %v", name, err)}
		}
	}
	if o.Range == nil {
		return nil
	}
	if v.Kind() == reflect.Slice {
		var errs []string
		for i := range v.Len() {
			errs = append(errs, o.Range.check(root, fmt.Sprintf("%s[%d]", name, i), v.Index(i))...)
		}
		return errs
	}
	return o.Range.check(root, name, v)
}

// check returns the errors of the number v of the field named name.
func (r *Range) check(root reflect.Value, name string, v reflect.Value) []string {
	x := number(v)
	if r.ZeroOff && x == 0 {
		return nil
	}
	lo, hi := r.bounds(root)
	var errs []string
	if !(x >= lo && x <= hi) {
		var s string
		if math.IsInf(hi, 1) {
			s = fmt.Sprintf("%s = %s is below %s", name, format(v.Type(), x), format(v.Type(), lo))
		} else {
			s = fmt.Sprintf("%s = %s is outside [%s, %s]", name, format(v.Type(), x), format(v.Type(), lo), format(v.Type(), hi))
		}
		switch {
		case r.MinOf != "" && lo > r.Min:
			s += " (at least " + r.MinOf + ")"
		case r.MaxOf != "" && hi < r.Max:
			s += " (at most " + r.MaxOf + ")"
		}
		if r.Why != "" {
			s += ": " + r.Why
		}
		errs = append(errs, s)
	}
	if r.Even != "" && int64(x)%2 != 0 {
		errs = append(errs, fmt.Sprintf("%s = %s must be even (%s)", name, format(v.Type(), x), r.Even))
	}
	return errs
}

// bounds returns the range with MinOf and MaxOf applied.
func (r *Range) bounds(root reflect.Value) (lo, hi float64) {
	lo, hi = r.Min, r.Max
	if r.MinOf != "" {
		lo = max(lo, number(locate(root, r.MinOf)[0].v))
	}
	if r.MaxOf != "" {
		hi = min(hi, number(locate(root, r.MaxOf)[0].v))
	}
	return lo, hi
}

// number is a numeric field's value.
func number(v reflect.Value) float64 {
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint64:
		return float64(v.Uint())
	case reflect.Float64:
		return v.Float()
	}
	panic("configs: a range on a " + v.Type().String()) // TestOptionsCoverFields
}

var durationType = reflect.TypeFor[time.Duration]()

// format writes x as a value of type t is written in YAML.
func format(t reflect.Type, x float64) string {
	switch {
	case t == durationType:
		return time.Duration(x).String()
	case t.Kind() == reflect.Float64:
		return fmt.Sprint(x)
	case math.IsInf(x, 0):
		return fmt.Sprint(x)
	}
	return fmt.Sprint(int64(x))
}

// orList writes "a, b or c", an empty string as "".
func orList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = v
		if v == "" {
			q[i] = `""`
		}
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// crossCheck is a check the table cannot express: it relates fields, or
// asks the game.
type crossCheck struct {
	name, doc string
	check     func(*Config) []string
}

var crossChecks = []crossCheck{
	{"game", "the game is registered, its rules resolve, network.encoder_version is one of its encoders, and network.policy_head fromto has an action for every pair of squares", checkGame},
	{"schedule", "piecewise: training.boundaries increase, one per entry of training.rates, and training.min_learning_rate stays 0; cosine: training.total_steps exceeds training.warmup_steps", checkSchedule},
	{"evaluation", "an evaluation section has matches or a position-set section; its opponents are fixed anchors, not best; each position-set section has the shape of `evaluation.KEY` above and simulations; what its measure declares beyond that (its game, its sets, its positions: the measures' rows above) `tabula train` checks before the run starts (configs.CheckSets with arena/measure's declarations)", checkEvaluation},
}

func checkGame(c *Config) []string {
	g, err := game.Lookup(c.Game)
	if err != nil {
		return []string{fmt.Sprintf("game: %v", err)}
	}
	var errs []string
	if _, err := g.Resolve(game.Options(c.Rules)); err != nil {
		errs = append(errs, fmt.Sprintf("rules: %v", err))
	}
	if ge, err := g.WithEncoder(c.Network.EncoderVersion); err != nil {
		errs = append(errs, fmt.Sprintf("network.encoder_version: %v", err))
	} else if _, h, w := ge.Encoder.Shape(); c.Network.PolicyHead == net.PolicyFromTo && ge.Encoder.ActionSize() != h*w*h*w {
		errs = append(errs, fmt.Sprintf("network.policy_head = %s needs an encoder with an action for every pair of squares; %s's encoder %d has %d actions for %d squares",
			net.PolicyFromTo, g.Name, ge.Encoder.Version(), ge.Encoder.ActionSize(), h*w))
	}
	return errs
}

func checkSchedule(c *Config) []string {
	t := c.Training
	var errs []string
	switch t.Schedule {
	case "piecewise":
		if t.MinLearningRate != 0 {
			errs = append(errs, "training.min_learning_rate is for the cosine schedule; piecewise takes its last rate from training.rates")
		}
		if len(t.Boundaries) != len(t.Rates) {
			errs = append(errs, fmt.Sprintf("training.boundaries has %d entries but training.rates has %d", len(t.Boundaries), len(t.Rates)))
		}
		for i := 1; i < len(t.Boundaries); i++ {
			if t.Boundaries[i] <= t.Boundaries[i-1] {
				errs = append(errs, fmt.Sprintf("training.boundaries must increase (%d after %d)", t.Boundaries[i], t.Boundaries[i-1]))
				break
			}
		}
	case "cosine":
		if t.TotalSteps <= t.WarmupSteps {
			errs = append(errs, fmt.Sprintf("training.total_steps = %d must exceed training.warmup_steps = %d", t.TotalSteps, t.WarmupSteps))
		}
	}
	return errs
}

func checkEvaluation(c *Config) []string {
	e := c.Evaluation
	if !evaluationOn.On(c) {
		return nil
	}
	var errs []string
	if len(e.Matches) == 0 && len(e.Sections()) == 0 {
		errs = append(errs, "evaluation has neither matches nor a position-set section")
	}
	for i, m := range e.Matches {
		if m.Opponent == "best" {
			errs = append(errs, fmt.Sprintf("evaluation.matches[%d].opponent = best: evaluations are against fixed anchors (a player spec such as ab:depth=4)", i))
		}
	}
	for _, st := range e.Sections() {
		errs = append(errs, checkRows(st.Key, SetShape, st.Set)...)
		if len(st.Set.Simulations) == 0 {
			errs = append(errs, fmt.Sprintf("evaluation.%s.simulations is empty (0 is the raw policy)", st.Key))
		}
	}
	return errs
}
