package selfplay

import (
	"github.com/tabula-zero/tabula/abzero"
	"github.com/tabula-zero/tabula/configs"
)

// The syntax of selfplay.abzero.m is abzero's, and this package is the one
// that reads it (setupABZero): registering its check here keeps configs
// free of search packages, and every program that can play the blend
// links this package, so no config reaches a Worker unchecked.
func init() {
	configs.RegisterCheck("selfplay.abzero.m", func(c *configs.Config) error {
		_, err := abzero.ParseSchedule(c.SelfPlay.ABZero.M)
		return err
	})
}
