package configs

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Reference returns the config reference, docs/config.md, as the option
// table, the cross-field checks and the position-set measures' sections
// sets (arena/measure's declarations) make it.
func Reference(sets ...SetSpec) []byte {
	var b bytes.Buffer
	b.WriteString(`# Config reference

Generated from the option table (configs/options.go) and the position-set
measures' sections (arena/measure) by
` + "`go test ./configs -run TestConfigReference -update`" + `; do not edit by hand.

A training run's config is YAML. Every key but ` + "`game`" + ` has a default, so a
config names only what differs from the defaults, which are the Connect Four
preset's settings with every switch off, but for the search constants (the
` + "`search`" + ` keys other than ` + "`simulations`" + `, ` + "`full_search_share`" + ` and
` + "`fast_simulations`" + `): theirs are the search's own (mcts.DefaultConfig), which
the engine and the arena play with too, and each preset sets those it differs
in. The presets (configs/*.yaml) are
written that way; docs/presets.md records the measurements behind each
value a preset sets. Unknown keys, wrong types and values outside the range
below are errors that name the key. An integer field takes an integer of its
type only: a fraction (` + "`simulations: 8.5`" + `) or a number past the type's range
(` + "`seed: 18446744073709551616`" + `) is an error naming the line and the key, not a
truncated value.

Where a run's config comes from, first match first (rundir.Settle, the
flags of tabula train): ` + "`-config FILE`" + `; else the run's frozen copy
RUN/config.yaml; else the embedded preset of ` + "`-game`" + `. The ` + "`-set PATH=VALUE`" + `
overrides apply last, to whichever it was. The frozen copy spells out every
key and is sealed with its checksum: it reads as the build that wrote it
meant, a key it lacks at that key's zero value, not at today's default. A
frozen copy without its checksum line, or whose line is altered or does not
match the text, is refused; so is a run that has trained but lost its
config.yaml. The repair either names is to give the run's config with
` + "`-config FILE -accept-config-change`" + `, which logs the change in
RUN/config-changes.log and seals the copy again.
Keys of switches that were retired are listed in docs/retired.md.

`)
	section := ""
	for _, o := range options {
		s, _, found := strings.Cut(o.Path, ".")
		if !found {
			s = "top level"
		}
		if s != section {
			section = s
			fmt.Fprintf(&b, "\n## %s\n\n| key | default | allowed | meaning |\n|---|---|---|---|\n", s)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", o.Path, cell(o.defaultText()), cell(o.allowedText()), cell(o.Help))
	}
	// The position-set sections: the shape every one has, then each
	// measure's own rows.
	setRows := func(key string, rows []Option, help func(o *Option) string) {
		for i := range rows {
			o := &rows[i]
			fmt.Fprintf(&b, "| `evaluation.%s.%s` | %s | %s | %s |\n", key, o.Path, cell(o.defaultText()),
				cell(o.allowedIn(setFieldType(o.Path))), cell(help(o)))
		}
	}
	setRows("KEY", SetShape, func(o *Option) string {
		return "any position-set section (KEY its measure's): " + o.Help
	})
	for _, sp := range sets {
		setRows(sp.Key, sp.Options, func(o *Option) string { return o.Help + "; " + sp.Game + " only" })
	}
	b.WriteString("\n## Checks across fields\n\n")
	for _, k := range crossChecks {
		fmt.Fprintf(&b, "- **%s**: %s.\n", k.name, k.doc)
	}
	b.WriteString("\nA field with a grammar of its own is read by Validate as its reader reads it\n" +
		"(`selfplay.abzero.m`: configs.ParseSchedule, which self-play uses), so every\n" +
		"program that loads a config checks all of it.\n")
	return b.Bytes()
}

// cell escapes a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// defaultText is the default as YAML would write it.
func (o *Option) defaultText() string {
	if o.Required {
		return "required"
	}
	v := reflect.ValueOf(o.Default)
	switch {
	case v.Type() == durationType:
		return "`" + format(v.Type(), number(v)) + "`"
	case v.Kind() == reflect.String && v.String() == "":
		return "empty"
	case v.Kind() == reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return "`[" + strings.Join(parts, ", ") + "]`"
	case v.Kind() == reflect.Map:
		return "`{}`"
	}
	return fmt.Sprintf("`%v`", o.Default)
}

// allowedText says what the field may hold and when that is checked.
func (o *Option) allowedText() string { return o.allowedIn(fieldType(o.Path)) }

// setFieldType is the Go type of a position-set section's field.
func setFieldType(path string) reflect.Type {
	f, _ := fieldByTag(reflect.TypeFor[EvalSet](), path)
	return f.Type
}

// allowedIn is allowedText of a field of type t.
func (o *Option) allowedIn(t reflect.Type) string {
	var s string
	switch {
	case o.Range != nil:
		et := t
		if t.Kind() == reflect.Slice {
			et = t.Elem()
			s = "each "
		}
		r := o.Range
		switch {
		case r.Min == r.Max:
			s += format(et, r.Min)
		case math.IsInf(r.Max, 1):
			s += "at least " + format(et, r.Min)
		default:
			s += fmt.Sprintf("[%s, %s]", format(et, r.Min), format(et, r.Max))
		}
		if r.ZeroOff {
			s = "0 (off) or " + s
		}
		if r.MinOf != "" {
			s += ", at least `" + r.MinOf + "`"
		}
		if r.MaxOf != "" {
			s += ", at most `" + r.MaxOf + "`"
		}
		if r.Even != "" {
			s += ", even (" + r.Even + ")"
		}
		if r.Why != "" {
			s += " (" + r.Why + ")"
		}
	case o.Values != nil:
		q := make([]string, len(o.Values))
		for i, v := range o.Values {
			q[i] = "`" + v + "`"
			if v == "" {
				q[i] = "empty"
			}
		}
		s = strings.Join(q, ", ")
	case o.Rule != "":
		s = o.Rule
	case t.Kind() == reflect.Bool:
		s = "`true`, `false`"
	}
	if o.When != nil {
		s += "; checked when " + o.When.Doc
	}
	return s
}

// fieldType is the Go type of the field at an option's path.
func fieldType(path string) reflect.Type {
	t := reflect.TypeFor[Config]()
	parts := strings.Split(path, ".")
	for i, p := range parts {
		key, each := strings.CutSuffix(p, "[]")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f, _ := fieldByTag(t, key)
		t = f.Type
		if each && i < len(parts)-1 {
			t = t.Elem()
		}
	}
	return t
}
