package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A comment says why the code is as it is; what a match scored lives in
// the docs (docs/results.md, the notebook), where it is dated and its
// command given, and a figure copied into the code drifts from both.
var (
	// wdl is a W-D-L triple such as "40-20-40"; a date is not one.
	wdl  = regexp.MustCompile(`\b\d{1,5}-\d{1,5}-\d{1,5}\b`)
	date = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	// matchFigure is a match's size or an Elo figure: "over 100 games",
	// "400 games each", "-27 Elo", "within 15 Elo", "Elo +101".
	matchFigure = regexp.MustCompile(`\b(over|in|from) [0-9][0-9,]* games\b|\b[0-9][0-9,]* games each\b|\d Elo\b|\bElo [+-]?\d`)
	// quoted is text in double quotes: an example of a program's output
	// (arena's summary line), not a claim.
	quoted = regexp.MustCompile(`"[^"]*"`)
)

// matchResults returns the match figures a comment's text carries.
func matchResults(comment string) []string {
	text := quoted.ReplaceAllString(strings.Join(strings.Fields(comment), " "), `""`)
	var out []string
	for _, m := range wdl.FindAllString(text, -1) {
		if !date.MatchString(m) {
			out = append(out, m)
		}
	}
	return append(out, matchFigure.FindAllString(text, -1)...)
}

func TestMatchResults(t *testing.T) {
	for _, c := range []struct {
		comment string
		found   bool
	}{
		{"300 simulations in batches of eight against 300 one at a time: 40-20-40 over 100 games.", true},
		{"it lost 1-2-5 before it was stopped", true},
		{"null move -27 Elo [-55, +1], LMR -7 [-36, +22]\nover 400 games each", true},
		{"(400 games each, every estimate within 15 Elo, intervals about ±33)", true},
		{"Elo +101.2 against the anchor", true},
		{"measured on 2026-11-29 (docs/results.md)", false},
		{`String is a one-line summary: "W-D-L 36-5-19, score 0.642, Elo +101.2
		+- 91.0, LOS 98.91%".`, false},
		{"fitted to positions of 1104 games: slope 0.00208", false},
		{"the logistic Elo difference of a mean score, with a 95% interval", false},
		{"batched search showed no loss at equal simulations (the matches are in docs/results.md)", false},
	} {
		if got := matchResults(c.comment); (len(got) > 0) != c.found {
			t.Errorf("matchResults(%q) = %q, want a figure found: %v", c.comment, got, c.found)
		}
	}
}

// TestCommentsCarryNoMatchResults reads every comment of the module's Go
// files (runs/ and testdata left out) for match figures.
func TestCommentsCarryNoMatchResults(t *testing.T) {
	root := "../.."
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || path == filepath.Join(root, "runs")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || !d.Type().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, g := range f.Comments {
			if found := matchResults(g.Text()); len(found) > 0 {
				t.Errorf("%s: a comment carries match results %q: say why the code is so and point at the docs that hold the figures",
					fset.Position(g.Pos()), found)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files from %s: not the module", files, root)
	}
}
