package rundir

import (
	"maps"
	"os"
	"slices"
	"testing"
)

// Prune keeps exactly the pointed checkpoints, the ones it is told to
// keep, the newest N up to latest and what is newer than latest; the
// pointers still resolve after it. A pointer that does not resolve, or
// N below 1, deletes nothing.
func TestPrune(t *testing.T) {
	run := Dir(t.TempDir())
	c := sample(t)
	var names []string
	for g := 0; g <= 10; g++ {
		c.Generation, c.Step = g, int64(g*10)
		name, err := run.Save(c)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	// Generation 10's save was cut short before latest moved to it.
	if err := run.SetPointer(Latest, names[9]); err != nil {
		t.Fatal(err)
	}
	if err := run.SetPointer(Best, names[2]); err != nil {
		t.Fatal(err)
	}
	all := func() []string {
		l, err := run.List()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if removed, err := run.Prune(map[string]bool{names[0]: true}, 0); err != nil || len(removed) > 0 || len(all()) != 11 {
		t.Fatalf("N = 0 removed %v (%v)", removed, err)
	}
	// A best pointer that does not resolve: nothing is deleted.
	os.WriteFile(run.Path(Best), []byte("g000002-s000000020.ckpt\ngeneration 7\nsha256 00\n"), 0o644)
	if removed, err := run.Prune(nil, 1); err == nil || len(removed) > 0 || len(all()) != 11 {
		t.Fatalf("damaged best: removed %v (%v)", removed, err)
	}
	if err := run.SetPointer(Best, names[2]); err != nil {
		t.Fatal(err)
	}
	keep := map[string]bool{names[0]: true, names[4]: true, "g999999-s000000000.ckpt": true}
	removed, err := run.Prune(keep, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{names[0]: true, names[2]: true, names[4]: true, names[7]: true, names[8]: true, names[9]: true, names[10]: true}
	if got := all(); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Fatalf("kept %v, want %v", got, slices.Sorted(maps.Keys(want)))
	}
	for _, n := range names {
		if !want[n] && !slices.Contains(removed, n) {
			t.Errorf("%s neither kept nor reported removed (%v)", n, removed)
		}
	}
	for _, p := range []string{Best, Latest} {
		if _, err := run.Pointer(p); err != nil {
			t.Errorf("%s after pruning: %v", p, err)
		}
	}
	// Again: nothing more to delete.
	if removed, err := run.Prune(keep, 3); err != nil || len(removed) > 0 {
		t.Fatalf("second prune removed %v (%v)", removed, err)
	}
}
