package reanalyse

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
	"github.com/tabula-zero/tabula/mcts"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/infer"
	"github.com/tabula-zero/tabula/player"
)

// fixture is a small random Connect Four network behind a running
// batcher, and positions of random games stored as samples whose targets
// are made up.
type fixture struct {
	g       game.Game
	rules   game.Options
	params  *net.Params
	eval    *mcts.Batcher
	samples []data.Sample
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	g, err := game.Lookup("connect4")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := g.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := configs.PresetSpec(g.Name)
	if err != nil {
		t.Fatal(err)
	}
	spec.Blocks, spec.Filters = 1, 8
	params, err := net.NewParams(spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := infer.NewParallelPrecision(params, 8, 1, "fp32")
	if err != nil {
		t.Fatal(err)
	}
	b, err := mcts.NewBatcher(fwd, g.Encoder, mcts.BatchConfig{MaxBatch: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go b.Run(ctx)
	f := &fixture{g: g, rules: rules, params: params, eval: b}
	rng := rand.New(rand.NewPCG(1, 2))
	for id := range uint64(12) {
		p, err := g.New(rules)
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; !p.Status().Over(); ply++ {
			moves := p.GenerateMoves(nil)
			f.samples = append(f.samples, data.Sample{Position: p.String(), Ply: ply, GameID: id,
				Result: float32(rng.IntN(3) - 1), RootValue: 0.25,
				Policy: []data.PolicyEntry{{Action: g.Encoder.ActionIndex(p, moves[0]), Prob: 1}}})
			p.Make(moves[rng.IntN(len(moves))])
		}
	}
	return f
}

// truth is the network's policy over p's legal moves (by action index)
// and its value, from the reference forward pass.
func (f *fixture) truth(t *testing.T, position string) (map[int]float64, float64) {
	t.Helper()
	p, err := f.g.Parse(position, f.rules)
	if err != nil {
		t.Fatal(err)
	}
	c, h, w := f.g.Encoder.Shape()
	planes := make([]float32, c*h*w)
	f.g.Encoder.Encode(p, planes)
	logits, value := f.params.Reference(planes, 1)
	policy := map[int]float64{}
	sum := 0.0
	for _, m := range p.GenerateMoves(nil) {
		a := f.g.Encoder.ActionIndex(p, m)
		policy[a] = math.Exp(float64(logits[a]))
		sum += policy[a]
	}
	for a := range policy {
		policy[a] /= sum
	}
	return policy, float64(value[0])
}

func TestZeroSimulationsAreTheNetworksPolicyAndValue(t *testing.T) {
	f := newFixture(t)
	// A deep copy: a Samples that wrote into the input's policies would
	// change a shallow one's too.
	before := slices.Clone(f.samples)
	for i := range before {
		before[i].Policy = slices.Clone(before[i].Policy)
	}
	got, err := Samples(context.Background(), f.g, f.rules, f.eval, f.samples, Options{Parallel: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(before) {
		t.Fatalf("%d samples back, %d in", len(got), len(before))
	}
	for i, s := range got {
		in := before[i]
		if s.Position != in.Position || s.Result != in.Result || s.Ply != in.Ply || s.GameID != in.GameID {
			t.Fatalf("sample %d: position, result, ply or game changed: %+v from %+v", i, s, in)
		}
		if !slices.Equal(f.samples[i].Policy, in.Policy) {
			t.Fatalf("sample %d: the input's policy was changed", i)
		}
		policy, value := f.truth(t, s.Position)
		if len(s.Policy) != len(policy) {
			t.Fatalf("sample %d: %d policy entries, %d legal moves", i, len(s.Policy), len(policy))
		}
		for _, e := range s.Policy {
			want, ok := policy[e.Action]
			if !ok || math.Abs(float64(e.Prob)-want) > 1e-4 {
				t.Fatalf("sample %d: action %d has %v, the network %v (legal %v)", i, e.Action, e.Prob, want, ok)
			}
		}
		if math.Abs(float64(s.RootValue)-value) > 1e-4 {
			t.Fatalf("sample %d: root value %v, the network's %v", i, s.RootValue, value)
		}
	}
}

func TestSearchTargetsAreSeededDistributions(t *testing.T) {
	f := newFixture(t)
	cfg, err := configs.Preset("connect4")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Simulations: 24, MCTS: player.RunSearch(cfg.Search), Parallel: 4, Seed: 9}
	a, err := Samples(context.Background(), f.g, f.rules, f.eval, f.samples[:30], opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Samples(context.Background(), f.g, f.rules, f.eval, f.samples[:30], opt)
	if err != nil {
		t.Fatal(err)
	}
	differs := 0
	for i := range a {
		if !slices.Equal(a[i].Policy, b[i].Policy) || a[i].RootValue != b[i].RootValue {
			t.Fatalf("sample %d: two runs with one seed differ", i)
		}
		policy, _ := f.truth(t, a[i].Position)
		sum := 0.0
		for _, e := range a[i].Policy {
			if _, ok := policy[e.Action]; !ok {
				t.Fatalf("sample %d: action %d is not legal", i, e.Action)
			}
			sum += float64(e.Prob)
			if math.Abs(float64(e.Prob)-policy[e.Action]) > 1e-3 {
				differs++
			}
		}
		if math.Abs(sum-1) > 1e-4 {
			t.Fatalf("sample %d: the policy sums to %v", i, sum)
		}
	}
	if differs == 0 {
		t.Fatal("24 simulations changed no policy from the network's: the search did not run")
	}
}

func TestDirKeepsNamesAndResumes(t *testing.T) {
	f := newFixture(t)
	in, out := t.TempDir(), t.TempDir()
	h := data.Header{Game: "connect4", EncoderVersion: f.g.Encoder.Version(), Generation: 4, Worker: "w", Seq: 0}
	first, err := data.Write(in, h, f.samples[:20])
	if err != nil {
		t.Fatal(err)
	}
	h.Seq = 1
	second, err := data.Write(in, h, f.samples[20:])
	if err != nil {
		t.Fatal(err)
	}
	// A renamed copy keeps its name (its place in a window's order).
	renamed := filepath.Join(in, "a-"+filepath.Base(second))
	if err := os.Rename(second, renamed); err != nil {
		t.Fatal(err)
	}
	// The first shard is there already, as after a stopped run: kept.
	kept := filepath.Join(out, filepath.Base(first))
	if err := os.WriteFile(kept, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls [][3]int
	shards, samples, err := Dir(context.Background(), in, out, f.g, f.rules, f.eval, Options{Parallel: 3}, func(done, total, samples int) {
		calls = append(calls, [3]int{done, total, samples})
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][3]int{{0, 1, 0}, {1, 1, len(f.samples) - 20}}; !slices.Equal(calls, want) {
		t.Fatalf("progress %v, want %v (the shard already done left out)", calls, want)
	}
	if shards != 1 || samples != len(f.samples)-20 {
		t.Fatalf("%d shards, %d samples: want 1 and %d", shards, samples, len(f.samples)-20)
	}
	if b, _ := os.ReadFile(kept); string(b) != "kept" {
		t.Fatal("a shard already in the output was redone")
	}
	gh, got, err := data.Read(filepath.Join(out, filepath.Base(renamed)))
	if err != nil {
		t.Fatal(err)
	}
	if gh.Generation != 4 || gh.Seq != 1 || gh.Samples != len(got) || len(got) != len(f.samples)-20 {
		t.Fatalf("header %+v with %d samples", gh, len(got))
	}
	for i, s := range got {
		policy, _ := f.truth(t, s.Position)
		if s.Position != f.samples[20+i].Position || len(s.Policy) != len(policy) {
			t.Fatalf("sample %d: %+v", i, s)
		}
	}
}

func TestDirRefusesBadInput(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	if _, _, err := Dir(context.Background(), dir, dir, f.g, f.rules, f.eval, Options{}, nil); err == nil || !strings.Contains(err.Error(), "is the input's") {
		t.Fatalf("the input as output: %v", err)
	}
	if _, _, err := Dir(context.Background(), dir, t.TempDir(), f.g, f.rules, f.eval, Options{}, nil); err == nil || !strings.Contains(err.Error(), "no shards") {
		t.Fatalf("no shards: %v", err)
	}
	lion := data.Header{Game: "lion", EncoderVersion: 1, Worker: "w"}
	if _, err := data.Write(dir, lion, f.samples[:1]); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Dir(context.Background(), dir, t.TempDir(), f.g, f.rules, f.eval, Options{}, nil); err == nil || !strings.Contains(err.Error(), "lion samples") {
		t.Fatalf("another game's shard: %v", err)
	}
	over := slices.Clone(f.samples[:1])
	p, _ := f.g.New(f.rules)
	for _, m := range []string{"1", "2", "1", "2", "1", "2", "1"} {
		if err := game.Play(p, m); err != nil {
			t.Fatal(err)
		}
	}
	over[0].Position = p.String()
	if _, err := Samples(context.Background(), f.g, f.rules, f.eval, over, Options{}); err == nil || !strings.Contains(err.Error(), "over") {
		t.Fatalf("a finished game's position: %v", err)
	}
	over[0].Position = "not a position"
	if _, err := Samples(context.Background(), f.g, f.rules, f.eval, over, Options{}); err == nil || !strings.Contains(err.Error(), "sample 0") {
		t.Fatalf("a bad position: %v", err)
	}
	if _, err := Samples(context.Background(), f.g, f.rules, f.eval, over, Options{Simulations: -1}); err == nil {
		t.Fatal("negative simulations accepted")
	}
}
