package metrics

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/worker"
)

// Worker holds a worker's metrics; Wrap puts them around its executor.
//
// Metrics (all prefixed misslab_worker_):
//
//	fits_total{learner}          counter: pipelines fitted, by learner family (tree, forest, svm...)
//	fit_errors_total{learner}    counter: pipelines that failed (ErrKind set)
//	fit_seconds_total{learner}   counter: fit time, wall-clock seconds
//	jobs_total{result}           counter: jobs run, result ok or error
//	slots                        gauge: jobs the worker runs at once (--parallel)
//	busy_ratio                   gauge: running jobs / slots, now
//	busy_seconds_total           counter: job-seconds spent running; rate() / slots
//	                             is the busy ratio over a window
type Worker struct {
	fits, fitErrors, fitSeconds *prometheus.CounterVec
	jobs                        *prometheus.CounterVec
	slots, busy                 prometheus.Gauge
	busySeconds                 prometheus.Counter
}

// NewWorker returns a worker's metrics, registered with reg.
func NewWorker(reg prometheus.Registerer) *Worker {
	m := &Worker{
		fits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "misslab_worker_fits_total",
			Help: "Pipelines fitted and scored, by learner family."}, []string{"learner"}),
		fitErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "misslab_worker_fit_errors_total",
			Help: "Pipelines that failed to fit or predict, by learner family."}, []string{"learner"}),
		fitSeconds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "misslab_worker_fit_seconds_total",
			Help: "Wall-clock seconds spent fitting, by learner family."}, []string{"learner"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "misslab_worker_jobs_total",
			Help: "Jobs run, by result (ok, error)."}, []string{"result"}),
		slots: prometheus.NewGauge(prometheus.GaugeOpts{Name: "misslab_worker_slots", Help: "Jobs the worker runs at once."}),
		busy: prometheus.NewGauge(prometheus.GaugeOpts{Name: "misslab_worker_busy_ratio",
			Help: "Running jobs divided by slots, at scrape time."}),
		busySeconds: prometheus.NewCounter(prometheus.CounterOpts{Name: "misslab_worker_busy_seconds_total",
			Help: "Job-seconds spent running jobs; rate(...) / misslab_worker_slots is the busy ratio over a window."}),
	}
	m.jobs.WithLabelValues("ok")
	m.jobs.WithLabelValues("error")
	reg.MustRegister(m.fits, m.fitErrors, m.fitSeconds, m.jobs, m.slots, m.busy, m.busySeconds)
	return m
}

// Learner returns the learner family of a pipeline name: the part before
// the first "/" ("forest/mia" → "forest"), or the whole name.
func Learner(pipeline string) string {
	family, _, _ := strings.Cut(pipeline, "/")
	return family
}

// Wrap returns exec instrumented with m, for a worker running slots jobs
// at once.
func (m *Worker) Wrap(exec worker.Executor, slots int) worker.Executor {
	m.slots.Set(float64(slots))
	return &observed{Executor: exec, m: m, slots: float64(max(slots, 1))}
}

type observed struct {
	worker.Executor
	m       *Worker
	slots   float64
	running atomic.Int64
}

// Execute implements worker.Executor.
func (o *observed) Execute(ctx context.Context, sw *grid.Sweep, scenario, rep int, pipelines []int) ([]worker.Result, error) {
	o.m.busy.Set(float64(o.running.Add(1)) / o.slots)
	start := time.Now()
	defer func() {
		o.m.busySeconds.Add(time.Since(start).Seconds())
		o.m.busy.Set(float64(o.running.Add(-1)) / o.slots)
	}()
	out, err := o.Executor.Execute(ctx, sw, scenario, rep, pipelines)
	if err != nil {
		o.m.jobs.WithLabelValues("error").Inc()
		return out, err
	}
	o.m.jobs.WithLabelValues("ok").Inc()
	for _, r := range out {
		if r.Pipeline < 0 || r.Pipeline >= len(sw.Pipelines) {
			continue // the worker rejects such a result itself
		}
		l := Learner(sw.Pipelines[r.Pipeline].Name())
		o.m.fits.WithLabelValues(l).Inc()
		o.m.fitSeconds.WithLabelValues(l).Add(r.FitSeconds)
		if r.ErrKind != "" {
			o.m.fitErrors.WithLabelValues(l).Inc()
		}
	}
	return out, nil
}
