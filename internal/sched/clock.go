package sched

import "time"

// Clock tells the time. Tests inject a manual clock to expire leases.
type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// RealClock returns the wall clock.
func RealClock() Clock { return realClock{} }
