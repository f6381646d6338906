package models_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/arena"
	"github.com/tabula-zero/tabula/arena/lionoracle"
	"github.com/tabula-zero/tabula/arena/pons"
	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/internal/liondata"
	"github.com/tabula-zero/tabula/internal/ponsdata"
	"github.com/tabula-zero/tabula/models"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/rundir"
)

// shippedGames are the games a network ships for.
var shippedGames = []string{"connect4", "lion", "xiangqi"}

// Every shipped network matches its SHA256SUMS line, is a playing
// checkpoint of its game with the game's current encoder, and is what
// the names resolve to.
func TestShippedModels(t *testing.T) {
	if err := models.Check(); err != nil {
		t.Fatal(err)
	}
	all := models.All()
	if len(all) != len(shippedGames) {
		t.Fatalf("%d models ship (%v), want one for each of %v", len(all), all, shippedGames)
	}
	for i, m := range all {
		if m.Game != shippedGames[i] {
			t.Errorf("model %d is %s, want %s", i, m.Game, shippedGames[i])
		}
		g, err := game.Lookup(m.Game)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for _, name := range []string{m.Game, "models/" + m.Game, "models/" + m.Game + ".ckpt", "./models/" + m.Game} {
			if got, ok := models.Lookup(name); !ok || got != m {
				t.Errorf("Lookup(%q) = %v, %v; want %v", name, got, ok, m)
			}
		}
		c, file, _, err := rundir.LoadPlayable(m.Game, g)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		// The network takes the planes of the encoder its game's preset
		// trains now: one of an older encoder must be replaced.
		spec, err := configs.PresetSpec(m.Game)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c.Params.Spec.EncoderVersion, spec.EncoderVersion; got != want {
			t.Errorf("%s has encoder version %d, the %s preset's is %d", m, got, m.Game, want)
		}
		if file != m.String() {
			t.Errorf("%s loaded as %s", m, file)
		}
		if len(c.Optimizer) != 0 || len(c.RNG) != 0 {
			t.Errorf("%s carries training state: %d optimizer buffers, %d RNG bytes", m, len(c.Optimizer), len(c.RNG))
		}
		id, err := rundir.IdentifyNetwork("models/" + m.Game)
		if err != nil || id.Game != m.Game || id.Generation != c.Generation {
			t.Errorf("IdentifyNetwork(%s) = %+v, %v", m, id, err)
		}
	}
	for _, name := range []string{"chess", "models/chess", ""} {
		if m, ok := models.Lookup(name); ok {
			t.Errorf("Lookup(%q) = %v, want none", name, m)
		}
	}
}

// The evaluation network that ships (Xiangqi's learned evaluation)
// matches its SHA256SUMS line, decodes as a network of package nnue, is
// what nnue.Shipped returns, and is no checkpoint's name.
func TestShippedEval(t *testing.T) {
	if err := models.Check(); err != nil {
		t.Fatal(err)
	}
	evals := models.Evals()
	if len(evals) != 1 || evals[0].Game != "xiangqi" {
		t.Fatalf("evaluation networks %v, want xiangqi's alone", evals)
	}
	m, ok := models.Eval("xiangqi")
	if !ok || m != evals[0] || m.File != "xiangqi.nnue" || m.String() != "models/xiangqi.nnue" {
		t.Fatalf("Eval(xiangqi) = %+v, %v", m, ok)
	}
	b, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != m.SHA256 {
		t.Fatalf("%s: Bytes have sha256 %x, the model says %s", m, sum, m.SHA256)
	}
	n, err := nnue.Decode(b)
	if err != nil {
		t.Fatalf("%s: %v", m, err)
	}
	if !bytes.Equal(n.Encode(), b) {
		t.Errorf("%s: the decoded network encodes to other bytes", m)
	}
	sn, sm, err := nnue.Shipped()
	if err != nil || sm != m || sn.Sizes() != n.Sizes() || !bytes.Equal(sn.Encode(), b) {
		t.Errorf("nnue.Shipped() = %v, %+v, %v; want the network of %s", sn, sm, err, m)
	}
	for _, g := range []string{"connect4", "lion", "chess", ""} {
		if m, ok := models.Eval(g); ok {
			t.Errorf("Eval(%q) = %v, want none", g, m)
		}
	}
	// Lookup and All keep meaning the conv nets' checkpoints.
	for _, name := range []string{"xiangqi.nnue", "models/xiangqi.nnue"} {
		if m, ok := models.Lookup(name); ok {
			t.Errorf("Lookup(%q) = %v, want none: an evaluation network is no checkpoint", name, m)
		}
	}
	for _, c := range models.All() {
		if !strings.HasSuffix(c.File, models.CheckpointExt) {
			t.Errorf("All lists %s", c)
		}
	}
	if m, ok := models.Lookup("xiangqi"); !ok || m.File != "xiangqi.ckpt" {
		t.Errorf("Lookup(xiangqi) = %v, %v; want the checkpoint", m, ok)
	}
}

