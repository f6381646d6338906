//go:build unix

package train

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/checkpoints"
	"github.com/tabula-zero/tabula/configs/configstest"
	"github.com/tabula-zero/tabula/rundir"
)

// `tabula train | tee log` and Ctrl-C: tee dies first, the trainer's next write
// goes to a closed pipe, and the trainer must still save what it trained
// and exit cleanly.
func TestClosedPipeThenInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command: not with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "tabula")
	if b, err := exec.Command("go", "build", "-o", bin, "github.com/tabula-zero/tabula/cmd/tabula").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cfg := configstest.TinyConnectFour(t)
	cfg.Training.StepsPerGeneration, cfg.Training.SampleRatio = 100000, 0 // one long generation, no wait for samples
	path := filepath.Join(dir, "tiny.yaml")
	os.WriteFile(path, cfg.Marshal(), 0o644)
	run := filepath.Join(dir, "run")
	cmd := exec.Command(bin, "train", "-config", path, "-run", run)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	t0 := time.Now()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "gen 1 step") {
			break
		}
	}
	t.Logf("training after %v", time.Since(t0))
	stdout.Close()                      // tee is gone
	time.Sleep(1500 * time.Millisecond) // a few progress lines into the closed pipe
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() { t.Logf("stopped after %v", time.Since(t0)) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the trainer did not exit cleanly: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the trainer did not stop within 60s of SIGINT")
	}
	latest, err := rundir.Dir(run).Pointer(rundir.Latest)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoints.Load(latest)
	if err != nil || c.Step < 50 {
		t.Fatalf("saved checkpoint at step %d (%v): the steps before the interrupt are lost", c.Step, err)
	}
}
