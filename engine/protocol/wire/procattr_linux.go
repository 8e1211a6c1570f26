package wire

import (
	"os/exec"
	"syscall"
)

// dieWithReferee asks the kernel to kill the engine when the process that started it dies
// (PR_SET_PDEATHSIG): a referee killed with SIGKILL cannot close the engine's input, and an
// engine that ignores end of input would otherwise run on under PID 1.
func dieWithReferee(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
