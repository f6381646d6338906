package all_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/all"
)

// gameSpecific are the folders (from the module's root) of packages about
// one game, which may name it: the games themselves, Xiangqi's NNUE and
// its data, the Pons measure and the solver of Connect Four, Catch the
// Lion's oracle and tablebase data, the Xiangqi position set, and the
// commands of those (tune tunes Xiangqi's evaluation).
var gameSpecific = []string{
	"game", "nnue", "alphabeta/c4solver", "arena/pons", "arena/lionoracle", "arena/xqset",
	"internal/liondata", "internal/ponsdata", "cmd/tabula/tune", "cmd/tabula/liontb", "cmd/tabula/nnue",
}

// No generic package switches on a shipped game's name: outside the
// game-specific packages above and test helpers (folders ending in
// "test", which pick a real game as a fixture), no Go source other than
// tests has a string literal that is a registered game's name. What a
// generic package needs of a game comes from its registration
// (game.Capability, docs/new-game.md), so that a new game is its package
// and one line in game/all.
func TestNoGenericPackageNamesAGame(t *testing.T) {
	names := map[string]bool{}
	for _, n := range game.Names() {
		names[n] = true
	}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	scanned := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || strings.HasSuffix(d.Name(), "test") {
				return filepath.SkipDir
			}
			for _, s := range gameSpecific {
				if rel == s {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		scanned++
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
					pos := fset.Position(lit.Pos())
					t.Errorf("%s:%d: the game name %q in a generic package: ask the game's registration (game.Capability) instead", rel, pos.Line, s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 100 {
		t.Fatalf("scanned %d files: the walk did not find the module", scanned)
	}
}
