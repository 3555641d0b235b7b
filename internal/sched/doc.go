// Package sched hands a sweep's jobs to workers under expiring leases and
// tracks which jobs are done, in flight, queued again or failed.
package sched
