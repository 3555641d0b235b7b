package client

import (
	"strings"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// StatusSchemaVersion is the schema_version of `coordinator status
// --json`: raised when a key changes meaning or goes away (new keys may
// appear without it).
const StatusSchemaVersion = 1

// StatusJSON is `coordinator status --json`'s document: the sweeps the
// text table lists, with their full ids. docs/OPERATIONS.md lists every
// key.
type StatusJSON struct {
	SchemaVersion int               `json:"schema_version"`
	Sweeps        []SweepStatusJSON `json:"sweeps"`
}

// SweepStatusJSON is one sweep's progress. Counts are of jobs (one
// scenario and repetition, or fold of a table sweep), each with every
// pipeline of the sweep.
type SweepStatusJSON struct {
	SweepID     string `json:"sweep_id"`
	Name        string `json:"name"`
	State       string `json:"state"` // running, complete or cancelled
	Scenarios   int64  `json:"scenarios"`
	Repetitions int32  `json:"repetitions"`
	Pipelines   int64  `json:"pipelines"`
	Jobs        int64  `json:"jobs"`
	Done        int64  `json:"done"`    // jobs whose results are stored
	Failed      int64  `json:"failed"`  // jobs that failed for good
	Running     int64  `json:"running"` // jobs under a lease now
	Reused      int64  `json:"reused"`  // jobs found stored when the sweep was submitted
	LastError   string `json:"last_error"`
	// WaitingFor names the external methods ("name@id") that the sweep's
	// remaining jobs need and no connected worker offers.
	WaitingFor []string `json:"waiting_for"`
}

// StateName is a sweep state as status prints it: running, complete,
// cancelled (unspecified for a coordinator that did not say).
func StateName(s pb.SweepStatus_State) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "STATE_"))
}

// NewStatusJSON returns the JSON document of sts.
func NewStatusJSON(sts []*pb.SweepStatus) StatusJSON {
	out := StatusJSON{SchemaVersion: StatusSchemaVersion, Sweeps: []SweepStatusJSON{}}
	for _, s := range sts {
		waiting := s.GetWaitingFor()
		if waiting == nil {
			waiting = []string{}
		}
		out.Sweeps = append(out.Sweeps, SweepStatusJSON{SweepID: s.GetSweepId(), Name: s.GetName(), State: StateName(s.GetState()),
			Scenarios: s.GetScenarios(), Repetitions: s.GetRepetitions(), Pipelines: s.GetPipelines(), Jobs: s.GetJobs(),
			Done: s.GetDone(), Failed: s.GetFailed(), Running: s.GetRunning(), Reused: s.GetReused(), LastError: s.GetLastError(),
			WaitingFor: waiting})
	}
	return out
}
