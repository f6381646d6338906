package export

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	onnxgo "github.com/owulveryck/onnx-go"
	"github.com/owulveryck/onnx-go/backend/x/gorgonnx"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/internal/testnet"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/onnx"
	"github.com/tabula-zero/tabula/rundir"
)

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(args, &out); err != nil {
		t.Fatalf("run %q: %v", args, err)
	}
	return out.String()
}

func readSamples(t *testing.T, path string) []onnx.Sample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := onnx.ReadSamples(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkModel runs the model file with onnx-go's gorgonia backend on every
// sample (batch 1, a fresh decode each) and compares with the sample's
// outputs.
func checkModel(t *testing.T, modelPath string, samples []onnx.Sample) {
	t.Helper()
	model, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		backend := gorgonnx.NewGraph()
		m := onnxgo.NewModel(backend)
		if err := m.UnmarshalBinary(model); err != nil {
			t.Fatal(err)
		}
		in := tensor.New(tensor.WithShape(1, s.Shape[0], s.Shape[1], s.Shape[2]), tensor.WithBacking(append([]float32(nil), s.Planes...)))
		if err := m.SetInput(0, in); err != nil {
			t.Fatal(err)
		}
		if err := backend.Run(); err != nil {
			t.Fatal(err)
		}
		outs, err := m.GetOutputTensors()
		if err != nil {
			t.Fatal(err)
		}
		pol, val := outs[0].Data().([]float32), outs[1].Data().([]float32)
		if len(pol) != len(s.Policy) || len(val) != 1 {
			t.Fatalf("sample %d: %d logits and %d values", i, len(pol), len(val))
		}
		for a := range pol {
			if math.Abs(float64(pol[a]-s.Policy[a])) > 1e-4 {
				t.Fatalf("sample %d: logit %d = %v, want %v", i, a, pol[a], s.Policy[a])
			}
		}
		if math.Abs(float64(val[0]-s.Value)) > 1e-4 {
			t.Fatalf("sample %d: value %v, want %v", i, val[0], s.Value)
		}
	}
}

