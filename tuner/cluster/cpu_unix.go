//go:build unix

package cluster

import (
	"syscall"
	"time"
)

// cpuSeconds is this process's user and system CPU time so far (getrusage).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
