package xiangqi

// evalWeights are the evaluation's weights in 1/WeightScale centi-units, by
// term (evalterms.go), fitted by Texel's method (cmd/tune) to 59138 quiet
// positions of 1000 games: slope 0.00124, mean squared error 0.12435 -> 0.11888;
// then palace attacks, hollow cannons, missing advisors and the tempo were
// set to zero: the fit to our own self-play gave them signs that lose to
// Fairy-Stockfish, and a refit without them lost too (docs/alphabeta.md).
var evalWeights = [NumEvalTerms]int32{
	1167,  // advisor
	-1361, // elephant
	5539,  // horse
	19739, // rook
	8028,  // cannon
	1455,  // soldier
	1948,  // crossed_soldier
	17,    // table_king
	98,    // table_advisor
	9,     // table_elephant
	73,    // table_horse
	137,   // table_rook
	19,    // table_cannon
	53,    // table_soldier
	13,    // rook_mobility
	295,   // horse_mobility
	24,    // cannon_mobility
	0,     // palace_attacks
	0,     // hollow_cannon
	0,     // missing_advisors
	1049,  // missing_elephants
	0,     // tempo
}
