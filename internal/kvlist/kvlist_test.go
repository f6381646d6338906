package kvlist

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	pairs, pos, err := Parse(" runs/c4 , sims = 200,Hash=16 ,name=a=b")
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{"sims", "200"}, {"Hash", "16"}, {"name", "a=b"}}
	if !reflect.DeepEqual(pairs, want) || !reflect.DeepEqual(pos, []string{"runs/c4"}) {
		t.Fatalf("pairs %v positional %v", pairs, pos)
	}
	if m := Map(pairs, true); m["hash"] != "16" || m["sims"] != "200" || len(m) != 3 {
		t.Fatalf("folded map %v", m)
	}
	if m := Map(pairs, false); m["Hash"] != "16" {
		t.Fatalf("map %v", m)
	}
	for _, blank := range []string{"", "  "} {
		if p, q, err := Parse(blank); p != nil || q != nil || err != nil {
			t.Errorf("Parse(%q) = %v %v %v", blank, p, q, err)
		}
	}
	for _, bad := range []string{"a=1,", ",a=1", "a=1,,b=2", "=3", "a=1,A=2", " = "} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if _, err := Pairs("a=1,file"); err == nil {
		t.Error("Pairs accepted a positional part")
	}
	if p, err := Pairs("TryRule=immediate"); err != nil || p[0] != (Pair{"TryRule", "immediate"}) {
		t.Errorf("Pairs: %v %v", p, err)
	}
}
