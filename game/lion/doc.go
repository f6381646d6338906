// Package lion implements Catch the Lion (Dobutsu shogi) for the game
// contracts: rules, text formats, perft and the network encoding. It
// registers itself as "lion".
//
// # Rules
//
// The board has 3 files (a-c) and 4 ranks (1-4). The first player ("w",
// upper-case letters) starts at the bottom with elephant, lion and giraffe
// on a1, b1, c1 and a chick on b2; the second player ("b", lower case) has
// giraffe, lion and elephant on a4, b4, c4 and a chick on b3. The first
// player moves first. Every piece steps one square: lion L to the 8
// neighbours, giraffe G orthogonally, elephant E diagonally, chick C
// straight forward, hen H forward, diagonally forward, sideways and
// straight back. Own pieces block; moving onto an enemy piece captures it.
//
// A captured piece goes to the captor's hand, a hen as a chick; a captured
// lion ends the game. A hand piece may be dropped on any empty square. A
// chick that moves onto its far rank (rank 4 for the first player, rank 1
// for the second) becomes a hen; a chick dropped there stays a chick and
// can never move.
//
// The option TryRule decides what a lion on its far rank does:
//
//   - safe (default, the official rule): a lion that moves onto its far
//     rank wins at once unless a piece of the other side attacks that square
//     (hand pieces do not attack). If it is attacked the game goes on: every
//     reply is legal, but a lion still on the far rank when its owner is to
//     move again wins, so only capturing it saves the opponent. Should the
//     opponent answer with a try of its own, the earlier try wins.
//   - immediate (the thesis' variant): a lion reaching its far rank wins at
//     once, and chicks may not be dropped on the far rank.
//
// A position that occurs for the third time (board, hands and side to
// move, within the history the Position knows) is a draw, "repetition";
// so is reaching PlyCap plies (default 200), "ply cap". As game.Position
// asks, GenerateMoves returns no moves only where the board decides the
// game (Status reasons "lion captured" and "try"); repetition and the ply
// cap are reported by Status alone, so perft counts are those of the pure
// move tree:
//
//	safe:      4 17 123 976 8122 71677 635117 5684459
//	immediate: 4 17 118 898 7170 59086 500308 4294947
//
// # Position text
//
//	<board> <side> <hands> <ply>
//
// The start position is
//
//	gle/1c1/1C1/ELG w - 1
//
// The board lists ranks 4 down to 1 separated by '/', each from file a to
// c, with letters L G E C H (upper case first player, lower case second)
// and digits for runs of empty squares. Side is w (first player) or b.
// Hands are "-" when both are empty, otherwise as in shogi SFEN: the first
// player's pieces in upper case, then the second's in lower case, each
// letter C, G or E preceded by its count when it is 2; "2CEg" means the
// first player holds two chicks and an elephant, the second a giraffe.
// String writes hands in the order C G E per side; Parse accepts any order.
// Ply is the number of the ply about to be played, 1 at the start (like
// SFEN's move number), so Position.Ply is this number minus one; the
// first player moves on odd numbers.
//
// Parse rejects, with an error naming the problem, anything no game can
// reach: a wrong number of fields or ranks, ranks not 3 squares long,
// unknown letters, a side with two lions, a lion missing from the side not
// to move (the side to move may lack its lion: it has just been captured),
// more than two pieces of a kind on board and in hand together (hens count
// as chicks), lions or hens in hand, a ply number whose parity does not fit
// the side to move, and under TryRule=immediate a chick on its far rank or
// the side to move's lion on its far rank.
//
// # Moves
//
// A board move is written from-square then to-square, "b1b2" (promotion is
// implicit); a drop is the piece letter, '*' and the square, "C*b3", the
// letter upper case for both sides. As a game.Move a board move is
// from+1 | to<<4 and a drop is to<<4 | (type+1)<<8 with squares numbered
// rank*3+file from a1 = 0 and types chick 0, giraffe 1, elephant 2; zero is
// never a move.
//
// # Network encoding (version 1)
//
// Everything is seen by the side to move: for the second player the board
// is turned by 180 degrees, so the side to move always plays up the board
// and the start position encodes the same for both sides. Input is 16
// planes of 4 rows by 3 columns, row 0 the top (the opponent's home rank),
// column 0 the side to move's left:
//
//	0-4    the side to move's chick, giraffe, elephant, lion, hen
//	5-9    the opponent's chick, giraffe, elephant, lion, hen
//	10-12  the side to move's chicks, giraffes, elephants in hand, count/2 on every cell
//	13-15  the opponent's hand, likewise
//
// The 132 actions are 96 board moves, from-cell*8 + direction with cells
// numbered row*3+column and directions N NE E SE S SW W NW (N = up), then
// 36 drops, 96 + type*12 + target cell with types chick, giraffe,
// elephant. The one symmetry, "mirror", swaps files a and c.
package lion
