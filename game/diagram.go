package game

import (
	"fmt"
	"strings"
)

// Diagrammer draws a position as text for people (the engine's `d`, a
// human player in the arena).
type Diagrammer interface {
	Diagram() string
}

// GridDiagram draws the board part of a FEN-like text (ranks from the top,
// separated by '/', a digit counting empty points) as a grid: rank
// numbers on the left counting down to firstRank at the bottom, file
// letters below, '.' for an empty point. With river > 0 a line of '~'
// follows the river-th rank from the top.
func GridDiagram(board string, files, firstRank, river int) (string, error) {
	rows := strings.Split(board, "/")
	var b strings.Builder
	for i, row := range rows {
		var cells []string
		for _, c := range row {
			if c >= '1' && c <= '9' {
				for range int(c - '0') {
					cells = append(cells, ".")
				}
				continue
			}
			cells = append(cells, string(c))
		}
		if len(cells) != files {
			return "", fmt.Errorf("game: diagram: rank %q has %d points, want %d", row, len(cells), files)
		}
		fmt.Fprintf(&b, "%2d  %s\n", firstRank+len(rows)-1-i, strings.Join(cells, " "))
		if river > 0 && i == river-1 {
			fmt.Fprintf(&b, "    %s\n", strings.Repeat("~ ", files-1)+"~")
		}
	}
	letters := make([]string, files)
	for f := range files {
		letters[f] = string(rune('a' + f))
	}
	fmt.Fprintf(&b, "    %s\n", strings.Join(letters, " "))
	return b.String(), nil
}
