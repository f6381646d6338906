package tictactoe_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	onnxgo "github.com/owulveryck/onnx-go"
	"github.com/owulveryck/onnx-go/backend/x/gorgonnx"
	"gorgonia.org/tensor"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/cmd/tabula/arena"
	"github.com/tabula-zero/tabula/cmd/tabula/engine"
	"github.com/tabula-zero/tabula/cmd/tabula/export"
	"github.com/tabula-zero/tabula/cmd/tabula/train"
	"github.com/tabula-zero/tabula/dashboard"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest/tictactoe"
	"github.com/tabula-zero/tabula/net/onnx"
	"github.com/tabula-zero/tabula/rundir"
)

// A game that is only a package and its registration goes through
// tabula as the shipped games do: train runs a generation from the preset
// the game carries (-game tictactoe), the arena matches the run's network
// against alpha-beta, the engine speaks UCI for it (alpha-beta finds the
// one block, MCTS with the run's network plays a legal move), export
// writes its network as ONNX that onnx-go runs to the native outputs, and
// the Play page's API offers it and plays it to the end.
func TestThroughTabula(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a network")
	}
	ctx := t.Context()
	dir := t.TempDir()
	run := filepath.Join(dir, "run")

	// train: one generation from the game's own preset.
	var out bytes.Buffer
	if err := train.Run(ctx, []string{"-game", tictactoe.Name, "-run", run, "-max-generations", "1"}, nil, &out, &out); err != nil {
		t.Fatalf("train: %v\n%s", err, out.String())
	}
	best, err := rundir.Dir(run).Pointer(rundir.Best)
	if err != nil {
		t.Fatalf("no best network: %v\n%s", err, out.String())
	}
	ck, err := checkpoints.Load(best)
	if err != nil || ck.Params.Spec.Game != tictactoe.Name {
		t.Fatalf("best %s: %v", best, err)
	}

	// arena: the run's network against perfect play never wins (one
	// random first move, which loses nothing, opens each pair).
	out.Reset()
	var errb bytes.Buffer
	if err := arena.Run(ctx, []string{"-variant", tictactoe.Name, "-a", "net:" + run + ",sims=8", "-b", "ab:depth=9", "-games", "4", "-opening-plies", "1", "-json"}, nil, &out, &errb); err != nil {
		t.Fatalf("arena: %v\n%s%s", err, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res struct{ Games, Wins, Draws, Losses int }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("arena's result %q: %v", lines[len(lines)-1], err)
	}
	if res.Games != 4 || res.Wins != 0 || res.Draws+res.Losses != 4 {
		t.Errorf("the network against perfect play: %+v", res)
	}

	// engine: UCI with UCI_Variant tictactoe.
	uciSession(t, ctx, run)

	// export: ONNX, run by onnx-go on the native samples.
	model, samples := filepath.Join(dir, "ttt.onnx"), filepath.Join(dir, "ttt.json")
	out.Reset()
	if err := export.Run(ctx, []string{"-checkpoint", run, "-o", model, "-samples", "3", "-samples-out", samples}, nil, &out, &out); err != nil {
		t.Fatalf("export: %v\n%s", err, out.String())
	}
	checkONNX(t, model, samples)

	// The Play page's API.
	playPage(t, run)
}

// uciSession drives the engine over UCI: alpha-beta, to depth 9, blocks
// X's row on rank 3 at c3 (every other reply loses at once); MCTS with
// the run's network answers a legal move.
func uciSession(t *testing.T, ctx context.Context, run string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, nil, inR, outW, io.Discard); outW.Close() }()
	// The output is read as it comes, so that the engine never waits on
	// it while the test writes commands.
	lines := make(chan string, 4096)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("engine input: %v", err)
		}
	}
	bestmove := func() string {
		timeout := time.After(2 * time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("engine output ended without bestmove")
				}
				if mv, ok := strings.CutPrefix(l, "bestmove "); ok {
					return strings.Fields(mv)[0]
				}
				if strings.Contains(l, "error") {
					t.Errorf("engine: %s", l)
				}
			case <-timeout:
				t.Fatal("no bestmove within two minutes")
			}
		}
	}
	send("uci")
	send("setoption name UCI_Variant value " + tictactoe.Name)
	send("position startpos moves a3 b2 b3")
	send("go depth 9")
	if mv := bestmove(); mv != "c3" {
		t.Errorf("alpha-beta answered %s to X's two on rank 3, want c3", mv)
	}
	send("setoption name Network value " + run)
	send("setoption name Mover value mcts")
	send("position startpos moves b2")
	send("go nodes 16")
	mv := bestmove()
	g, _ := game.Lookup(tictactoe.Name)
	p, _ := g.New(nil)
	if err := game.Play(p, "b2", mv); err != nil {
		t.Errorf("MCTS answered %q: %v", mv, err)
	}
	send("quit")
	if err := <-done; err != nil {
		t.Errorf("engine: %v", err)
	}
}

