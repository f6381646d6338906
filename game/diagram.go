package game

import (
	"cmp"
	"fmt"
	"strings"
)

// Diagrammer draws a position as text for people (the engine's `d`, a
// human player in the arena).
type Diagrammer interface {
	Diagram() string
}

// Board is a position's pieces for drawing (the dashboard): Cells holds
// the ranks from the top, each from the first file, "" for an empty point
// and the game's piece letter otherwise (upper case: the first player's).
type Board struct {
	Files int      `json:"files"`
	Ranks int      `json:"ranks"`
	Cells []string `json:"cells"`
	// Hands are the pieces in hand by colour (Catch the Lion), letters
	// repeated by count.
	Hands [2]string `json:"hands"`
	// Style says how to draw it: "xiangqi" (pieces on points, the river,
	// the palaces), "squares" or "connect4" (discs dropped in columns).
	Style string `json:"style"`
	Side  Color  `json:"side"` // to move
}

// Boarder is implemented by positions that give their pieces for drawing.
type Boarder interface {
	Board() Board
}

// GridCells reads the board part of a FEN-like text (ranks from the top,
// separated by '/', a digit counting empty points) into cells, "" for an
// empty point, checking that every rank has files points.
func GridCells(board string, files int) ([]string, error) {
	var cells []string
	for _, row := range strings.Split(board, "/") {
		n := 0
		for _, c := range row {
			if c >= '1' && c <= '9' {
				for range int(c - '0') {
					cells = append(cells, "")
				}
				n += int(c - '0')
				continue
			}
			cells = append(cells, string(c))
			n++
		}
		if n != files {
			return nil, fmt.Errorf("game: board: rank %q has %d points, want %d", row, n, files)
		}
	}
	return cells, nil
}

// GridDiagram draws the board part of a FEN-like text (GridCells) as a
// grid: rank numbers on the left counting down to firstRank at the
// bottom, file letters below, '.' for an empty point. With river > 0 a
// line of '~' follows the river-th rank from the top.
func GridDiagram(board string, files, firstRank, river int) (string, error) {
	cells, err := GridCells(board, files)
	if err != nil {
		return "", err
	}
	ranks := len(cells) / files
	var b strings.Builder
	for i := range ranks {
		row := make([]string, files)
		for f := range files {
			row[f] = cmp.Or(cells[i*files+f], ".")
		}
		fmt.Fprintf(&b, "%2d  %s\n", firstRank+ranks-1-i, strings.Join(row, " "))
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
