package onnx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/net"
)

// ortVersion is the onnxruntime-node release the test installs (pinned in
// testdata/package.json too).
const ortVersion = "1.30.0"

// ortEnvDir names a directory whose node_modules holds onnxruntime-node;
// without it the test uses (and if needed installs into) testdata.
const ortEnvDir = "TABULA_ORT_DIR"

// ortNoInstall, when set, stops the test from running npm install.
const ortNoInstall = "TABULA_ORT_NO_INSTALL"

// findORT returns the node binary and the environment that lets
// testdata/check_ort.js load onnxruntime-node, or skips the test saying
// what is missing. It installs the pinned onnxruntime-node into
// testdata/node_modules when npm and the registry are reachable.
func findORT(t *testing.T) (node string, env []string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found in PATH: onnxruntime-node check skipped")
	}
	env = os.Environ()
	if dir := os.Getenv(ortEnvDir); dir != "" {
		mods := filepath.Join(dir, "node_modules")
		if _, err := os.Stat(filepath.Join(mods, "onnxruntime-node", "package.json")); err != nil {
			t.Fatalf("%s=%s but %s has no onnxruntime-node: %v", ortEnvDir, dir, mods, err)
		}
		return node, append(env, "NODE_PATH="+mods)
	}
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(testdata, "node_modules", "onnxruntime-node", "package.json")
	if _, err := os.Stat(pkg); err == nil {
		logVersion(t, pkg)
		return node, env
	}
	hint := "(cd net/onnx/testdata && npm install --ignore-scripts --no-package-lock) or set " + ortEnvDir
	if os.Getenv(ortNoInstall) != "" {
		t.Skipf("onnxruntime-node not installed and %s is set: skipped; install it with %s", ortNoInstall, hint)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("node found but onnxruntime-node is not installed and npm is missing: skipped; install it with %s", hint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "view", "onnxruntime-node@"+ortVersion, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), ortVersion) {
		t.Skipf("onnxruntime-node not installed and the npm registry is unreachable (%v): skipped\n%s", err, tail(out))
	}
	t.Logf("installing onnxruntime-node@%s into %s", ortVersion, testdata)
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock")
	cmd.Dir = testdata
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm install onnxruntime-node@%s failed (%v): skipped\n%s", ortVersion, err, tail(out))
	}
	if _, err := os.Stat(pkg); err != nil {
		t.Fatalf("npm install succeeded but %s is missing", pkg)
	}
	logVersion(t, pkg)
	return node, env
}

func logVersion(t *testing.T, pkg string) {
	b, err := os.ReadFile(pkg)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Version string }
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", pkg, err)
	}
	if v.Version != ortVersion {
		t.Logf("note: using onnxruntime-node %s (the pinned version is %s)", v.Version, ortVersion)
	}
}

func tail(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return strings.Join(lines, "\n")
}

// runORT exports p, writes samples and runs testdata/check_ort.js on them.
func runORT(t *testing.T, node string, env []string, p *net.Params, samples []Sample) {
	t.Helper()
	dir := t.TempDir()
	modelPath, samplesPath := filepath.Join(dir, "model.onnx"), filepath.Join(dir, "samples.json")
	var model, js bytes.Buffer
	if err := Export(&model, p, Metadata{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteSamples(&js, samples); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(modelPath, model.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(samplesPath, js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "check_ort.js"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, modelPath, samplesPath, "1e-4")
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("onnxruntime-node check failed: %v\n%s%s", err, stdout.String(), stderr.String())
		}
		t.Fatal(err)
	}
	var res struct {
		OK         bool
		Samples    int
		MaxAbsDiff float64
		ORT        string
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &res); err != nil || !res.OK || res.Samples != len(samples) {
		t.Fatalf("unexpected output from check_ort.js (%v):\n%s%s", err, stdout.String(), stderr.String())
	}
	t.Logf("onnxruntime-node %s: %d samples at batch 1 and 3, max abs difference %.3g", res.ORT, res.Samples, res.MaxAbsDiff)
}

func TestOnnxruntimeRandomNet(t *testing.T) {
	node, env := findORT(t)
	p := randomParams(t, tinySpec, 11)
	runORT(t, node, env, p, randomSamples(p, 7, 12))
}

// The from-to head's Reshape, Transpose and batched MatMul on a
// non-square board (a swapped from and to or a transposed W shows).
func TestOnnxruntimeFromTo(t *testing.T) {
	node, env := findORT(t)
	p := randomParams(t, fromToSpec(), 13)
	runORT(t, node, env, p, randomSamples(p, 7, 14))
}

// The WDL head's Softmax output and its value W - L, on every game's
// preset shape.
func TestOnnxruntimeWDL(t *testing.T) {
	node, env := findORT(t)
	for i, name := range game.Names() {
		t.Run(name, func(t *testing.T) {
			g, p := presetWDL(t, name, uint64(40+i))
			samples, err := Samples(g, p, 5, uint64(50+i))
			if err != nil {
				t.Fatal(err)
			}
			if len(samples[0].WDL) != 3 {
				t.Fatalf("samples of a WDL network carry %d probabilities", len(samples[0].WDL))
			}
			runORT(t, node, env, p, samples)
		})
	}
}

func TestOnnxruntimePresets(t *testing.T) {
	node, env := findORT(t)
	for i, name := range game.Names() {
		t.Run(name, func(t *testing.T) {
			g, p := preset(t, name, uint64(20+i))
			samples, err := Samples(g, p, 5, uint64(30+i))
			if err != nil {
				t.Fatal(err)
			}
			runORT(t, node, env, p, samples)
		})
	}
}