// SHA256SUMS lists checkpoints and evaluation networks, nothing else.
func TestSumsLines(t *testing.T) {
	const h = "bacbb23fb977472790fdca882eac56eb26c41836f7323ef5a26dc1a40a1d483b"
	sums, err := models.ParseSums([]byte(h + "  a.ckpt\n\n" + strings.ToUpper(h) + " *b.nnue\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums["a.ckpt"] != h || sums["b.nnue"] != h {
		t.Errorf("sums %v", sums)
	}
	for _, line := range []string{
		h + "  a.onnx",
		h + "  a.ckpt.bak",
		h + "  a",
		h + "  .nnue",
		h + "  sub/a.nnue",
		h[:62] + "  a.nnue",
		strings.Repeat("g", 64) + "  a.nnue",
		h + "  a.nnue extra",
		h,
	} {
		if _, err := models.ParseSums([]byte(h + "  ok.ckpt\n" + line + "\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: %v, want line 2 refused", line, err)
		}
	}
	if _, err := models.ParseSums([]byte(h + "  a.nnue\n" + h + "  a.nnue\n")); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a file listed twice: %v", err)
	}
}

// A file or directory on disk wins over a shipped model's name.
func TestFileWinsOverName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("xiangqi", []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := rundir.OpenCheckpoint("xiangqi"); err == nil {
		t.Fatal("a file named xiangqi that is no checkpoint loaded")
	}
	if _, file, err := rundir.OpenCheckpoint("models/xiangqi"); err != nil || file != "models/xiangqi.ckpt" {
		t.Fatalf("models/xiangqi: %s, %v", file, err)
	}
}

// floor is a test of strength that the shipped network of a game passes
// and an untrained network of the same shape does not: what a broken or
// mixed-up model cannot reach. It returns whether the network at file
// passed, with the figures.
type floor func(t *testing.T, file string) (bool, string)

var floors = map[string]floor{
	// With a small search the network beats random play in every game
	// (alone it checks perpetually, which Xiangqi scores a loss).
	"xiangqi": func(t *testing.T, file string) (bool, string) {
		r := match(t, "xiangqi", "net:"+file+",sims=64", "random", 20, 200)
		return r.Wins == 20, fmt.Sprintf("vs random %d-%d-%d", r.Wins, r.Draws, r.Losses)
	},
	// With its search the network keeps the outcome of at least 90% of
	// 200 of Pons' positions (the exact truth).
	"connect4": func(t *testing.T, file string) (bool, string) {
		f, err := ponsdata.Open("Test_L2_R1")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		lines, err := pons.Read(f, 200)
		if err != nil {
			t.Fatal(err)
		}
		acc, err := pons.Measure(context.Background(), player(t, "connect4", "net:"+file+",sims=64"), lines, 2)
		if err != nil {
			t.Fatal(err)
		}
		return acc.OutcomeKept*10 >= acc.Positions*9, fmt.Sprintf("Pons Test_L2_R1, 64 sims: outcome kept %d/%d, optimal %d", acc.OutcomeKept, acc.Positions, acc.Optimal)
	},
	// With its search the network keeps the outcome of at least 85% of
	// 500 positions of the Lion oracle's set.
	"lion": func(t *testing.T, file string) (bool, string) {
		lines, err := liondata.Open(500)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := lionoracle.Measure(context.Background(), player(t, "lion", "net:"+file+",sims=64"), lines, 2)
		if err != nil {
			t.Fatal(err)
		}
		a := rep.All
		return a.OutcomeKept*100 >= a.Positions*85, fmt.Sprintf("Lion oracle, 64 sims: outcome kept %d/%d, optimal %d", a.OutcomeKept, a.Positions, a.Optimal)
	},
}

func TestShippedStrengthFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("plays games (-short)")
	}
	for _, m := range models.All() {
		t.Run(m.Game, func(t *testing.T) {
			fl, ok := floors[m.Game]
			if !ok {
				t.Fatalf("no strength floor for the %s model", m.Game)
			}
			ok, figures := fl(t, m.Game)
			t.Logf("shipped %s: %s", m, figures)
			if !ok {
				t.Errorf("shipped %s is below its floor: %s", m, figures)
			}
			// The floor must tell a trained network from an untrained one
			// of the same shape.
			c, _, err := rundir.OpenCheckpoint(m.Game)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := net.NewParams(c.Params.Spec, 1)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "fresh.ckpt")
			if err := checkpoints.Save(file, &checkpoints.Checkpoint{Params: fresh}); err != nil {
				t.Fatal(err)
			}
			ok, figures = fl(t, file)
			t.Logf("untrained %s network: %s", m.Game, figures)
			if ok {
				t.Errorf("an untrained %s network passes the floor (%s): it tells nothing", m.Game, figures)
			}
		})
	}
}

func player(t *testing.T, gameName, spec string) *arena.Spec {
	t.Helper()
	s, err := arena.ParsePlayer(spec, gameName)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func match(t *testing.T, gameName, a, b string, games, plyCap int) arena.Result {
	t.Helper()
	r, err := arena.RunMatch(context.Background(), arena.Match{
		Game: gameName, A: player(t, gameName, a), B: player(t, gameName, b),
		Games: games, Concurrency: 2, Seed: 1, PlyCap: plyCap,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