// checkONNX runs the model on each sample with onnx-go's gorgonia backend
// and compares with the native network's outputs the sample holds.
func checkONNX(t *testing.T, modelPath, samplesPath string) {
	t.Helper()
	model, err := os.ReadFile(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(samplesPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ss, err := onnx.ReadSamples(f)
	if err != nil || len(ss) != 3 {
		t.Fatalf("samples: %d, %v", len(ss), err)
	}
	for i, s := range ss {
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
		if len(pol) != 9 || len(s.Policy) != 9 || len(val) != 1 {
			t.Fatalf("sample %d: %d logits (native %d) and %d values", i, len(pol), len(s.Policy), len(val))
		}
		for a := range pol {
			if math.Abs(float64(pol[a]-s.Policy[a])) > 1e-4 {
				t.Errorf("sample %d: logit %d = %v, want %v", i, a, pol[a], s.Policy[a])
			}
		}
		if math.Abs(float64(val[0]-s.Value)) > 1e-4 {
			t.Errorf("sample %d: value %v, want %v", i, val[0], s.Value)
		}
	}
}

// playPage asks the Play API for its games (tic-tac-toe among them, with
// its depth bound), plays a game against alpha-beta to the end (perfect
// play does not lose it) and opens one against the run's network.
func playPage(t *testing.T, run string) {
	t.Helper()
	s := dashboard.New("", nil, nil, nil)
	s.SetPlay(dashboard.PlayOptions{Records: t.TempDir(), Networks: []string{run}})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	post := func(path, body string) dashboard.PlayState {
		t.Helper()
		r, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("POST %s %s: %d %s", path, body, r.StatusCode, b)
		}
		var st dashboard.PlayState
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	r, err := http.Get(srv.URL + "/api/play/options")
	if err != nil {
		t.Fatal(err)
	}
	var choices dashboard.PlayChoices
	err = json.NewDecoder(r.Body).Decode(&choices)
	r.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	offered := false
	for _, c := range choices.Games {
		offered = offered || c.Name == tictactoe.Name
	}
	if !offered || choices.MaxDepth[tictactoe.Name] != 9 {
		t.Fatalf("the Play page's games %+v, depths %v", choices.Games, choices.MaxDepth)
	}

	st := post("/api/play/new", `{"game":"tictactoe","opponent":"ab","depth":9,"side":"first"}`)
	if st.Board.Files != 3 || st.Board.Ranks != 3 || len(st.Legal) != 9 {
		t.Fatalf("new game %+v", st)
	}
	deadline := time.Now().Add(time.Minute)
	for !st.Over && time.Now().Before(deadline) {
		if st.ToMove != "human" {
			t.Fatalf("the engine did not reply: %+v", st)
		}
		st = post("/api/play/games/"+st.ID+"/move", `{"move":"`+st.Legal[0]+`"}`)
	}
	if !st.Over || st.Winner == "human" {
		t.Errorf("the game against perfect play: %+v", st)
	}
	st = post("/api/play/new", `{"game":"tictactoe","opponent":"net","network":"`+run+`","sims":8,"side":"second"}`)
	g, _ := game.Lookup(tictactoe.Name)
	p, _ := g.New(nil)
	if len(st.Moves) != 1 || game.Play(p, st.Moves...) != nil {
		t.Errorf("the network's first move: %+v", st)
	}
}
