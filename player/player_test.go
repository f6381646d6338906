package player

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all" // registers every game
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/mcts"
)

// Every knob's default is a value it accepts, and each engine option is
// declared by one knob.
func TestKnobDeclarations(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Knobs {
		if k.Default != "" {
			if err := k.Check(k.Default); err != nil {
				t.Errorf("knob %s: default %q refused: %v", k.Key, k.Default, err)
			}
		}
		if k.Help == "" {
			t.Errorf("knob %s has no help", k.Key)
		}
		if k.UCI != "" {
			if seen[k.UCI] {
				t.Errorf("engine option %s declared twice", k.UCI)
			}
			seen[k.UCI] = true
		}
	}
	for _, name := range []string{"Mover", "Network", "Simulations", "Precision", "Eval", "EvalFile", "Threads", "Hash",
		"Algorithm", "ABZeroWeight", "ABZeroPolicy", "ABZeroSimShare", "Search", "CInit", "FPU"} {
		if !seen[name] {
			t.Errorf("no knob declares the engine option %s", name)
		}
	}
}

// A spec without keys plays the knobs' defaults; its keys change only
// their own knobs.
func TestParseDefaultsAndKeys(t *testing.T) {
	s, err := Parse(KindABZero, "connect4", map[string]string{"net": "connect4", "m": "2.5", "depth": "3", "c_init": "2", "hash": "8", "lmr": "on"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := mcts.DefaultConfig()
	want.CInit = 2
	ab := alphabeta.DefaultOptionsFor("connect4")
	ab.HashMiB, ab.LMR = 8, true
	if s.MCTS != want || s.AlphaBeta != ab || s.M != 2.5 || s.Depth != 3 || s.Sims != DefaultInt(KnobSims) || s.Network != "connect4" {
		t.Errorf("spec %+v", s)
	}
	d := Default(KindNet, "xiangqi")
	if d.Sims != 200 || d.AlphaBeta.HashMiB != 16 || d.MCTS != mcts.DefaultConfig() || d.Precision != "auto" || d.Eval != EvalClassical {
		t.Errorf("defaults %+v", d)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		kind string
		kv   map[string]string
		pos  []string
		want string
	}{
		{KindAB, nil, nil, "ab needs depth=N, movetime=MS, nodes=N or elo=E"},
		{KindAB, map[string]string{"depth": "0"}, nil, "depth=0 out of range [1, "},
		{KindAB, map[string]string{"depth": "2", "hash": "5000"}, nil, "hash=5000 out of range [1, 4096]"},
		{KindAB, map[string]string{"depth": "2", "sims": "5"}, nil, `unknown key "sims" for ab`},
		{KindNet, map[string]string{"c_init": "0"}, []string{"f"}, "c_init=0 out of range (want > 0)"},
		{KindNet, map[string]string{"search": "ucb"}, []string{"f"}, `search="ucb" (valid: puct, gumbel)`},
		{KindNet, map[string]string{"precision": "fp16"}, []string{"f"}, `precision="fp16" (valid: auto, fp32, int8)`},
		{KindNet, map[string]string{"discount": "1"}, []string{"f"}, "discount= was retired"},
		{KindABZero, map[string]string{"net": "f", "m": "-1", "depth": "2"}, nil, `m="-1" is not a number >= 0`},
		{KindABZero, map[string]string{"net": "f", "m": "1", "depth": "2", "eval": "learned"}, nil, "eval=learned is Xiangqi's evaluation, not connect4's"},
	} {
		_, err := Parse(c.kind, "connect4", c.kv, c.pos)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v %v: %v, want %q", c.kind, c.kv, c.pos, err, c.want)
		}
	}
}

// The engine's options come from the knobs: names, defaults, ranges; a
// value out of range is refused naming the option.
func TestUCIOptions(t *testing.T) {
	opts := UCIOptions()
	byName := map[string]int{}
	for i, o := range opts {
		byName[o.Name] = i
	}
	if o := opts[byName["Simulations"]]; o.Default != "200" || o.Min != 0 || o.Max != 10_000_000 {
		t.Errorf("Simulations %+v", o)
	}
	if o := opts[byName["Hash"]]; o.Default != "16" || o.Min != 1 || o.Max != 4096 {
		t.Errorf("Hash %+v", o)
	}
	s := Default(KindAB, "xiangqi")
	if ok, err := s.SetOption("Hash", "0"); !ok || err == nil || !strings.Contains(err.Error(), "option Hash: 0 out of range") {
		t.Errorf("Hash 0: %v %v", ok, err)
	}
	if ok, err := s.SetOption("CInit", "3.5"); !ok || err != nil || s.MCTS.CInit != 3.5 {
		t.Errorf("CInit 3.5: %v %v %v", ok, err, s.MCTS.CInit)
	}
	if ok, _ := s.SetOption("MultiPV", "2"); ok {
		t.Error("MultiPV taken for a knob")
	}
}

// SetSearch reads the keys it always read, now from the knobs' rows.
func TestSearchKeys(t *testing.T) {
	want := []string{KnobSims, KnobSearch, KnobCInit, KnobFPU, KnobPrecision}
	if !slices.Equal(searchKeys, want) {
		t.Errorf("searchKeys %v, want %v", searchKeys, want)
	}
}

// MoveUntil plays Move's move when its context does not end, and answers
// with what the search has when it has ended, where Move fails: the
// network's search and the blend with the raw policy.
func TestMoveUntil(t *testing.T) {
	file := testnet.Checkpoint(t, t.TempDir(), "connect4", 1)
	g, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	n, err := LoadNetwork(file, g, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	legal := p.GenerateMoves(nil)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		kind string
		kv   map[string]string
	}{
		{KindAB, map[string]string{"depth": "3"}},
		{KindNet, map[string]string{"sims": "16"}},
		{KindABZero, map[string]string{"net": file, "m": "1", "depth": "3", "sims": "16"}},
	} {
		var pos []string
		if c.kind == KindNet {
			pos = []string{file}
		}
		s, err := Parse(c.kind, "connect4", c.kv, pos)
		if err != nil {
			t.Fatal(err)
		}
		mover := func() *Mover {
			var ev mcts.Evaluator
			if c.kind != KindAB {
				ev = n.Evaluator()
			}
			mv, err := s.NewMover(ev, nil)
			if err != nil {
				t.Fatal(err)
			}
			return mv
		}
		want, err := mover().Move(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		got, err := mover().MoveUntil(context.Background(), p)
		if err != nil || got.Move != want.Move {
			t.Errorf("%s: MoveUntil plays %v (%v), Move %v", c.kind, got.Move, err, want.Move)
		}
		if c.kind == KindAB {
			continue // no iteration done, no move
		}
		if _, err := mover().Move(ended, p); err == nil {
			t.Errorf("%s: Move with its context ended did not fail", c.kind)
		}
		got, err = mover().MoveUntil(ended, p)
		if err != nil || !slices.Contains(legal, got.Move) {
			t.Errorf("%s: MoveUntil with its context ended: %v, %v", c.kind, got.Move, err)
		}
	}
}

// The usage text's forms name every key of their kind once, the
// alpha-beta features as FEATURE and net's file as FILE, and nothing
// else; KeyUsage names every knob a spec sets, with its help.
func TestUsage(t *testing.T) {
	forms := SpecForms()
	if len(forms) != 3 {
		t.Fatalf("%d forms", len(forms))
	}
	for i, kind := range []string{KindAB, KindNet, KindABZero} {
		form := forms[i][0]
		rest, ok := strings.CutPrefix(form, kind+":")
		if !ok {
			t.Errorf("form %q for %s", form, kind)
			continue
		}
		// kind:REQUIRED[,OPTIONAL,...]: REQUIRED's keys are before "=",
		// its alternatives split by "|".
		required, optional, _ := strings.Cut(strings.TrimSuffix(rest, "]"), "[,")
		var named []string
		for _, part := range strings.FieldsFunc(required, func(r rune) bool { return r == ',' || r == '|' }) {
			key, _, _ := strings.Cut(part, "=")
			if key == "FILE" {
				key = "file"
			}
			named = append(named, key)
		}
		named = append(named, strings.Split(optional, ",")...)
		var want []string
		for _, key := range Keys(kind) {
			if slices.Contains(alphabeta.FeatureNames(), key) {
				key = "FEATURE"
			}
			if !slices.Contains(want, key) {
				want = append(want, key)
			}
		}
		slices.Sort(named)
		slices.Sort(want)
		if !slices.Equal(named, want) {
			t.Errorf("%s's form %q names %q, want %q", kind, form, named, want)
		}
	}
	keys := KeyUsage("")
	for _, k := range Knobs {
		if len(k.Kinds) > 0 && !strings.Contains(keys, k.Help) {
			t.Errorf("KeyUsage lacks %s's help", k.Key)
		}
	}
}
