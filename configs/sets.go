package configs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// SetSpec is what a position-set measure declares of its config section
// evaluation.Key (arena/measure's Info): the game its positions are of and
// the rows of the section's keys (Option, Path relative to the section:
// set, positions, simulations), with their defaults, what they may hold
// and their help. Validate checks every section's shape (SetShape)
// whatever the program links; CheckSets checks them against the measures'
// own rows, and Reference lists the rows in docs/config.md.
type SetSpec struct {
	Key, Game string
	Options   []Option
}

// SetShape are the checks of every position-set section, whatever its
// measure: each is the generic row of its key.
var SetShape = []Option{
	{Path: "set", Default: "", Rule: "a set its measure names (empty: its own)", Help: "the set measured where the measure has several"},
	{Path: "positions", Default: 0, Range: in(0, 100000), Help: "the first positions of the set measured (0: all)"},
	{Path: "simulations", Required: true, Range: in(0, 100000), Help: "simulations of each measure of the moves, one per entry (0: the raw policy)"},
}

// checkRows returns the errors of section s under key against rows.
func checkRows(key string, rows []Option, s *EvalSet) []string {
	root := reflect.ValueOf(s).Elem()
	var errs []string
	for i := range rows {
		o := &rows[i]
		for _, f := range locate(root, o.Path) {
			errs = append(errs, o.check(root, "evaluation."+key+"."+f.name, f.v)...)
		}
	}
	return errs
}

// CheckSets checks the config's position-set sections against the
// measures' declarations specs: a section no measure declares, one of
// another game than the config's, and a value outside its measure's rows
// are errors, each naming its key.
func (c *Config) CheckSets(specs []SetSpec) error {
	var errs []string
	for _, st := range c.Evaluation.Sections() {
		i := slices.IndexFunc(specs, func(s SetSpec) bool { return s.Key == st.Key })
		if i < 0 {
			var keys []string
			for _, s := range specs {
				keys = append(keys, s.Key)
			}
			errs = append(errs, fmt.Sprintf("evaluation.%s: no position-set measure has this section (they are %s)", st.Key, orList(keys)))
			continue
		}
		sp := specs[i]
		if c.Game != sp.Game {
			errs = append(errs, fmt.Sprintf("evaluation.%s: its positions are %s's, not %s's", st.Key, sp.Game, c.Game))
		}
		errs = append(errs, checkRows(st.Key, sp.Options, st.Set)...)
	}
	if len(errs) > 0 {
		return fmt.Errorf("configs: %s", strings.Join(errs, "; "))
	}
	return nil
}
