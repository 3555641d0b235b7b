//go:build !unix

package learntest

import "time"

// CPUTime is unavailable here; benchmarks then report 0 CPU time.
func CPUTime() time.Duration { return 0 }
