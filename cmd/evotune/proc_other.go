//go:build !unix

package main

import "os"

// processAlive reports whether a process with this PID exists on this machine: on Windows
// os.FindProcess opens the process and fails when there is none.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
