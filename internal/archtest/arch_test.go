// Package archtest checks what links what: the import rules that keep
// the engine, the self-play worker and the run directory free of the
// training stack, and the network core free of gorgonia. The rules are
// checked against the real graph (go list -deps), not a copy of it.
package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tabula-zero/tabula"

// rule forbids packages from linking any package whose path starts with
// one of the prefixes.
type rule struct {
	why       string
	packages  []string // module-relative
	forbidden []string // import path prefixes; a trailing "/" matches a tree
}

var rules = []rule{
	// The one tabula binary links everything (train needs gorgonia), so
	// these rules hold for the packages behind `tabula engine` and
	// `tabula selfplay`: what they run links no training stack, and a
	// slim engine or worker binary stays a main of a few lines away.
	{
		why:       "the engine, the self-play worker and the run directory never link the training stack",
		packages:  []string{"cmd/tabula/engine", "cmd/tabula/selfplay", "rundir"},
		forbidden: []string{"gorgonia.org/"},
	},
	{
		why:       "the network core (exchange format, fast inference, ONNX, checkpoints) is gorgonia-free",
		packages:  []string{"net", "net/infer", "net/gemm", "net/onnx", "checkpoints"},
		forbidden: []string{"gorgonia.org/"},
	},
	{
		why:       "a self-play worker only connects to NATS: it links no server",
		packages:  []string{"cmd/tabula/selfplay"},
		forbidden: []string{"github.com/nats-io/nats-server/"},
	},
	{
		why:       "a config is plain data: configs (and rundir, which freezes it) link no search package",
		packages:  []string{"configs", "rundir"},
		forbidden: []string{module + "/abzero", module + "/alphabeta", module + "/mcts", module + "/rollout"},
	},
	{
		why:       "the learned Xiangqi evaluation at play time (nnue) links no training stack and no search package",
		packages:  []string{"nnue"},
		forbidden: []string{"gorgonia.org/", module + "/alphabeta", module + "/mcts", module + "/net/train"},
	},
	{
		why:       "the shipped models are data: models imports nothing of the project",
		packages:  []string{"models"},
		forbidden: []string{module + "/"},
	},
	{
		why:       "the dashboard reads a run through metrics and charts, not the trainer",
		packages:  []string{"dashboard"},
		forbidden: []string{module + "/trainer"},
	},
}

// graph is the import graph of the module's packages and everything they
// link: package -> its direct imports.
type graph map[string][]string

// loadGraph runs go list -deps over the whole module once.
func loadGraph(t *testing.T) graph {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("archtest: no go tool on PATH, so the import graph cannot be listed")
	}
	cmd := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}}\t{{join .Imports \" \"}}", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.String())
	}
	g := graph{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		pkg, imports, _ := strings.Cut(sc.Text(), "\t")
		g[pkg] = strings.Fields(imports)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("go list -deps output: %v", err)
	}
	return g
}

// matches reports whether path is one of the forbidden prefixes' packages.
func matches(path string, forbidden []string) bool {
	for _, f := range forbidden {
		if path == f || strings.HasPrefix(path, strings.TrimSuffix(f, "/")+"/") {
			return true
		}
	}
	return false
}

// chains returns, for each forbidden package that root links, the
// shortest import chain that brings it in, root first (breadth-first
// over the graph, imports in sorted order, so the chain is stable).
func (g graph) chains(root string, forbidden []string) [][]string {
	parent := map[string]string{root: ""}
	queue := []string{root}
	var found []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p != root && matches(p, forbidden) {
			found = append(found, p)
			continue // one chain per forbidden package is enough
		}
		imports := slices.Clone(g[p])
		slices.Sort(imports)
		for _, q := range imports {
			if _, seen := parent[q]; !seen {
				parent[q] = p
				queue = append(queue, q)
			}
		}
	}
	var out [][]string
	for _, f := range found {
		var chain []string
		for p := f; p != ""; p = parent[p] {
			chain = append(chain, p)
		}
		slices.Reverse(chain)
		out = append(out, chain)
	}
	return out
}

func short(path string) string {
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return rest
	}
	return path
}

func TestImportRules(t *testing.T) {
	g := loadGraph(t)
	for _, r := range rules {
		for _, p := range r.packages {
			root := module + "/" + p
			if _, ok := g[root]; !ok {
				t.Errorf("%s: no such package in the module (rule: %s)", p, r.why)
				continue
			}
			for _, chain := range g.chains(root, r.forbidden) {
				names := make([]string, len(chain))
				for i, c := range chain {
					names[i] = short(c)
				}
				t.Errorf("%s links %s (rule: %s)\n\tchain: %s\n\tthe import that brings it in: %s imports %s",
					p, names[len(names)-1], r.why, strings.Join(names, " -> "), names[0], names[min(1, len(names)-1)])
			}
		}
	}
}

// Only the training package imports gorgonia: net/train and the packages
// under it.
func TestGorgoniaOnlyInNetTrain(t *testing.T) {
	g := loadGraph(t)
	for p, imports := range g {
		rel, ok := strings.CutPrefix(p, module+"/")
		if !ok || rel == "net/train" || strings.HasPrefix(rel, "net/train/") {
			continue
		}
		for _, q := range imports {
			if matches(q, []string{"gorgonia.org/"}) {
				t.Errorf("%s imports %s: only net/train and the packages under it may import gorgonia", rel, q)
			}
		}
	}
}

// The check itself: a chain is found through an indirect import and
// reported root first.
func TestChains(t *testing.T) {
	g := graph{"a": {"c", "b"}, "b": {"x/y"}, "c": {"b"}, "x/y": nil}
	got := fmt.Sprint(g.chains("a", []string{"x/"}))
	if want := "[[a b x/y]]"; got != want {
		t.Errorf("chains = %s, want %s", got, want)
	}
	if got := g.chains("c", []string{"z/"}); len(got) != 0 {
		t.Errorf("chains to a package not linked: %v", got)
	}
}
