package reanalyse

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
)

// tinyRun writes a Connect Four run directory with a frozen config and
// one shard of the start position and its first replies.
func tinyRun(t *testing.T) (run string, samples []data.Sample) {
	t.Helper()
	cfg, err := configs.Preset("connect4")
	if err != nil {
		t.Fatal(err)
	}
	cfg.SelfPlay.BatchSize = 4
	run = t.TempDir()
	if err := os.WriteFile(filepath.Join(run, "config.yaml"), cfg.MarshalSealed(), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := cfg.LookupGame()
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	moves := p.GenerateMoves(nil)
	samples = append(samples, data.Sample{Position: p.String(), Result: 1,
		Policy: []data.PolicyEntry{{Action: g.Encoder.ActionIndex(p, moves[0]), Prob: 1}}})
	for i, m := range moves {
		p.Make(m)
		reply := p.GenerateMoves(nil)[0]
		samples = append(samples, data.Sample{Position: p.String(), Ply: 1, GameID: uint64(i), Result: -1,
			Policy: []data.PolicyEntry{{Action: g.Encoder.ActionIndex(p, reply), Prob: 1}}})
		p.Unmake()
	}
	replay := filepath.Join(run, "replay")
	if err := os.MkdirAll(replay, 0o755); err != nil {
		t.Fatal(err)
	}
	h := data.Header{Game: g.Name, EncoderVersion: g.Encoder.Version(), Worker: "w"}
	if _, err := data.Write(replay, h, samples); err != nil {
		t.Fatal(err)
	}
	return run, samples
}

func runCmd(args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), args, nil, &stdout, &stderr)
	return stdout.String() + stderr.String(), err
}

func TestReanalyseWithTheShippedNetwork(t *testing.T) {
	run, in := tinyRun(t)
	out := filepath.Join(t.TempDir(), "out")
	text, err := runCmd("-run", run, "-checkpoint", "connect4", "-out", out, "-precision", "fp32")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !strings.Contains(text, "1 shards, 8 samples") {
		t.Fatalf("output:\n%s", text)
	}
	shards, _ := filepath.Glob(filepath.Join(out, "*"+data.Ext))
	if len(shards) != 1 {
		t.Fatalf("shards %v", shards)
	}
	_, got, err := data.Read(shards[0])
	if err != nil {
		t.Fatal(err)
	}
	g, _ := game.Lookup("connect4")
	for i, s := range got {
		if s.Position != in[i].Position || s.Result != in[i].Result {
			t.Fatalf("sample %d: %+v from %+v", i, s, in[i])
		}
		p, err := g.Parse(s.Position, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The shipped network's prior is spread over every legal column.
		if len(s.Policy) != len(p.GenerateMoves(nil)) || s.RootValue == 0 {
			t.Fatalf("sample %d: policy %v, value %v", i, s.Policy, s.RootValue)
		}
	}
	// Again: the shard is there, nothing is redone.
	if text, err = runCmd("-run", run, "-checkpoint", "connect4", "-out", out); err != nil || !strings.Contains(text, "0 shards, 0 samples") {
		t.Fatalf("resumed: %v\n%s", err, text)
	}
}

func TestFlagErrors(t *testing.T) {
	run, _ := tinyRun(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-run", run}, "usage"},
		{[]string{"-out", t.TempDir()}, "usage"},
		{[]string{"-run", run, "-out", t.TempDir(), "-sims", "-1"}, "-sims"},
		{[]string{"-run", run, "-out", t.TempDir(), "-precision", "fp16"}, "-precision"},
		{[]string{"-run", t.TempDir(), "-out", t.TempDir()}, "config"},
		{[]string{"-run", run, "-out", t.TempDir()}, "checkpoint"},
		{[]string{"-run", run, "-checkpoint", "lion", "-out", t.TempDir()}, "lion"},
		{[]string{"-run", run, "-checkpoint", "connect4", "-out", filepath.Join(run, "replay")}, "is the input's"},
	} {
		if text, err := runCmd(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %q\n%s", c.args, err, c.want, text)
		}
	}
}
