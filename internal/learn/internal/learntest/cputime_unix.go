//go:build unix

package learntest

import (
	"syscall"
	"time"
)

// CPUTime returns the process's user + system CPU time, so benchmarks can
// report a cost that does not depend on how loaded the machine is.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
