// Package metricstest reads metric values out of a Prometheus gatherer,
// for the tests of the worker's and the coordinator's metrics.
package metricstest

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Value returns the value of the metric name whose labels include want
// (a counter's or gauge's value, a histogram's sample count); ok is false
// when there is no such metric. A Gather error fails the test.
func Value(t testing.TB, g prometheus.Gatherer, name string, want map[string]string) (float64, bool) {
	t.Helper()
	fams, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	metric:
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v, ok := want[lp.GetName()]; ok && v != lp.GetValue() {
					continue metric
				}
			}
			return number(m), true
		}
	}
	return 0, false
}

func number(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Histogram != nil:
		return float64(m.GetHistogram().GetSampleCount())
	}
	return -1
}

// Eq returns a check that a value equals w.
func Eq(w float64) func(float64) bool { return func(v float64) bool { return v == w } }

// Between returns a check that a value lies in [a, b].
func Between(a, b float64) func(float64) bool {
	return func(v float64) bool { return v >= a && v <= b }
}

// WaitFor polls cond every 10 ms until it holds, failing the test after
// 20 s: metrics move when other goroutines get to it.
func WaitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
