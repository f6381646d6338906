package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/cmd/tabula/version"
	"github.com/tabula-zero/tabula/net/gemm"
)

// tabula version, -version and --version print the same report: the
// version line, the Go toolchain and the kernels' instruction set as
// net/gemm chose it; -json is the same facts as an object.
func TestVersion(t *testing.T) {
	var texts []string
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		var out, errs bytes.Buffer
		name, err := run(t.Context(), args, nil, &out, &errs)
		if err != nil {
			t.Fatalf("%q: %v (%s)", args, err, errs.String())
		}
		if name != "version" {
			t.Errorf("%q: errors would be named %q", args, name)
		}
		texts = append(texts, out.String())
	}
	if texts[0] != texts[1] || texts[0] != texts[2] {
		t.Errorf("version, -version and --version differ:\n%s---\n%s---\n%s", texts[0], texts[1], texts[2])
	}
	text := texts[0]
	for _, want := range []string{"tabula ", "\nrevision ", "\ngo ", runtime.Version(), "\nkernels ",
		gemm.Default.ISA + ": tiles " + gemm.Default.Name, "sgemm " + gemm.DefaultMicro.Name} {
		if !strings.Contains(text, want) {
			t.Errorf("tabula version lacks %q:\n%s", want, text)
		}
	}

	var out bytes.Buffer
	if _, err := run(t.Context(), []string{"version", "-json"}, nil, &out, &out); err != nil {
		t.Fatal(err)
	}
	var in version.Info
	if err := json.Unmarshal(out.Bytes(), &in); err != nil {
		t.Fatalf("-json: %v\n%s", err, out.String())
	}
	if in.Go != runtime.Version() || in.ISA != gemm.Default.ISA || in.Kernel != gemm.Default.Name ||
		in.AVX2 != gemm.Features().AVX2 || in.Module != "github.com/tabula-zero/tabula" {
		t.Errorf("-json gives %+v", in)
	}

	if _, err := run(t.Context(), []string{"version", "extra"}, nil, &out, &out); err == nil {
		t.Error("tabula version extra: no error")
	}
}

// A binary built in the checkout records its commit: tabula version
// names the revision git names HEAD.
func TestVersionBinaryRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tabula")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build tabula with")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "tabula")
	if out, err := exec.Command(goTool, "build", "-buildvcs=true", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-version", "-json").Output()
	if err != nil {
		t.Fatalf("tabula -version -json: %v", err)
	}
	var in version.Info
	if err := json.Unmarshal(out, &in); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := strings.TrimSpace(string(head)); in.Revision != want || in.Time == "" {
		t.Errorf("revision %q at %q, want %s with its time", in.Revision, in.Time, want)
	}
}
