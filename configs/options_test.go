package configs

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// presetBefore is a preset's text as it was when every preset spelled
// out every key (testdata/presets-before): the tests that edit a preset's
// lines edit this complete text.
func presetBefore(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "presets-before", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeAsBefore decodes text as Parse did before the defaults: strictly,
// over a zero Config, with the retired keys dropped.
func decodeAsBefore(t *testing.T, b []byte) *Config {
	t.Helper()
	retired, b, err := dropRetired(b)
	if err != nil {
		t.Fatal(err)
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	c.Retired = retired
	return &c
}

var presetNames = []string{"connect4", "lion", "xiangqi", "xiangqi-zero"}

// Every preset, now listing only what differs from the defaults, loads to
// exactly the config its complete text gave before.
func TestPresetsAsBefore(t *testing.T) {
	entries, _ := os.ReadDir("testdata/presets-before")
	if len(entries) != len(presetNames) {
		t.Fatalf("testdata/presets-before has %d presets, the test names %d", len(entries), len(presetNames))
	}
	for _, g := range presetNames {
		before := presetBefore(t, g)
		want := decodeAsBefore(t, before)
		got, err := Preset(g)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("preset %s now loads as\n%s\nbefore as\n%s", g, got.Marshal(), want.Marshal())
		}
		// The complete text still reads the same through Parse.
		if again, err := Parse(before, g); err != nil || !reflect.DeepEqual(again, want) {
			t.Errorf("%s: the complete text reads differently: %v", g, err)
		}
	}
}

// A run's frozen copy, sealed by an earlier build, loads as it did: the
// copies of the presets (testdata/frozen) and one of an older build that
// did not know training.ops yet, which must stay "" rather than take the
// default.
func TestFrozenAsBefore(t *testing.T) {
	for _, g := range presetNames {
		b, err := os.ReadFile(filepath.Join("testdata", "frozen", g+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(b, g)
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := bytes.Cut(b, []byte("\n"))
		if want := decodeAsBefore(t, body); !reflect.DeepEqual(got, want) {
			t.Errorf("frozen %s reads as\n%s", g, got.Marshal())
		}
		// Without ops, resealed as that build would have.
		old := reseal(bytes.Replace(body, []byte("    ops: fast\n"), nil, 1))
		c, err := Parse(old, g+" before ops")
		if err != nil || c.Training.Ops != "" {
			t.Errorf("%s frozen before ops: ops %q, %v", g, c.Training.Ops, err)
		}
		// A -set on such a copy keeps what the copy said elsewhere.
		set, err := Override(old, []string{"seed=9"})
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Parse(set, "overridden")
		if err != nil {
			t.Fatal(err)
		}
		c2.Seed = c.Seed
		if !reflect.DeepEqual(c2, c) {
			t.Errorf("%s: -set changed more than the seed:\n%s", g, c2.Marshal())
		}
	}
	b, _ := os.ReadFile("testdata/frozen-before-retirement.yaml")
	_, body, _ := bytes.Cut(b, []byte("\n"))
	got, err := Parse(b, "before retirement")
	if err != nil {
		t.Fatal(err)
	}
	if want := decodeAsBefore(t, body); !reflect.DeepEqual(got, want) {
		t.Errorf("frozen before retirement reads as\n%s", got.Marshal())
	}
}

// reseal seals body as MarshalSealed does.
func reseal(body []byte) []byte {
	sum := sha256.Sum256(body)
	return append([]byte(fmt.Sprintf("%s%x (changes go through -accept-config-change)\n", sealPrefix, sum)), body...)
}

// yamlFields returns the dotted YAML path of every field of t: "[]" after
// a list of structs, whose item fields follow; a struct or a pointer to
// one is a section, not a field.
func yamlFields(t reflect.Type, prefix string) (fields []string, omitempty map[string]bool) {
	omitempty = map[string]bool{}
	var walk func(t reflect.Type, prefix string, inOptional bool)
	walk = func(t reflect.Type, prefix string, inOptional bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			key := yamlKey(f)
			if key == "" {
				continue
			}
			path := prefix + key
			opt := inOptional || strings.Contains(f.Tag.Get("yaml"), "omitempty")
			ft := f.Type
			switch {
			case ft.Kind() == reflect.Struct && ft != durationType:
				walk(ft, path+".", opt)
				continue
			case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), path+".", true)
				continue
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(ft.Elem(), path+"[].", true)
			}
			fields = append(fields, path)
			omitempty[path] = opt
		}
	}
	walk(t, prefix, false)
	return fields, omitempty
}

