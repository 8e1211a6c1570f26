package main

import (
	"fmt"
	"os"
	"strings"
)

// processName is the command name of a live process ("evotune", "bash"), from
// /proc/PID/comm where the system has it, else "".
func processName(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
