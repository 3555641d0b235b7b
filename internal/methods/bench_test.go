package methods

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// pyMean is a numpy learner predicting mean(y); it reads every input, as
// a real method would.
const pyMean = `import json, sys
import numpy as np

def read(p, rows, cols):
    return np.fromfile(p, dtype="<f8").reshape((cols, rows)).T

print(json.dumps({"ready": True, "protocol": 1}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    tr, te = req["train"], req["test"]
    X = read(tr["x"], tr["rows"], tr["cols"])
    Xt = read(te["x"], te["rows"], te["cols"])
    y = np.fromfile(tr["y"], dtype="<f8")
    np.full(te["rows"], y.mean(), dtype="<f8").tofile(req["out"]["pred"])
    print(json.dumps({"id": req["id"], "ok": True}), flush=True)
`

// inProcessMean is the work of the mean method done in the worker.
func inProcessMean(y []float64, Xt *mat.Dense) []float64 {
	s := 0.0
	for _, v := range y {
		s += v
	}
	m, _ := Xt.Dims()
	pred := make([]float64, m)
	for i := range pred {
		pred[i] = s / float64(len(y))
	}
	return pred
}

// benchOverhead times FitPredict of the named method on 1000 × 10
// training and test sets, and reports the time above the same mean
// computed in-process as overhead-ms/op.
func benchOverhead(b *testing.B, f *fixture, name string) {
	X, y, Xt := data(1000, 10, 1000, 0)
	for i := range y {
		y[i] = float64(i % 7)
	}
	call := f.call(name)
	run := f.r.ForSweep("bench")
	if _, _, err := run.FitPredict(b.Context(), call, X, y, Xt); err != nil { // start the process
		b.Fatal(err)
	}
	const reps = 1000
	start := time.Now()
	for range reps {
		inProcessMean(y, Xt)
	}
	inproc := time.Since(start) / reps
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := run.FitPredict(b.Context(), call, X, y, Xt); err != nil {
			b.Fatal(err)
		}
	}
	perCall := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(inproc.Nanoseconds()), "inprocess-ns/op")
	b.ReportMetric(float64(perCall-inproc)/1e6, "overhead-ms/op")
}

// tempDirs are the Runner TempDirs the benchmarks compare: the test's
// (disk-backed /tmp here) and a tmpfs when there is one.
func tempDirs(b *testing.B) map[string]string {
	dirs := map[string]string{"tmp": b.TempDir()}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "misslab-bench-")
		if err == nil {
			b.Cleanup(func() { os.RemoveAll(d) })
			dirs["shm"] = d
		}
	}
	return dirs
}

// BenchmarkCallOverhead measures a call through the Runner to the Go fake
// "mean" method (n = 1000 training and 1000 test rows, d = 10), against
// the same mean computed in-process, with the Runner's files on /tmp and
// on /dev/shm.
func BenchmarkCallOverhead(b *testing.B) {
	for _, name := range []string{"tmp", "shm"} {
		b.Run("runner-"+name, func(b *testing.B) {
			dir, ok := tempDirs(b)[name]
			if !ok {
				b.Skip("no " + name)
			}
			benchOverhead(b, newFixtureIn(b, dir, 1, fake{name: "m", behaviour: "mean", kind: "learner"}), "m")
		})
	}
	b.Run("inprocess", func(b *testing.B) {
		_, y, Xt := data(1000, 10, 1000, 0)
		for b.Loop() {
			inProcessMean(y, Xt)
		}
	})
}

// BenchmarkCallOverheadPython is BenchmarkCallOverhead with a numpy
// method, so that Python's own I/O is included (its start-up is not: the
// process is kept).
func BenchmarkCallOverheadPython(b *testing.B) {
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		b.Skipf("/usr/bin/python3 has no numpy: %v", err)
	}
	for _, name := range []string{"tmp", "shm"} {
		b.Run(name, func(b *testing.B) {
			dir, ok := tempDirs(b)[name]
			if !ok {
				b.Skip("no " + name)
			}
			f := scriptFixture(b, dir, "/usr/bin/python3", pyMean)
			f.t = b
			benchOverhead(b, f, "rt_learn")
		})
	}
}
