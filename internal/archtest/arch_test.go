// Package archtest checks what links what: the import rules that keep
// the engine, the self-play worker and the run directory free of the
// training stack, the network core free of gorgonia, the games free of
// search and networks, the searches free of networks. The rules are
// checked against the real graph (go list -deps), not a copy of it.
package archtest

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
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
	packages  []string // module-relative; a trailing "/..." is the package and every one below it
	forbidden []string // import paths, each with the packages below it ("x" takes x and x/...; "x/" only those below)
}

// The packages the rules call search and network packages, each with
// what is added below it.
var (
	searchPackages  = []string{module + "/alphabeta", module + "/mcts", module + "/abzero", module + "/rollout"}
	networkPackages = []string{module + "/net", module + "/checkpoints", module + "/nnue", module + "/models"}
)

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
	{
		// A game is rules, notation and encoding; the players built on it
		// live above it, so a new game or a new search joins without the
		// other.
		why:       "a game links no search and no network: searches and networks are built on games, not in them",
		packages:  []string{"game/..."},
		forbidden: slices.Concat(searchPackages, networkPackages),
	},
	{
		// mcts runs any Forwarder and alpha-beta any evaluation the
		// position gives, so the same search plays every network and
		// evaluation, and a test drives it without one.
		why:       "the searches link no network: a network reaches them through an interface (mcts.Forwarder, the position's Evaluate)",
		packages:  []string{"mcts", "alphabeta/...", "rollout", "abzero"},
		forbidden: networkPackages,
	},
	{
		// The player layer is what the arena, the engine and the Play page
		// build their players from, so it sits below all three and links
		// none of them, and it is linked by the engine and the worker.
		why:       "the player layer links no arena, engine, dashboard or training stack",
		packages:  []string{"player"},
		forbidden: []string{module + "/arena", module + "/engine", module + "/dashboard", module + "/trainer", module + "/net/train", "gorgonia.org/"},
	},
	{
		why:       "the engine plays through its own movers, not the arena's players or match runner",
		packages:  []string{"engine", "cmd/tabula/engine", "uci", "cecp"},
		forbidden: []string{module + "/arena"},
	},
	{
		// A remote worker takes the run's config and networks from the hub
		// and sends shards back; what trains them stays on the trainer.
		why:       "a self-play worker, remote or local, links no trainer",
		packages:  []string{"cmd/tabula/selfplay", "remote", "natsrun", "selfplay"},
		forbidden: []string{module + "/trainer", module + "/net/train"},
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

// expand returns the module's packages a rule's entry names, sorted:
// the package itself, or with a trailing "/..." the package and every
// package below it.
func (g graph) expand(entry string) []string {
	tree, isTree := strings.CutSuffix(entry, "/...")
	if !isTree {
		if _, ok := g[module+"/"+entry]; !ok {
			return nil
		}
		return []string{entry}
	}
	var out []string
	for p := range g {
		if rel, ok := strings.CutPrefix(p, module+"/"); ok && (rel == tree || strings.HasPrefix(rel, tree+"/")) {
			out = append(out, rel)
		}
	}
	slices.Sort(out)
	return out
}

// violations lists, one message each, the forbidden packages the rules'
// packages link in g, with the chain that brings each in, and the rule
// entries that name no package.
func (g graph) violations(rules []rule) []string {
	var out []string
	for _, r := range rules {
		for _, entry := range r.packages {
			pkgs := g.expand(entry)
			if len(pkgs) == 0 {
				out = append(out, fmt.Sprintf("%s: no such package in the module (rule: %s)", entry, r.why))
				continue
			}
			for _, p := range pkgs {
				for _, chain := range g.chains(module+"/"+p, r.forbidden) {
					names := make([]string, len(chain))
					for i, c := range chain {
						names[i] = short(c)
					}
					out = append(out, fmt.Sprintf("%s links %s (rule: %s)\n\tchain: %s\n\tthe import that brings it in: %s imports %s",
						p, names[len(names)-1], r.why, strings.Join(names, " -> "), names[0], names[min(1, len(names)-1)]))
				}
			}
		}
	}
	return out
}

func TestImportRules(t *testing.T) {
	g := loadGraph(t)
	for _, v := range g.violations(rules) {
		t.Error(v)
	}
}

// firstMatch is the first package of g, in sorted order, that the
// forbidden prefix f takes in; "" when there is none.
func (g graph) firstMatch(f string) string {
	var first string
	for p := range g {
		if matches(p, []string{f}) && (first == "" || p < first) {
			first = p
		}
	}
	return first
}

// A rule whose forbidden prefix names nothing the module links would
// hold whatever the code did (a misspelt or moved package): every prefix
// must match a package of the graph.
func TestRulesForbidWhatExists(t *testing.T) {
	g := loadGraph(t)
	for _, r := range rules {
		for _, f := range r.forbidden {
			if g.firstMatch(f) == "" {
				t.Errorf("rule %q forbids %s, which no package of the module's graph is: the rule could never fail", r.why, f)
			}
		}
	}
}

// Each rule fails once one of its packages imports what it forbids: an
// import of a package of each forbidden tree added to the real graph,
// from each of the rule's packages, is reported with the package that
// made it.
func TestRulesCatchAViolation(t *testing.T) {
	g := loadGraph(t)
	for _, r := range rules {
		for _, entry := range r.packages {
			for _, p := range g.expand(entry) {
				for _, f := range r.forbidden {
					target := g.firstMatch(f)
					if target == "" {
						continue // TestRulesForbidWhatExists reports it
					}
					bad := maps.Clone(g)
					bad[module+"/"+p] = append(slices.Clone(g[module+"/"+p]), target)
					want := fmt.Sprintf("%s links %s (rule: %s)", p, short(target), r.why)
					if !slices.ContainsFunc(bad.violations([]rule{r}), func(v string) bool { return strings.HasPrefix(v, want) }) {
						t.Errorf("%s importing %s is not reported by the rule %q", p, short(target), r.why)
					}
				}
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

// A tree entry takes in the package and those below it, not a package
// that only shares its prefix; an entry that names nothing is reported.
func TestExpand(t *testing.T) {
	g := graph{module + "/game": nil, module + "/game/a": nil, module + "/game/a/b": nil, module + "/gamex": nil, module + "/mcts": nil}
	if got, want := fmt.Sprint(g.expand("game/...")), "[game game/a game/a/b]"; got != want {
		t.Errorf("expand(game/...) = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(g.expand("mcts")), "[mcts]"; got != want {
		t.Errorf("expand(mcts) = %s, want %s", got, want)
	}
	if got := g.expand("gone"); got != nil {
		t.Errorf("expand(gone) = %v, want nothing", got)
	}
	v := g.violations([]rule{{why: "w", packages: []string{"gone/..."}, forbidden: []string{"x/"}}})
	if len(v) != 1 || !strings.HasPrefix(v[0], "gone/...: no such package") {
		t.Errorf("violations of a rule naming no package = %q", v)
	}
}
