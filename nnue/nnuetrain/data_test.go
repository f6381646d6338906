package nnuetrain

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/nnue/nnuedata"
)

// A sample's features are nnue.AppendFeatures' of its position.
func TestFeaturesMatchAppendFeatures(t *testing.T) {
	for _, g := range testGames(t, 4, 2) {
		for _, r := range g {
			p, err := r.Position(xiangqi.DefaultRules)
			if err != nil {
				t.Fatal(err)
			}
			s := Sample{Squares: r.Squares, Side: r.Side}
			for c := range game.Color(2) {
				got, ok := features(nil, &s, c)
				want := nnue.AppendFeatures(nil, p, c)
				slices.Sort(got)
				slices.Sort(want)
				if !ok || !slices.Equal(got, want) {
					t.Fatalf("%s perspective %d: %v, AppendFeatures %v", p, c, got, want)
				}
			}
		}
	}
}

// The quantised network evaluated from a sample's features is
// nnue.Net.EvaluateFull of its position, exactly.
func TestIntNetMatchesNNUE(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		n := nnue.NewRandom(seed)
		q := intNetOf(n)
		sc := newIntScratch(n.Sizes())
		for _, g := range testGames(t, 3, seed) {
			for _, r := range g {
				p, err := r.Position(xiangqi.DefaultRules)
				if err != nil {
					t.Fatal(err)
				}
				s := Sample{Squares: r.Squares, Side: r.Side}
				us, _ := features(nil, &s, game.Color(s.Side))
				them, _ := features(nil, &s, game.Color(s.Side^1))
				if got, want := q.eval(us, them, &sc), n.EvaluateFull(p); got != want {
					t.Fatalf("%s: %d, EvaluateFull %d", p, got, want)
				}
			}
		}
	}
}

// Load: every record of several directories, mate scores skipped (or
// kept), scores capped, whole games held out, the same split and
// fingerprint every time, MaxRecords.
func TestLoad(t *testing.T) {
	games := testGames(t, 40, 7)
	for i := range games[3] {
		mateRecord(&games[3][i])
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	n0 := writeShards(t, dirs[0], games[:25], 6, 1)
	n1 := writeShards(t, dirs[1], games[25:], 6, 2)
	opt := LoadOptions{Dirs: dirs, ValidFraction: 0.3, MaxScore: 1000}
	d, err := Load(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	st := d.Stats
	mates := len(games[3])
	if st.Records != n0+n1 || st.SkippedMate != mates || len(d.Train)+len(d.Valid) != n0+n1-mates {
		t.Fatalf("%+v; %d train, %d valid of %d+%d records, %d mates", st, len(d.Train), len(d.Valid), n0, n1, mates)
	}
	if st.ValidGames == 0 || st.ValidGames == st.Games || len(d.Valid) == 0 {
		t.Fatalf("held out %d of %d games", st.ValidGames, st.Games)
	}
	// Every game on one side of the split: a game's positions (those no
	// other game has: random games share their first plies) are all in
	// Train or all in Valid.
	type key struct {
		sq   [nnuedata.Slots]uint8
		side uint8
	}
	games4 := map[key]int{}
	for _, g := range games {
		for _, r := range g {
			games4[key{r.Squares, r.Side}]++
		}
	}
	where := map[key]string{}
	for _, s := range d.Train {
		where[key{s.Squares, s.Side}] += "t"
	}
	for _, s := range d.Valid {
		where[key{s.Squares, s.Side}] += "v"
	}
	capped := 0
	for gi, g := range games {
		if gi == 3 {
			continue
		}
		sides := map[string]int{}
		for _, r := range g {
			if k := (key{r.Squares, r.Side}); games4[k] == 1 {
				sides[where[k]]++
			}
			if r.Score > 1000 || r.Score < -1000 {
				capped++
			}
		}
		if len(sides) != 1 || sides["t"]+sides["v"] == 0 {
			t.Errorf("game %d: its positions in training and validation %v", gi, sides)
		}
	}
	if st.Capped != capped {
		t.Errorf("%d capped, want %d", st.Capped, capped)
	}
	for _, set := range [][]Sample{d.Train, d.Valid} {
		for _, s := range set {
			if s.Score > 1000 || s.Score < -1000 {
				t.Fatalf("score %d past the cap", s.Score)
			}
		}
	}
	again, err := Load(t.Context(), opt)
	if err != nil || again.Stats.Fingerprint != st.Fingerprint || !slices.Equal(again.Train, d.Train) || !slices.Equal(again.Valid, d.Valid) {
		t.Fatalf("a second load differs: %v", err)
	}
	// The same split whatever the directories' order.
	swapped, err := Load(t.Context(), LoadOptions{Dirs: []string{dirs[1], dirs[0]}, ValidFraction: 0.3, MaxScore: 1000})
	if err != nil || len(swapped.Valid) != len(d.Valid) || swapped.Stats.Fingerprint == st.Fingerprint {
		t.Fatalf("swapped directories: %d valid (want %d), fingerprint %x (%x): %v", len(swapped.Valid), len(d.Valid), swapped.Stats.Fingerprint, st.Fingerprint, err)
	}
	kept, err := Load(t.Context(), LoadOptions{Dirs: dirs, KeepMate: true})
	if err != nil || len(kept.Train) != n0+n1 || len(kept.Valid) != 0 {
		t.Fatalf("mates kept, nothing held out: %d train, %d valid: %v", len(kept.Train), len(kept.Valid), err)
	}
	few, err := Load(t.Context(), LoadOptions{Dirs: dirs, ValidFraction: 0.3, MaxRecords: 100})
	if err != nil || len(few.Train)+len(few.Valid) != 100 {
		t.Fatalf("MaxRecords 100: %d + %d: %v", len(few.Train), len(few.Valid), err)
	}
	if d.MemoryBytes() != int64(len(d.Train)+len(d.Valid))*36+int64(len(d.Train))*4 {
		t.Errorf("memory %d bytes for %d samples (a sample is %d bytes)", d.MemoryBytes(), len(d.Train)+len(d.Valid), SampleBytes)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, dir, testGames(t, 2, 1), 2, 1)
	bad := filepath.Join(t.TempDir(), "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, nnuedata.Name(0)), []byte("TABNNUE\x00garbage"), 0o644)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, c := range []struct {
		opt  LoadOptions
		ctx  context.Context
		want string
	}{
		{LoadOptions{}, t.Context(), "no data directory"},
		{LoadOptions{Dirs: []string{filepath.Join(dir, "none")}}, t.Context(), "no such file"},
		{LoadOptions{Dirs: []string{bad}}, t.Context(), "corrupt"},
		{LoadOptions{Dirs: []string{dir}, ValidFraction: 1}, t.Context(), "validation fraction"},
		{LoadOptions{Dirs: []string{dir}, MaxScore: -1}, t.Context(), "negative"},
		{LoadOptions{Dirs: []string{dir}}, ctx, "canceled"},
	} {
		_, err := Load(c.ctx, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.opt, err, c.want)
		}
	}
	_, err := Load(ctx, LoadOptions{Dirs: []string{dir}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
