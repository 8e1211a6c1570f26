//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// processAlive reports whether a process with this PID exists on this machine and is not
// a zombie (signal 0: delivered to nothing, refused only when there is no such process; a
// killed process that its parent has not yet reaped still takes signal 0, so its state in
// /proc/PID/stat is read where the system has it).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	s := processState(pid)
	return s != 'Z' && s != 'X'
}

// processState is the state letter of /proc/PID/stat ('R', 'S', 'Z' for a zombie, 'X'
// dead), or 0 where it cannot be read. The command name in parentheses may hold blanks
// and parentheses itself, so the state is the field after its last ')'.
func processState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}
