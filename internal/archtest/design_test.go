package archtest

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// designRow is a row of a table in docs/design.md that names a folder of
// the module: "| `path` | what it does |".
var designRow = regexp.MustCompile("(?m)^\\| `([a-z0-9_/]+)` \\|")

// TestDesignMapsEveryPackage keeps docs/design.md's command and package
// tables true: every package of the module has a row, and every row names
// a package that exists.
func TestDesignMapsEveryPackage(t *testing.T) {
	g := loadGraph(t)
	have := map[string]bool{}
	for pkg := range g {
		if rel, ok := strings.CutPrefix(pkg, module+"/"); ok {
			have[rel] = true
		}
	}
	doc, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, m := range designRow.FindAllStringSubmatch(string(doc), -1) {
		rows[m[1]] = true
	}
	var missing, stale []string
	for pkg := range have {
		if !rows[pkg] && !strings.HasPrefix(pkg, "docs/") {
			missing = append(missing, pkg)
		}
	}
	for row := range rows {
		if !have[row] {
			stale = append(stale, row)
		}
	}
	slices.Sort(missing)
	slices.Sort(stale)
	if len(missing) > 0 {
		t.Errorf("docs/design.md has no row for these packages (add \"| `PATH` | what it does |\"): %s", strings.Join(missing, ", "))
	}
	if len(stale) > 0 {
		t.Errorf("docs/design.md has rows for packages that do not exist: %s", strings.Join(stale, ", "))
	}
}