// Every YAML field has one entry in the table, with a default (or
// Required), what it may hold and help; the default has the field's type
// and passes the field's own checks.
func TestOptionsCoverFields(t *testing.T) {
	fields, omitempty := yamlFields(reflect.TypeFor[Config](), "")
	seen := map[string]bool{}
	for _, o := range options {
		if seen[o.Path] {
			t.Errorf("%s: two entries", o.Path)
		}
		seen[o.Path] = true
	}
	for _, f := range fields {
		if !seen[f] {
			t.Errorf("the YAML field %s has no entry in the option table", f)
		}
	}
	for _, o := range options {
		if !contains(fields, o.Path) {
			t.Errorf("the entry %s names no YAML field", o.Path)
			continue
		}
		ft := fieldType(o.Path)
		if o.Help == "" {
			t.Errorf("%s: no help", o.Path)
		}
		if (o.Default == nil) == !o.Required {
			t.Errorf("%s: want a default or Required, not both or neither", o.Path)
		}
		if o.Default != nil && reflect.TypeOf(o.Default) != ft {
			t.Errorf("%s: default is a %T, the field a %s", o.Path, o.Default, ft)
		}
		n := 0
		for _, set := range []bool{o.Range != nil, o.Values != nil, o.Rule != ""} {
			if set {
				n++
			}
		}
		if n != 1 && ft.Kind() != reflect.Bool {
			t.Errorf("%s: want exactly one of Range, Values and Rule", o.Path)
		}
		if o.Range != nil {
			et := ft
			if et.Kind() == reflect.Slice {
				et = et.Elem()
			}
			switch et.Kind() {
			case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
			default:
				t.Errorf("%s: a range on a %s", o.Path, ft)
			}
			for _, ref := range []string{o.Range.MinOf, o.Range.MaxOf} {
				if ref != "" && lookupOption(ref) == nil {
					t.Errorf("%s: bound by %s, which is no option", o.Path, ref)
				}
			}
		}
		if o.Values != nil && ft.Kind() != reflect.String {
			t.Errorf("%s: values for a %s", o.Path, ft)
		}
		// Earlier builds' frozen copies leave these keys out when zero,
		// and decoding a list item or an optional section starts from
		// zero: a default there must be the zero value.
		if o.Default != nil && (omitempty[o.Path] || strings.Contains(o.Path, "[]")) && !reflect.ValueOf(o.Default).IsZero() {
			if v := reflect.ValueOf(o.Default); !(v.Kind() == reflect.Slice && v.Len() == 0) {
				t.Errorf("%s: the default %v of a key that may be left out at zero must be zero", o.Path, o.Default)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The defaults with a game are a valid config, and the defaults are
// Connect Four's preset's settings: its file names only its switches, the
// search constants it differs in from mcts's and its evaluation.
func TestDefaults(t *testing.T) {
	d := Defaults()
	d.Game = "connect4"
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	back, err := Parse([]byte("game: connect4\n"), "minimal")
	if err != nil || !reflect.DeepEqual(back, d) {
		t.Fatalf("a config of only its game is not the defaults: %v", err)
	}
	// Defaults share no list or map.
	a, b := Defaults(), Defaults()
	a.Training.Rates[0], a.Rules["x"] = 1, "y"
	if b.Training.Rates[0] == 1 || len(b.Rules) != 0 {
		t.Fatal("two defaults share a list or map")
	}
}

// Validate reads selfplay.abzero.m's grammar itself, in a test binary
// that links no package of self-play (package configs cannot import
// one): where the section is on, a schedule self-play could not read is
// refused and named by its field; where it is off, the field is not read.
func TestScheduleChecked(t *testing.T) {
	text := strings.Replace(string(presetBefore(t, "connect4")), "  shard_samples: 2000",
		"  shard_samples: 2000\n  abzero: {generations: 5, depth: 2, m: \"linear:1,2\"}", 1)
	_, err := Parse([]byte(text), "cfg.yaml")
	if err == nil || !strings.Contains(err.Error(), `selfplay.abzero.m: schedule "linear:1,2"`) {
		t.Fatalf("a bad schedule: %v", err)
	}
	good := strings.Replace(text, "linear:1,2", "linear:1,2,0,5", 1)
	c, err := Parse([]byte(good), "cfg.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ParseSchedule(c.SelfPlay.ABZero.M); err != nil || s.At(5) != 2 {
		t.Fatalf("the schedule read back: %+v, %v", s, err)
	}
	c.SelfPlay.ABZero.M = "step:1"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "selfplay.abzero.m") {
		t.Fatalf("Validate of a bad schedule: %v", err)
	}
	c.SelfPlay.ABZero = SelfPlayABZero{}
	if err := c.Validate(); err != nil {
		t.Fatalf("the field of an unset section was read: %v", err)
	}
}
