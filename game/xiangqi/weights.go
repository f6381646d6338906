package xiangqi

// evalWeights are the evaluation's weights in 1/WeightScale centi-units,
// by term (evalterms.go): the hand-made CheapChess material and tables,
// other terms off.
var evalWeights = [NumEvalTerms]int32{
	3200, 3200, 6400, 14400, 7200, 1600, 1600,
	16, 16, 16, 16, 16, 16, 16,
	0, 0, 0,
	0, 0, 0, 0,
	0,
}
