//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether a process with this PID exists on this machine (signal 0:
// delivered to nothing, refused only when there is no such process).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
