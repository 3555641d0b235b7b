// Package methods loads a worker's methods file and runs external learners and imputers as long-lived child processes speaking misslab's line-JSON protocol.
package methods
