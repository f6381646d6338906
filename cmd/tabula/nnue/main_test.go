package nnue

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/internal/cliflag/cliflagtest"
	"github.com/tabula-zero/tabula/nnue"
	"github.com/tabula-zero/tabula/nnue/nnuedata"
)

func runCmd(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var out, log bytes.Buffer
	err = Run(ctx, args, nil, &out, &log)
	return out.String(), log.String(), err
}

// tabula nnue gen end to end: the shards and metrics in the directory, a
// line a shard, the summary; run again with a higher target it goes on;
// at the target it says there is nothing to do.
func TestGen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	args := []string{"gen", "-out", dir, "-depth", "1", "-hash", "1", "-threads", "2", "-shard-positions", "60", "-seed", "3"}
	out, log, err := runCmd(t.Context(), append(args, "-positions", "100")...)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, log, out)
	}
	for _, want := range []string{"holds 0 positions; to 100 at depth 1 a move, classical evaluation, 2 threads, seed 3", "shard 0: ", "positions/s", "games/s"} {
		if !strings.Contains(log, want) {
			t.Errorf("stderr lacks %q:\n%s", want, log)
		}
	}
	for _, want := range []string{"games at depth 1 (classical evaluation)", "results for Red: ", "plies a game", "this sitting: ", "nodes a CPU-second"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	shards, n, err := nnuedata.Count(dir)
	if err != nil || shards != 2 || n < 100 {
		t.Fatalf("%d shards, %d records, %v", shards, n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, nnuedata.MetricsFile)); err != nil {
		t.Fatal(err)
	}
	out, log, err = runCmd(t.Context(), append(args, "-positions", "200")...)
	if err != nil || !strings.Contains(log, "holds "+strconv.Itoa(n)+" positions; to 200") {
		t.Fatalf("resumed: %v\n%s%s", err, log, out)
	}
	if _, m, _ := nnuedata.Count(dir); m < 200 {
		t.Fatalf("%d records after going on to 200", m)
	}
	out, _, err = runCmd(t.Context(), append(args, "-positions", "200")...)
	if err != nil || !strings.Contains(out, "nothing to do") {
		t.Fatalf("at the target: %v\n%s", err, out)
	}
	// Interrupted before a shard is full: nothing written, and it says
	// how to go on.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	out, _, err = runCmd(ctx, "gen", "-out", t.TempDir(), "-depth", "1", "-positions", "50")
	if err != nil || !strings.Contains(out, "the same command goes on") {
		t.Fatalf("interrupted: %v\n%s", err, out)
	}
}

// -eval FILE: the games are searched with a network, named in the shards
// by its checksum; the directory then refuses the classical evaluation.
func TestGenWithNetwork(t *testing.T) {
	dir := t.TempDir()
	net := filepath.Join(dir, "random.nnue")
	if err := nnue.NewRandom(1).Save(net); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	args := []string{"gen", "-out", data, "-depth", "1", "-hash", "1", "-threads", "1", "-shard-positions", "30", "-positions", "30"}
	if out, log, err := runCmd(t.Context(), append(args, "-eval", net)...); err != nil || !strings.Contains(log, "nnue 256x2-16-32-1 sha256:") {
		t.Fatalf("%v\n%s%s", err, log, out)
	}
	var eval string
	if err := nnuedata.ReadDir(data, func(h *nnuedata.Header, _ []nnuedata.Record) error { eval = h.Eval; return nil }); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(eval, "nnue 256x2-16-32-1 sha256:") {
		t.Fatalf("shards name the evaluation %q", eval)
	}
	if _, _, err := runCmd(t.Context(), append(args, "-positions", "60")...); err == nil || !strings.Contains(err.Error(), eval) {
		t.Fatalf("classical into the network's directory: %v", err)
	}
	os.WriteFile(net, []byte("TABNNUE\x00 not a network"), 0o644)
	if _, _, err := runCmd(t.Context(), append(args, "-eval", net)...); err == nil || !strings.Contains(err.Error(), net) {
		t.Fatalf("a damaged network: %v", err)
	}
}