func TestNewWithSamples(t *testing.T) {
	dir := t.TempDir()
	model, samples := filepath.Join(dir, "c4.onnx"), filepath.Join(dir, "c4.json")
	out := runOK(t, "-new", "connect4", "-seed", "7", "-o", model, "-samples", "5", "-samples-out", samples)
	if !strings.Contains(out, "wrote "+model+": connect4 network") || !strings.Contains(out, "wrote "+samples+": 5 positions") {
		t.Errorf("output:\n%s", out)
	}
	ss := readSamples(t, samples)
	if len(ss) != 5 {
		t.Fatalf("%d samples", len(ss))
	}
	checkModel(t, model, ss)

	// The model is the fresh preset net of that seed, with its metadata.
	g, _ := game.Lookup("connect4")
	spec, _ := configs.PresetSpec(g.Name)
	p, _ := net.NewParams(spec, 7)
	want, err := onnx.Marshal(p, onnx.Metadata{Extra: map[string]string{"source": "new", "seed": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(model)
	if !bytes.Equal(got, want) {
		t.Error("model differs from onnx.Marshal of the seeded preset network")
	}
	for _, s := range ss {
		pol, val := p.Reference(s.Planes, 1)
		if !slices.Equal(pol, s.Policy) || val[0] != s.Value {
			t.Fatal("sample outputs are not the network's")
		}
	}

	// Same flags, same files; another seed, another network.
	model2, samples2 := filepath.Join(dir, "again.onnx"), filepath.Join(dir, "again.json")
	runOK(t, "-new", "connect4", "-seed", "7", "-o", model2, "-samples", "5", "-samples-out", samples2)
	if !sameFile(t, model, model2) || !sameFile(t, samples, samples2) {
		t.Error("same seed, different files")
	}
	runOK(t, "-new", "connect4", "-seed", "8", "-o", model2)
	if sameFile(t, model, model2) {
		t.Error("different seeds, same model")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		t.Errorf("directory holds %d entries (temporary files left?)", len(entries))
	}
}

func TestCheckpoint(t *testing.T) {
	dir := t.TempDir()
	g, _ := game.Lookup("lion")
	spec, _ := configs.PresetSpec(g.Name)
	p, _ := net.NewParams(spec, 3)
	for i := range p.Input.Mean {
		p.Input.Mean[i] = 0.1 * float32(i%5)
		p.Input.Var[i] = 0.5 + 0.1*float32(i%7)
	}
	ck := filepath.Join(dir, "gen3.ckpt")
	if err := checkpoints.Save(ck, &checkpoints.Checkpoint{Params: p, Step: 1234, Generation: 3}); err != nil {
		t.Fatal(err)
	}
	model, samples := filepath.Join(dir, "lion.onnx"), filepath.Join(dir, "lion.json")
	runOK(t, "-checkpoint", ck, "-o", model, "-samples", "4", "-samples-out", samples, "-seed", "9")
	want, err := onnx.Marshal(p, onnx.Metadata{Extra: map[string]string{"source": "checkpoint gen3.ckpt", "step": "1234", "generation": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(model); !bytes.Equal(got, want) {
		t.Error("model differs from onnx.Marshal of the checkpoint's network")
	}
	ss := readSamples(t, samples)
	wantSamples, err := onnx.Samples(g, p, 4, 9)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ss {
		if ss[i].FEN != wantSamples[i].FEN || !slices.Equal(ss[i].Policy, wantSamples[i].Policy) {
			t.Fatalf("sample %d differs from onnx.Samples", i)
		}
	}
	checkModel(t, model, ss)

	// A run directory exports its best checkpoint, the same model.
	rd := rundir.Dir(filepath.Join(dir, "run"))
	name, err := rd.Create(&checkpoints.Checkpoint{Params: p, Step: 1234, Generation: 3})
	if err != nil {
		t.Fatal(err)
	}
	fromRun := filepath.Join(dir, "run.onnx")
	runOK(t, "-checkpoint", string(rd), "-o", fromRun)
	want, _ = onnx.Marshal(p, onnx.Metadata{Extra: map[string]string{"source": "checkpoint " + name, "step": "1234", "generation": "3"}})
	if got, _ := os.ReadFile(fromRun); !bytes.Equal(got, want) {
		t.Error("the run directory's export differs from its best checkpoint's")
	}
	// A checkpoint of another encoder version is refused.
	p.Spec.EncoderVersion++
	old := filepath.Join(dir, "old.ckpt")
	checkpoints.Save(old, &checkpoints.Checkpoint{Params: p})
	if err := run([]string{"-checkpoint", old, "-o", filepath.Join(dir, "old.onnx")}, io.Discard); err == nil || !strings.Contains(err.Error(), "encoder version") {
		t.Errorf("old encoder: %v", err)
	}
}

// -o FILE.ckpt writes the network as a playing checkpoint: the same
// parameters, step and generation, no optimizer state or RNG; a shipped
// model's name is a -checkpoint too.
func TestPlayingCheckpoint(t *testing.T) {
	dir := t.TempDir()
	spec, _ := configs.PresetSpec("connect4")
	p, _ := net.NewParams(spec, 4)
	src := &checkpoints.Checkpoint{Params: p, Step: 77, Generation: 5, OptimizerStep: 77,
		Optimizer: [][]float32{make([]float32, 10)}, RNG: []byte{1, 2, 3}, Meta: map[string]string{"config": "abc"}}
	ck := filepath.Join(dir, "g5.ckpt")
	if err := checkpoints.Save(ck, src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "connect4.ckpt")
	if text := runOK(t, "-checkpoint", ck, "-o", out); !strings.Contains(text, "sha256 ") {
		t.Errorf("no sha256 in %q", text)
	}
	c, err := checkpoints.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if c.Step != 77 || c.Generation != 5 || len(c.Optimizer) != 0 || len(c.RNG) != 0 || c.Meta["config"] != "abc" || c.Meta["source"] != "checkpoint g5.ckpt" {
		t.Errorf("playing checkpoint: step %d generation %d, %d optimizer buffers, %d RNG bytes, meta %v", c.Step, c.Generation, len(c.Optimizer), len(c.RNG), c.Meta)
	}
	for i, l := range p.Layers() {
		if !slices.Equal(l.W, c.Params.Layers()[i].W) || !slices.Equal(l.Var, c.Params.Layers()[i].Var) {
			t.Fatalf("layer %d differs", i)
		}
	}
	for i, d := range p.Denses() {
		if !slices.Equal(d.W, c.Params.Denses()[i].W) || !slices.Equal(d.B, c.Params.Denses()[i].B) {
			t.Fatalf("dense layer %d differs", i)
		}
	}
	shipped := filepath.Join(dir, "xiangqi.onnx")
	if text := runOK(t, "-checkpoint", "xiangqi", "-o", shipped); !strings.Contains(text, "xiangqi network") {
		t.Errorf("the shipped xiangqi model: %q", text)
	}
}

// A network of Xiangqi's encoder 3 exports with samples of its own
// 21-plane encoding, and the model (run by onnx-go) gives the native
// outputs on them.
func TestCheckpointOfEncoder3(t *testing.T) {
	dir := t.TempDir()
	ck := testnet.CheckpointEncoder(t, dir, "xiangqi", 3, 5)
	model, samples := filepath.Join(dir, "xq3.onnx"), filepath.Join(dir, "xq3.json")
	runOK(t, "-checkpoint", ck, "-o", model, "-samples", "2", "-samples-out", samples)
	ss := readSamples(t, samples)
	for i, s := range ss {
		if s.Shape[0] != 21 || len(s.Planes) != 21*10*9 {
			t.Fatalf("sample %d: shape %v, %d planes values; want 21 planes", i, s.Shape, len(s.Planes))
		}
	}
	checkModel(t, model, ss)
}

func TestReplacesOutput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.onnx")
	if err := os.WriteFile(model, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, "-new", "lion", "-o", model)
	if b, _ := os.ReadFile(model); len(b) < 1000 {
		t.Errorf("model not replaced (%d bytes)", len(b))
	}
}

func TestHelp(t *testing.T) {
	out := runOK(t, "-h")
	for _, want := range []string{"usage: tabula export", "-checkpoint FILE", "-samples-out", "-seed"} {
		if !strings.Contains(out, want) {
			t.Errorf("usage lacks %q:\n%s", want, out)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	model, samples := filepath.Join(dir, "m.onnx"), filepath.Join(dir, "s.json")
	garbage := filepath.Join(dir, "garbage.ckpt")
	if err := os.WriteFile(garbage, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", model}, "exactly one of -new GAME and -checkpoint FILE"},
		{[]string{"-new", "lion", "-checkpoint", garbage, "-o", model}, "exactly one of"},
		{[]string{"-new", "lion"}, "-o FILE is required"},
		{[]string{"-new", "lion", "-o", model, "extra"}, `unexpected argument "extra"`},
		{[]string{"-new", "lion", "-o", model, "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"-new", "lion", "-o", model, "-seed", "-3"}, "invalid value"},
		{[]string{"-new", "lion", "-o", model, "-samples", "-1", "-samples-out", samples}, "-samples -1 out of range"},
		{[]string{"-new", "lion", "-o", model, "-samples", "3"}, "-samples needs -samples-out"},
		{[]string{"-new", "lion", "-o", model, "-samples-out", samples}, "-samples-out needs -samples N"},
		{[]string{"-new", "lion", "-o", model, "-samples", "3", "-samples-out", model}, "same file"},
		{[]string{"-new", "chess", "-o", model}, `unknown game "chess"`},
		{[]string{"-checkpoint", filepath.Join(dir, "missing.ckpt"), "-o", model}, "no such file"},
		{[]string{"-checkpoint", garbage, "-o", model}, "garbage.ckpt"},
		{[]string{"-new", "lion", "-o", filepath.Join(dir, "no", "such", "dir", "m.onnx")}, "no such file or directory"},
	} {
		var out bytes.Buffer
		err := run(tc.args, &out)
		if err == nil || !strings.HasPrefix(err.Error(), "export: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one starting with \"export: \" and containing %q", tc.args, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed runs left files: %d entries", len(entries))
	}
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// Export writes the files it is asked for and nothing else: not into the
// working directory (a shipped model's name is not a path there), and no
// temporary file left beside the outputs.
func TestWritesOnlyWhereAsked(t *testing.T) {
	cwd, out := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	runOK(t, "-checkpoint", "connect4", "-o", filepath.Join(out, "connect4.onnx"), "-samples", "2", "-samples-out", filepath.Join(out, "samples.json"))
	runOK(t, "-new", "lion", "-o", filepath.Join(out, "lion.ckpt"))
	if entries, err := os.ReadDir(cwd); err != nil || len(entries) != 0 {
		t.Errorf("the working directory holds %v (%v)", entries, err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"connect4.onnx", "lion.ckpt", "samples.json"}; !slices.Equal(names, want) {
		t.Errorf("the output directory holds %v, want %v", names, want)
	}
}
