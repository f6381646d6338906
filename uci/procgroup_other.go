//go:build !unix

package uci

import "os/exec"

// ownProcessGroup: without Unix process groups only the engine itself is
// killed.
func ownProcessGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
