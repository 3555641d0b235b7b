// Package sched hands a sweep's jobs to workers under expiring leases and
// tracks which jobs are done, in flight, queued again or failed.
//
// # Locking
//
// One mutex, Scheduler.mu, guards every piece of scheduler state: the
// scheduler's maps, each Worker's leases, revocations and grant credit,
// and each Sweep once it is added. Exported methods take it; an
// unexported helper that needs it held is named with the suffix Locked
// (grantLocked, endLeaseLocked, ...), and the unexported methods of
// Sweep and sweepNeeds, which cannot take it themselves, say "Call with
// s.mu held". Options.OnLeaseEnd runs with it held, which fixes the lock
// order of the coordinator (see Scheduler.mu).
package sched
