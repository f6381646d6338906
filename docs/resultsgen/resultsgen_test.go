package resultsgen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite docs/results.md from docs/results.jsonl")

var docs = filepath.Join("..")

func readRecords(t *testing.T) []Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(docs, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Read(data)
	if err != nil {
		t.Fatalf("results.jsonl: %v", err)
	}
	return rs
}

// docs/results.md is what the records generate.
func TestResultsDoc(t *testing.T) {
	want, err := Render(readRecords(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(docs, "results.md")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s differs from results.jsonl (%v); regenerate it: go test ./docs/resultsgen -run TestResultsDoc -update", path, err)
	}
}

// splitRow cuts a markdown table row into its cells, an escaped \| staying
// inside its cell.
func splitRow(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// No cell of the committed results.md is over MaxCell characters, and
// every row has the six columns.
func TestCellsShort(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(docs, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := splitRow(line)
		if len(cells) != 6 {
			t.Errorf("a row of %d cells: %.80s", len(cells), line)
		}
		for _, c := range cells {
			if n := utf8.RuneCountInString(c); n > MaxCell {
				t.Errorf("a cell of %d characters (at most %d): %.80s...", n, MaxCell, c)
			}
		}
		rows++
	}
	if rows < len(Sections)+1 {
		t.Fatalf("results.md has %d table rows", rows)
	}
}

// anchors are the GitHub anchors of a markdown file's headings.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	fence := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		a := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		a = strings.ReplaceAll(drop.ReplaceAllString(a, ""), " ", "-")
		if n := seen[a]; n > 0 {
			out[a+"-"+string(rune('0'+n))] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// Every record's evidence exists: the file, and in a markdown file the
// heading its anchor names.
func TestEvidenceExists(t *testing.T) {
	for _, r := range readRecords(t) {
		for _, e := range r.Evidence {
			path, anchor, _ := strings.Cut(e, "#")
			data, err := os.ReadFile(filepath.Join(docs, filepath.FromSlash(path)))
			if err != nil {
				t.Errorf("%.50q: evidence %s: %v", r.Figure, e, err)
				continue
			}
			if anchor != "" && !anchors(string(data))[anchor] {
				t.Errorf("%.50q: %s has no heading #%s", r.Figure, path, anchor)
			}
		}
	}
}

func TestAnchors(t *testing.T) {
	a := anchors("# Top\n```\n# not a heading\n```\n## L carried to 16 CPU-hours (2026-12-07, Xeon, issue 48)\n### The floor\n### The floor\n## `configs/lion.yaml`: it's done\n")
	for _, want := range []string{"top", "l-carried-to-16-cpu-hours-2026-12-07-xeon-issue-48", "the-floor", "the-floor-1", "configslionyaml-its-done"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Error("a line in a code block read as a heading")
	}
}

// Read refuses a record it cannot place or that lacks a field, naming the
// line.
func TestReadRefuses(t *testing.T) {
	good := `{"section":"speed","figure":"f","command":"tabula bench","machine":"EPYC","date":"2026-12-07","seeds":"-","evidence":["bench.md"]}`
	if rs, err := Read([]byte("\n" + good + "\n\n" + good + "\n")); err != nil || len(rs) != 2 {
		t.Fatalf("two good records: %d, %v", len(rs), err)
	}
	for _, c := range []struct{ line, want string }{
		{strings.Replace(good, `"speed"`, `"nowhere"`, 1), `no section "nowhere"`},
		{strings.Replace(good, `"seeds":"-"`, `"seeds":""`, 1), "seeds is empty"},
		{strings.Replace(good, `"2026-12-07"`, `"last week"`, 1), "does not start YYYY-MM"},
		{strings.Replace(good, `["bench.md"]`, `[]`, 1), "links to no evidence"},
		{strings.Replace(good, `"seeds"`, `"seed"`, 1), "unknown field"},
		{good + good, "more than one record"},
	} {
		_, err := Read([]byte(good + "\n" + c.line + "\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "line 2:") {
			t.Errorf("%s: got %v, want line 2 and %q", c.line, err, c.want)
		}
	}
}

// Render refuses a cell over MaxCell characters, and writes each record
// under its section with its links named by their files.
func TestRender(t *testing.T) {
	r := Record{Section: "models", Figure: "a | b", Command: "tabula arena", Machine: "Xeon", Date: "2026-11-28", Seeds: "1",
		Evidence: []string{"../models/lion.md", "notebook/lion.md#x"}}
	out, err := Render([]Record{r})
	if err != nil {
		t.Fatal(err)
	}
	want := "| a \\| b | `tabula arena` | Xeon | 2026-11-28 | 1 | [models/lion.md](../models/lion.md), [notebook/lion.md](notebook/lion.md#x) |\n"
	i := bytes.Index(out, []byte("## Shipped models"))
	if i < 0 || !bytes.Contains(out[i:], []byte(want)) {
		t.Fatalf("the row is not under its section:\n%s", out)
	}
	r.Figure = strings.Repeat("x", MaxCell+1)
	if _, err := Render([]Record{r}); err == nil || !strings.Contains(err.Error(), "a cell of 301 characters") {
		t.Fatalf("a long cell: %v", err)
	}
}
