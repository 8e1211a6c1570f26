package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// processAlive reports whether a process with this PID exists on this machine.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// processName is the command name of a live process ("evotune", "bash"), from
// /proc/PID/comm where the system has it, else "".
func processName(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
