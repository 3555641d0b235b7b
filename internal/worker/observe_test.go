package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/grid"
)

// recorder is an Observer that writes down every call.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf(format, a...))
}

func (r *recorder) JobStarted()      { r.add("started") }
func (r *recorder) JobRan(err error) { r.add("ran %v", err) }
func (r *recorder) PipelineRan(p string, s float64, failed bool) {
	r.add("pipeline %s %v %v", p, s, failed)
}
func (r *recorder) JobEnded(took time.Duration) { r.add("ended %v", took >= 0) }

// canned returns its results and error, or panics.
type canned struct {
	out   []Result
	err   error
	panic bool
}

func (c canned) Execute(context.Context, *grid.Sweep, int, int, []int) ([]Result, error) {
	if c.panic {
		panic("executor bug")
	}
	return c.out, c.err
}

// TestObserve: each job is reported as started, ran, one call per
// result naming a pipeline of the sweep, and ended (also when the
// executor panics); a job that failed as a whole reports no pipelines,
// and the executor's results and error pass through unchanged.
func TestObserve(t *testing.T) {
	sw := &grid.Sweep{Pipelines: []grid.Pipeline{grid.MustPipeline("tree/mia", nil), grid.MustPipeline("svm/mean", nil)}}
	boom := errors.New("boom")
	ok := []Result{{Pipeline: 1, FitSeconds: 0.25}, {Pipeline: 2, FitSeconds: 9}, {Pipeline: 0, ErrKind: "fit"}, {Pipeline: -1}}
	cases := []struct {
		name string
		exec canned
		want []string
	}{
		{"ran", canned{out: ok}, []string{"started", "ran <nil>", "pipeline svm/mean 0.25 false",
			"pipeline tree/mia 0 true", "ended true"}},
		{"failed", canned{out: ok[:1], err: boom}, []string{"started", "ran boom", "ended true"}},
		{"panicked", canned{panic: true}, []string{"started", "ended true"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			var out []Result
			var err error
			func() {
				defer func() {
					if p := recover(); (p != nil) != tc.exec.panic {
						t.Errorf("panic %v, want a panic: %v", p, tc.exec.panic)
					}
				}()
				out, err = Observe(tc.exec, rec).Execute(context.Background(), sw, 0, 0, []int{0, 1})
			}()
			if !slices.Equal(rec.calls, tc.want) {
				t.Errorf("calls %q, want %q", rec.calls, tc.want)
			}
			if !errors.Is(err, tc.exec.err) || (!tc.exec.panic && len(out) != len(tc.exec.out)) {
				t.Errorf("returned %v, %v; the executor gave %v, %v", out, err, tc.exec.out, tc.exec.err)
			}
		})
	}
}
