package server

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/misslab/misslab/internal/sched"
)

// Metrics holds a coordinator's metrics. It implements Observer
// (pass it in Options.Observer) and is a prometheus.Collector of
// every loaded sweep's progress, read from the scheduler at scrape time.
//
// Metrics (all prefixed misslab_):
//
//	sweep_jobs{sweep,name,state}      gauge: jobs pending, running, done, failed
//	sweep_cancelled{sweep,name}       gauge: 1 if the sweep is cancelled
//	results_total{outcome}            counter: results received, by outcome
//	                                  (accepted, duplicate, stale, invalid)
//	leases_granted_total              counter: leases handed to workers
//	lease_expiries_total              counter: leases ended for want of a heartbeat
//	leases_lost_on_disconnect_total   counter: leases held by a worker whose stream broke
//	leases_released_total            counter: leases a draining worker handed back unfinished
//	workers                           gauge: connected worker streams
//	worker_connections_total          counter: worker streams opened
//	store_commit_seconds              histogram: one store transaction (write and fsync)
//	store_committed_records_total     counter: results and failures written
//	store_commit_failures_total       counter: batches lost after every retry
//	store_backlog_records             gauge: accepted results waiting for the store
//	                                  (leasing pauses past Options.MaxBacklog)
type Metrics struct {
	coord       atomic.Pointer[Coordinator]
	jobs        *prometheus.Desc
	cancelled   *prometheus.Desc
	backlog     *prometheus.Desc
	results     *prometheus.CounterVec
	granted     prometheus.Counter
	expired     prometheus.Counter
	lost        prometheus.Counter
	released    prometheus.Counter
	workers     prometheus.Gauge
	connections prometheus.Counter
	commit      prometheus.Histogram
	records     prometheus.Counter
	failures    prometheus.Counter
}

// NewMetrics returns a coordinator's metrics, registered with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		jobs: prometheus.NewDesc("misslab_sweep_jobs", "Jobs of a loaded sweep by state (pending, running, done, failed).",
			[]string{"sweep", "name", "state"}, nil),
		cancelled: prometheus.NewDesc("misslab_sweep_cancelled", "1 if the sweep is cancelled, else 0.",
			[]string{"sweep", "name"}, nil),
		backlog: prometheus.NewDesc("misslab_store_backlog_records",
			"Accepted results waiting to be committed to the store; leasing pauses past the coordinator's limit.", nil, nil),
		results: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "misslab_results_total",
			Help: "Job results received from workers, by outcome: accepted (stored), duplicate (the job already had one), stale (its lease had ended), invalid."},
			[]string{"outcome"}),
		granted: prometheus.NewCounter(prometheus.CounterOpts{Name: "misslab_leases_granted_total",
			Help: "Leases handed to workers (first deliveries, retries, speculative copies, rebinds after a reconnection)."}),
		expired: prometheus.NewCounter(prometheus.CounterOpts{Name: "misslab_lease_expiries_total",
			Help: "Leases that ended because no heartbeat came within the lease time; their jobs were queued again."}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{Name: "misslab_leases_lost_on_disconnect_total",
			Help: "Leases held by a worker whose stream ended; their jobs were queued again."}),
		released: prometheus.NewCounter(prometheus.CounterOpts{Name: "misslab_leases_released_total",
			Help: "Leases a worker handed back unfinished (draining on SIGTERM, e.g. before a Slurm time limit); their jobs were queued again at once, with no failed or lost delivery counted."}),
		workers: prometheus.NewGauge(prometheus.GaugeOpts{Name: "misslab_workers", Help: "Connected worker streams."}),
		connections: prometheus.NewCounter(prometheus.CounterOpts{Name: "misslab_worker_connections_total",
			Help: "Worker streams opened (a worker reconnecting counts again)."}),
		commit: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "misslab_store_commit_seconds",
			Help:    "Duration of one store transaction writing a batch of results, fsync included.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)}), // 0.5 ms .. 4 s
		records: prometheus.NewCounter(prometheus.CounterOpts{Name: "misslab_store_committed_records_total",
			Help: "Job records (results or failures) committed to the store."}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{Name: "misslab_store_commit_failures_total",
			Help: "Batches that could not be committed after every retry (their jobs are queued again)."}),
	}
	for _, o := range []sched.Outcome{sched.Accepted, sched.Duplicate, sched.Stale, sched.Invalid} {
		m.results.WithLabelValues(o.String()) // export zeros, so rate() works from the start
	}
	reg.MustRegister(m, m.results, m.granted, m.expired, m.lost, m.released, m.workers, m.connections, m.commit, m.records, m.failures)
	return m
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.jobs
	ch <- m.cancelled
	ch <- m.backlog
}

// Collect implements prometheus.Collector: the progress of every loaded
// sweep, labelled by the first 12 characters of its id and its name.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	c := m.coord.Load()
	if c == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(m.backlog, prometheus.GaugeValue, float64(c.Backlog()))
	for _, st := range c.Scheduler().Statuses() {
		id := st.ID
		if len(id) > 12 {
			id = id[:12]
		}
		pending := st.Jobs - st.Done - st.Failed - st.Running
		for _, s := range []struct {
			state string
			n     int
		}{{"pending", pending}, {"running", st.Running}, {"done", st.Done}, {"failed", st.Failed}} {
			ch <- prometheus.MustNewConstMetric(m.jobs, prometheus.GaugeValue, float64(s.n), id, st.Name, s.state)
		}
		cancelled := 0.0
		if st.Cancelled {
			cancelled = 1
		}
		ch <- prometheus.MustNewConstMetric(m.cancelled, prometheus.GaugeValue, cancelled, id, st.Name)
	}
}

// Opened implements Observer.
func (m *Metrics) Opened(c *Coordinator) { m.coord.Store(c) }

// WorkerConnected implements Observer.
func (m *Metrics) WorkerConnected(string) { m.workers.Inc(); m.connections.Inc() }

// WorkerDisconnected implements Observer.
func (m *Metrics) WorkerDisconnected(string) { m.workers.Dec() }

// Granted implements Observer.
func (m *Metrics) Granted(_ string, n int) { m.granted.Add(float64(n)) }

// Judged implements Observer. Results are not labelled by sweep:
// a worker could name any sweep id, and progress per sweep is in
// misslab_sweep_jobs.
func (m *Metrics) Judged(_ string, o sched.Outcome) { m.results.WithLabelValues(o.String()).Inc() }

// LeasesEnded implements Observer.
func (m *Metrics) LeasesEnded(reason string, n int) {
	switch reason {
	case "expired":
		m.expired.Add(float64(n))
	case "disconnected":
		m.lost.Add(float64(n))
	case "released":
		m.released.Add(float64(n))
	}
}

// Committed implements Observer.
func (m *Metrics) Committed(records int, took time.Duration, err error) {
	m.commit.Observe(took.Seconds())
	if err != nil {
		m.failures.Inc()
		return
	}
	m.records.Add(float64(records))
}

var _ Observer = (*Metrics)(nil)
