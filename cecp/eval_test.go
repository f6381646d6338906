package cecp_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/nnue"
)

// The engine's Eval option is an xboard combo and EvalFile a string:
// over CECP, Eval=learned alone plays the shipped network, and EvalFile
// another.
func TestEvalOption(t *testing.T) {
	file := filepath.Join(t.TempDir(), "random.nnue")
	if err := nnue.NewRandom(1).Save(file); err != nil {
		t.Fatal(err)
	}
	e := ours(t)
	e.send(t, "xboard", "protover 2")
	var features []string
	e.until(t, 5*time.Second, func(l string) bool {
		features = append(features, l)
		return l == "feature done=1"
	})
	for _, want := range []string{`feature option="Eval -combo classical /// *learned"`, `feature option="EvalFile -string "`,
		`feature option="UCI_LimitStrength -check 0"`, `feature option="UCI_Elo -spin 0 -400 1000"`} {
		if !strings.Contains(strings.Join(features, "\n"), want) {
			t.Errorf("no %s among\n%s", want, strings.Join(features, "\n"))
		}
	}
	// xboard's check values: 1 and 0.
	e.send(t, "option UCI_LimitStrength=1", "option UCI_LimitStrength=0", "ping 2")
	if l := e.until(t, 10*time.Second, func(string) bool { return true }); l != "pong 2" {
		t.Errorf("after UCI_LimitStrength=1, =0: got %q, want \"pong 2\"", l)
	}
	// Eval=learned without EvalFile searches the shipped network: no error.
	e.send(t, "new", "variant xiangqi", "sd 2", "option Eval=learned", "ping 1")
	if l := e.until(t, 10*time.Second, func(string) bool { return true }); l != "pong 1" {
		t.Errorf("after Eval=learned: got %q, want \"pong 1\"", l)
	}
	e.send(t, "usermove h2e2")
	if l := e.until(t, 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "move ") || strings.HasPrefix(l, "Error") }); !strings.HasPrefix(l, "move ") {
		t.Errorf("with the shipped learned evaluation: %q", l)
	}
	e.send(t, "option EvalFile="+file, "ping 2")
	if l := e.until(t, 10*time.Second, func(string) bool { return true }); l != "pong 2" {
		t.Errorf("after EvalFile: got %q, want \"pong 2\"", l)
	}
	e.send(t, "usermove i0i1")
	if l := e.until(t, 30*time.Second, func(l string) bool { return strings.HasPrefix(l, "move ") || strings.HasPrefix(l, "Error") }); !strings.HasPrefix(l, "move ") {
		t.Errorf("with the learned evaluation from EvalFile: %q", l)
	}
}
