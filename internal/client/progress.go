package client

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// Progress renders the aggregate progress of some sweeps: a redrawn bar
// on a terminal, or a plain line every Every when piped.
type Progress struct {
	Out   io.Writer
	TTY   bool          // redraw one line in place
	Width int           // bar width in characters; default 30
	Every time.Duration // plain mode: time between lines; default 10 s
	Now   func() time.Time

	start     time.Time
	startDone int64 // done + failed when first seen, not counted in the rate
	lastLine  time.Time
}

// Tally sums statuses.
type Tally struct {
	Jobs, Done, Failed, Running, Reused int64
	// WaitingFor lists the external methods ("name@id") that some
	// sweep's jobs need and no connected worker offers.
	WaitingFor []string
}

// Sum adds up the statuses; finished reports whether none is running.
func Sum(sts []*pb.SweepStatus) (t Tally, finished bool) {
	finished = true
	for _, s := range sts {
		t.Jobs += s.GetJobs()
		t.Done += s.GetDone()
		t.Failed += s.GetFailed()
		t.Running += s.GetRunning()
		t.Reused += s.GetReused()
		for _, m := range s.GetWaitingFor() {
			if !slices.Contains(t.WaitingFor, m) {
				t.WaitingFor = append(t.WaitingFor, m)
			}
		}
		if s.GetState() == pb.SweepStatus_STATE_RUNNING {
			finished = false
		}
	}
	return t, finished
}

// Update renders sts and reports whether every sweep has finished.
func (p *Progress) Update(sts []*pb.SweepStatus) bool {
	if p.Now == nil {
		p.Now = time.Now
	}
	now := p.Now()
	t, finished := Sum(sts)
	if p.start.IsZero() {
		p.start, p.startDone = now, t.Done+t.Failed
	}
	line := p.Line(t, now)
	switch {
	case p.TTY:
		fmt.Fprintf(p.Out, "\r\033[K%s", line)
		if finished {
			fmt.Fprintln(p.Out)
		}
	case finished || p.lastLine.IsZero() || now.Sub(p.lastLine) >= p.every():
		fmt.Fprintln(p.Out, line)
		p.lastLine = now
	}
	return finished
}

func (p *Progress) every() time.Duration {
	if p.Every <= 0 {
		return 10 * time.Second
	}
	return p.Every
}

// Line formats one progress line: bar (on a terminal), percentage, counts,
// rate of jobs finished since the first update, and ETA.
func (p *Progress) Line(t Tally, now time.Time) string {
	finished := t.Done + t.Failed
	frac := 1.0
	if t.Jobs > 0 {
		frac = float64(finished) / float64(t.Jobs)
	}
	var b strings.Builder
	if p.TTY {
		w := p.Width
		if w <= 0 {
			w = 30
		}
		n := int(frac * float64(w))
		b.WriteString("[" + strings.Repeat("#", n) + strings.Repeat("-", w-n) + "] ")
	}
	fmt.Fprintf(&b, "%5.1f%%  %d/%d done  %d failed  %d running", 100*frac, t.Done, t.Jobs, t.Failed, t.Running)
	elapsed := now.Sub(p.start).Seconds()
	if rate := float64(finished-p.startDone) / elapsed; elapsed > 0 && rate > 0 {
		eta := time.Duration(float64(t.Jobs-finished) / rate * float64(time.Second)).Round(time.Second)
		fmt.Fprintf(&b, "  %.1f jobs/s  ETA %s", rate, eta)
	}
	if len(t.WaitingFor) > 0 {
		b.WriteString("  waiting for a worker offering " + strings.Join(t.WaitingFor, ", "))
	}
	return b.String()
}
