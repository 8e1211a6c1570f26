//go:build !unix

package cluster

// cpuSeconds is this process's CPU time so far where the system reports it to Go's
// syscall package; elsewhere (Windows) 0: a worker's CPU share is then not reported.
func cpuSeconds() float64 { return 0 }
