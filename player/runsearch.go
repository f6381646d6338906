package player

import (
	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/mcts"
)

// RunSearch is the search a run config's search section asks for: the
// constants self-play searches with, and the gate's, the evaluation's
// and the position-set measures' networks play with (noise is the
// caller's: self-play adds it, matches do not). It is the one mapping
// from configs.Search to mcts.Config. What the section does not set
// (CVisit, CScale) stays mcts.DefaultConfig's, and the section's
// defaults in the option table are mcts.DefaultConfig's too
// (TestRunSearchDefaults), so a config that leaves a constant out
// searches as the engine and the arena do.
func RunSearch(s configs.Search) mcts.Config {
	m := mcts.DefaultConfig()
	m.CInit, m.CBase, m.FPUReduction = s.CInit, s.CBase, s.FPUReduction
	m.NoiseAlpha, m.NoiseEpsilon = s.DirichletAlpha, s.NoiseEpsilon
	m.Solver, m.Gumbel, m.GumbelM = s.Solver, s.Kind == SearchGumbel, s.GumbelM
	m.ProvenTargets = s.ProvenTargets
	return m
}