// -eval material: the games are searched by material alone, named so in
// the log, the summary and the shards.
func TestGenWithMaterial(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	args := []string{"gen", "-out", data, "-depth", "1", "-hash", "1", "-threads", "2", "-shard-positions", "100", "-positions", "300", "-seed", "5", "-eval", "material"}
	out, log, err := runCmd(t.Context(), args...)
	if err != nil || !strings.Contains(log, "to 300 at depth 1 a move, material evaluation") || !strings.Contains(out, "(material evaluation)") {
		t.Fatalf("%v\n%s%s", err, log, out)
	}
	var eval string
	n := 0
	if err := nnuedata.ReadDir(data, func(h *nnuedata.Header, recs []nnuedata.Record) error {
		eval = h.Eval
		n += len(recs)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if eval != "material" || n < 300 {
		t.Fatalf("shards of %d positions name the evaluation %q", n, eval)
	}
}

// -eval learned: the games are searched with the shipped network, named
// in the shards as the same file would be (its sizes and checksum), so
// the file models/xiangqi.nnue goes on in the same directory.
func TestGenWithShippedNetwork(t *testing.T) {
	net, m, err := nnue.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	args := []string{"gen", "-out", data, "-depth", "1", "-hash", "1", "-threads", "1", "-shard-positions", "30"}
	want := "nnue " + net.Sizes().String() + " sha256:" + m.SHA256[:16]
	if out, log, err := runCmd(t.Context(), append(args, "-positions", "30", "-eval", "learned")...); err != nil || !strings.Contains(log, want) {
		t.Fatalf("%v (want %q)\n%s%s", err, want, log, out)
	}
	var eval string
	if err := nnuedata.ReadDir(data, func(h *nnuedata.Header, _ []nnuedata.Record) error { eval = h.Eval; return nil }); err != nil {
		t.Fatal(err)
	}
	if eval != want {
		t.Fatalf("shards name the evaluation %q, want %q", eval, want)
	}
	file := filepath.Join("..", "..", "..", filepath.FromSlash(m.String()))
	if out, log, err := runCmd(t.Context(), append(args, "-positions", "60", "-eval", file)...); err != nil {
		t.Fatalf("the shipped file %s after -eval learned: %v\n%s%s", file, err, log, out)
	}
	if _, _, err := runCmd(t.Context(), append(args, "-positions", "90")...); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("classical into the shipped network's directory: %v", err)
	}
}

func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	openings := filepath.Join(dir, "openings.txt")
	os.WriteFile(openings, []byte("moves h3e3 zz99\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no subcommand"},
		{[]string{"play"}, `unknown subcommand "play"`},
		{[]string{"gen"}, "usage: tabula nnue gen"},
		{[]string{"gen", "-out", dir}, "usage"},
		{[]string{"gen", "-positions", "10"}, "usage"},
		{[]string{"gen", "-out", dir, "-positions", "10", "extra"}, "usage"},
		{[]string{"gen", "-out", dir, "-positions", "-5"}, "-positions -5"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-nodes", "0"}, "give a budget"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-nodes", "-3"}, "-nodes -3"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-depth", "64"}, "-depth 64"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-threads", "0"}, "-threads 0"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-hash", "0"}, "-hash 0"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-random-min", "8", "-random-max", "4"}, "-random-max 4"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-random-move", "1.5"}, "-random-move 1.5"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-resign-plies", "-1"}, "-resign-plies -1"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-shard-positions", "0"}, "-shard-positions 0"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-max-time", "-1s"}, "-max-time -1s"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-eval", filepath.Join(dir, "none.nnue")}, "none.nnue"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-eval", "materiel"}, "-eval materiel: not classical, material or learned, nor a network file"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-openings", filepath.Join(dir, "none.txt")}, "-openings"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-openings", openings}, "zz99"},
		{[]string{"gen", "-out", dir, "-positions", "10", "-depth", "x"}, "invalid value"},
	} {
		if _, log, err := runCmd(t.Context(), c.args...); err == nil || !strings.Contains(err.Error()+log, c.want) {
			t.Errorf("%q: %v, want an error naming %q\n%s", c.args, err, c.want, log)
		}
	}
	if list, _ := nnuedata.List(dir); len(list) > 0 {
		t.Errorf("a refused command wrote %d shards", len(list))
	}
}

func TestHelp(t *testing.T) {
	out, _, err := runCmd(t.Context(), "-h")
	cliflagtest.Help(t, err, out, "usage: tabula nnue SUBCOMMAND", "gen ")
	_, log, err := runCmd(t.Context(), "gen", "-h")
	cliflagtest.Help(t, err, log, "usage: tabula nnue gen", "-positions", "-nodes", "-depth", "-threads", "-seed", "-openings", "-eval", "docs/nnue.md")
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
}
