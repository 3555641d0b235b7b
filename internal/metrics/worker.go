package metrics

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Worker holds a worker's metrics. It implements worker.Observer: a
// worker's executor reports to it through worker.Observe.
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
	divisor                     float64      // slots, at least 1
	running                     atomic.Int64 // jobs running now
}

// NewWorker returns the metrics of a worker running slots jobs at once
// (its --parallel), registered with reg; slots < 1 counts as 1 in the
// busy ratio.
func NewWorker(reg prometheus.Registerer, slots int) *Worker {
	m := &Worker{divisor: float64(max(slots, 1)),
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
	m.slots.Set(float64(slots))
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

// JobStarted implements worker.Observer: one more job running.
func (m *Worker) JobStarted() {
	m.busy.Set(float64(m.running.Add(1)) / m.divisor)
}

// JobRan implements worker.Observer: a job ran (err nil) or failed.
func (m *Worker) JobRan(err error) {
	if err != nil {
		m.jobs.WithLabelValues("error").Inc()
		return
	}
	m.jobs.WithLabelValues("ok").Inc()
}

// PipelineRan implements worker.Observer: counts a pipeline's fit, its
// seconds and its failure under its learner family.
func (m *Worker) PipelineRan(pipeline string, fitSeconds float64, failed bool) {
	l := Learner(pipeline)
	m.fits.WithLabelValues(l).Inc()
	m.fitSeconds.WithLabelValues(l).Add(fitSeconds)
	if failed {
		m.fitErrors.WithLabelValues(l).Inc()
	}
}

// JobEnded implements worker.Observer: one job fewer running, after
// took.
func (m *Worker) JobEnded(took time.Duration) {
	m.busySeconds.Add(took.Seconds())
	m.busy.Set(float64(m.running.Add(-1)) / m.divisor)
}
