package client

import (
	"strings"
	"testing"
	"time"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

func TestProgressRateAndETA(t *testing.T) {
	t0 := time.Unix(0, 0)
	now := t0
	var out strings.Builder
	p := &Progress{Out: &out, Every: 10 * time.Second, Now: func() time.Time { return now }}
	st := func(done, failed, running int64, state pb.SweepStatus_State) []*pb.SweepStatus {
		return []*pb.SweepStatus{
			{Jobs: 600, Done: done, Failed: failed, Running: running, State: state},
			{Jobs: 400, Done: 400, State: pb.SweepStatus_STATE_COMPLETE},
		}
	}
	// 400 jobs were finished before we started watching: they do not count
	// in the rate. 20 s later 100 more are: 5 jobs/s, 500 left → 1m40s.
	p.Update(st(0, 0, 8, pb.SweepStatus_STATE_RUNNING))
	now = t0.Add(5 * time.Second)
	p.Update(st(20, 0, 8, pb.SweepStatus_STATE_RUNNING)) // within Every: no line
	now = t0.Add(20 * time.Second)
	p.Update(st(90, 10, 8, pb.SweepStatus_STATE_RUNNING))
	now = t0.Add(120 * time.Second)
	if !p.Update(st(590, 10, 0, pb.SweepStatus_STATE_COMPLETE)) {
		t.Fatal("not finished")
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		" 40.0%  400/1000 done  0 failed  8 running",
		" 50.0%  490/1000 done  10 failed  8 running  5.0 jobs/s  ETA 1m40s",
		"100.0%  990/1000 done  10 failed  0 running  5.0 jobs/s  ETA 0s",
	}
	if len(lines) != len(want) {
		t.Fatalf("lines %q", lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i, lines[i], want[i])
		}
	}
	tty := &Progress{Out: &out, TTY: true, Width: 10, Now: func() time.Time { return t0 }}
	out.Reset()
	tty.Update(st(100, 0, 2, pb.SweepStatus_STATE_RUNNING))
	if got := out.String(); got != "\r\033[K[#####-----]  50.0%  500/1000 done  0 failed  2 running" {
		t.Errorf("terminal line %q", got)
	}
}

// TestProgressSaysWhatItWaitsFor: a sweep whose jobs need a method no
// connected worker offers says so on the progress line, each method once.
func TestProgressSaysWhatItWaitsFor(t *testing.T) {
	var out strings.Builder
	p := &Progress{Out: &out, Now: func() time.Time { return time.Unix(0, 0) }}
	p.Update([]*pb.SweepStatus{
		{Jobs: 10, State: pb.SweepStatus_STATE_RUNNING, WaitingFor: []string{"hgb@3f2a"}},
		{Jobs: 5, State: pb.SweepStatus_STATE_RUNNING, WaitingFor: []string{"hgb@3f2a", "rpart@9b1c"}},
	})
	want := "  0.0%  0/15 done  0 failed  0 running  waiting for a worker offering hgb@3f2a, rpart@9b1c\n"
	if got := out.String(); got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}
