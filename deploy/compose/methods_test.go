//go:build compose

package compose_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/methods"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// The Python worker image (scripts/build-python-image.sh) and the test's
// grids and methods file.
var (
	pyImage    = envOr("MISSLAB_PY_IMAGE", "misslab-py:dev")
	methodsDir = filepath.Join("deploy", "compose", "testdata", "methods")
	// fake.py: the embedded tests' stdlib-only method, behaviour by $FAKE.
	fakeMethod = filepath.Join("internal", "embedded", "testdata", "methods", "fake.py")
	// The files of the shipped methods the test's methods file uses.
	adapters = []string{"misslab_method.py", "sklearn_hgb.py", "sklearn_iterative.py"}
)

// TestMethodsOnTwoKindsOfWorkers runs a cluster of one plain worker (no
// methods) and one Python worker (misslab-py, offering the shipped
// scikit-learn methods and faulty fakes). Jobs needing a method go only
// to the Python worker, while a built-in sweep beside them runs on both;
// the external methods' scores are bit-identical to a local run on the
// host; crashes and a process killed mid-fit are retried, garbage and a
// timeout fail their pipelines with the method's stderr; and a sweep
// whose only capable worker stops waits for its methods, by name, until
// the worker is back.
func TestMethodsOnTwoKindsOfWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("a cluster of containers (about 2 minutes)")
	}
	hostFile := hostMethods(t)
	img := testImage(t)
	p := up(t, 1, "MISSLAB_EXECUTOR=experiment", "MISSLAB_PARALLEL=2",
		"MISSLAB_PY_IMAGE="+img, "MISSLAB_PY_METHODS=/methods/test.hcl")
	py := p.startPython()
	p.checkIdentities(py, hostFile)
	plain := p.containers("worker")[0]
	steps := []struct {
		name string
		run  func(p *project, plain, py string)
	}{
		{"routing", func(p *project, plain, py string) { routing(p, plain, hostFile) }},
		{"faults", func(p *project, _, py string) { methodFaults(p, py) }},
		{"stopped", func(p *project, _, py string) { stoppedWorker(p, py) }},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			q := *p
			q.t = t
			start := time.Now()
			s.run(&q, plain, py)
			t.Logf("%s: %.1fs", s.name, time.Since(start).Seconds())
		})
	}
	// Whatever ran, the plain worker never ran a job needing a method: it
	// fitted only the built-in sweep's learner families, without error.
	m := p.workerMetrics(plain)
	for series, v := range m {
		if strings.HasPrefix(series, "misslab_worker_fits_total{") && v > 0 &&
			series != `misslab_worker_fits_total{learner="forest"}` && series != `misslab_worker_fits_total{learner="linear"}` {
			t.Errorf("plain worker: %s = %v; it should have run the built-in sweep only", series, v)
		}
	}
	if v := m[`misslab_worker_jobs_total{result="error"}`]; v != 0 {
		t.Errorf("plain worker: %v jobs failed", v)
	}
}

// hostMethods copies the shipped adapters, fake.py and the test's
// methods file into a directory and returns the methods file's path
// there: the host's side of the reference run.
func hostMethods(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"test.hcl": filepath.Join(root, methodsDir, "methods.hcl"),
		"fake.py": filepath.Join(root, fakeMethod)}
	for _, a := range adapters {
		files[a] = filepath.Join(root, "examples", "methods", a)
	}
	for name, src := range files {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "test.hcl")
}

// testImage builds, from the Python image, one that also holds fake.py
// and the test's methods file in /methods (beside the image's adapters,
// which the test's hgb and sk_iterative run). It is removed after the test.
func testImage(t *testing.T) string {
	t.Helper()
	if _, err := runCmd("docker", "image", "inspect", pyImage); err != nil {
		t.Fatalf("image %s not found (run scripts/build-python-image.sh): %v", pyImage, err)
	}
	ctx := t.TempDir()
	for name, src := range map[string]string{"fake.py": fakeMethod, "test.hcl": filepath.Join(methodsDir, "methods.hcl")} {
		b, err := os.ReadFile(filepath.Join(root, src))
		if err == nil {
			err = os.WriteFile(filepath.Join(ctx, name), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	df := fmt.Sprintf("FROM %s\nCOPY fake.py test.hcl /methods/\n", pyImage)
	if err := os.WriteFile(filepath.Join(ctx, "Dockerfile"), []byte(df), 0o644); err != nil {
		t.Fatal(err)
	}
	tag := fmt.Sprintf("misslab-py-test:%d", os.Getpid())
	if out, err := runCmd("docker", "build", "-q", "-t", tag, ctx); err != nil {
		t.Fatalf("build %s: %v\n%s", tag, err, out)
	}
	t.Cleanup(func() { _, _ = runCmd("docker", "rmi", "-f", tag) }) // after the project's teardown
	return tag
}

// runCmd runs a command with a deadline and returns its combined output.
func runCmd(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out), err
}

// startPython starts the worker-py service (of the compose profile
// "methods", which up leaves out) and returns its container.
func (p *project) startPython() string {
	p.t.Helper()
	p.env = append(p.env, "COMPOSE_PROFILES=methods") // every later command, teardown included, sees worker-py
	p.compose(3*time.Minute, "up", "-d", "--no-deps", "worker-py")
	p.waitMetric("misslab_workers", "", func(v float64) bool { return v == 2 }, 90*time.Second)
	return p.containers("worker-py")[0]
}

// checkIdentities checks that the Python worker offers hgb and sk_iterative
// under the identities the host's methods file gives them (else the image
// is older than examples/methods: rebuild it).
func (p *project) checkIdentities(py, hostFile string) {
	p.t.Helper()
	cat, err := methods.Load(hostFile)
	if err != nil {
		p.t.Fatal(err)
	}
	logs := p.docker("logs", py)
	for _, name := range []string{"hgb", "sk_iterative"} {
		m, _ := cat.Lookup(name)
		if want := fmt.Sprintf("method=%s kind=%s id=%s", name, m.Kind, m.ID[:16]); !strings.Contains(logs, want) {
			p.t.Fatalf("worker-py does not offer %q: the image's methods differ from examples/methods "+
				"(rebuild it with scripts/build-python-image.sh); its log:\n%s", want, logs)
		}
	}
}

// routing submits a sweep of built-in pipelines and one that needs hgb
// and sk_iterative: the plain worker runs jobs of the first only, and the
// second's scores equal a local run's bit for bit.
func routing(p *project, plain, hostFile string) {
	c := p.client()
	builtin := p.submit(filepath.Join(root, methodsDir, "builtin.hcl"))
	byom := p.submit(filepath.Join(root, methodsDir, "byom.hcl"))
	for _, id := range []string{builtin, byom} {
		st := p.waitStatus(c, id, 3*time.Minute, "sweep complete", complete)
		if st.GetFailed() != 0 || st.GetDone() != st.GetJobs() {
			p.t.Errorf("sweep %s: final status %v", st.GetName(), st)
		}
	}
	m := p.workerMetrics(plain)
	fits := func(family string) float64 { return m[fmt.Sprintf("misslab_worker_fits_total{learner=%q}", family)] }
	p.t.Logf("plain worker fitted forest %v, linear %v, tree %v, hgb %v", fits("forest"), fits("linear"), fits("tree"), fits("hgb"))
	if fits("forest") == 0 || fits("linear") == 0 {
		p.t.Error("the plain worker ran no job of the built-in sweep")
	}
	if fits("tree") != 0 || fits("hgb") != 0 || m[`misslab_worker_jobs_total{result="error"}`] != 0 {
		p.t.Error("the plain worker ran jobs of the sweep needing methods")
	}
	grid := filepath.Join(root, methodsDir, "byom.hcl")
	sameScores(p.t, p.export(byom), localRun(p.t, grid, "--methods", hostFile), 6)
}

// methodFaults runs a sweep of faulty methods; meanwhile it kills the
// "victim" method's processes (in worker-py's container, from the host)
// mid-fit, then lets the retried calls through.
func methodFaults(p *project, py string) {
	c := p.client()
	id := p.submit(filepath.Join(root, methodsDir, "faults.hcl"))
	p.waitFile(py, "/tmp/victim.pid", time.Minute)
	killed := p.killMethod(py, "victim")
	p.t.Logf("killed %d victim process(es) mid-fit", killed)
	p.putFile(py, "/tmp/victim.go")
	st := p.waitStatus(c, id, 2*time.Minute, "faults sweep complete", complete)
	if st.GetDone() != st.GetJobs() {
		p.t.Errorf("final status %v", st)
	}
	errs := pipelineErrors(p.t, p.export(id))
	for _, ok := range []string{"tree/mia", "flaky/native", "victim/native"} {
		if e := errs[ok]; len(e) != 2 || e[0] != "" || e[1] != "" {
			p.t.Errorf("%s: errors %q, want a score in both repetitions", ok, e)
		}
	}
	// Both repetitions fail, each on a process restarted after the
	// previous failure killed it: the worker keeps serving.
	for name, want := range map[string][]string{
		"junk/native": {"method-output", `replied "this is not json"`, "fake garbage: request"},
		"slow/native": {"method-timeout", "timed out after 3s", "fake sleep: sleeping past the timeout"},
	} {
		if len(errs[name]) != 2 {
			p.t.Errorf("%s: %d repetitions, want 2", name, len(errs[name]))
		}
		for _, e := range errs[name] {
			for _, w := range want {
				if !strings.Contains(e, w) {
					p.t.Errorf("%s: error %q lacks %q", name, e, w)
				}
			}
		}
	}
	logs := p.docker("logs", py)
	for _, m := range []string{"flaky", "victim"} {
		if !strings.Contains(logs, "process crashed: method="+m) {
			p.t.Errorf("worker-py logged no crash of %s", m)
		}
	}
}

// stoppedWorker holds a sweep at a gate in worker-py, stops worker-py
// (the only worker offering the sweep's methods): the sweep waits for
// hgb and gate, by name; started again, worker-py completes it.
func stoppedWorker(p *project, py string) {
	c := p.client()
	id := p.submit(filepath.Join(root, methodsDir, "gate.hcl"))
	p.waitFile(py, "/tmp/gate.pid", time.Minute) // a job is mid-fit
	p.docker("stop", "-t", "2", py)
	st := p.waitStatus(c, id, time.Minute, "waiting for methods", func(st *pb.SweepStatus) bool { return len(st.GetWaitingFor()) > 0 })
	p.t.Logf("worker-py stopped: %d of %d jobs done, waiting for %v", st.GetDone(), st.GetJobs(), st.GetWaitingFor())
	waiting := slices.Sorted(slices.Values(st.GetWaitingFor()))
	if complete(st) || st.GetDone() >= st.GetJobs() || len(waiting) != 2 ||
		!strings.HasPrefix(waiting[0], "gate@") || !strings.HasPrefix(waiting[1], "hgb@") {
		p.t.Errorf("status %v: want the sweep unfinished, waiting for gate@… and hgb@…", st)
	}
	p.putFile(py, "/tmp/gate.go") // into the stopped container
	p.docker("start", py)
	st = p.waitStatus(c, id, 2*time.Minute, "gated sweep complete", complete)
	if st.GetFailed() != 0 || st.GetDone() != st.GetJobs() || len(st.GetWaitingFor()) != 0 {
		p.t.Errorf("final status %v", st)
	}
}

// waitFile polls until path exists in container.
func (p *project) waitFile(container, path string, timeout time.Duration) {
	p.t.Helper()
	for deadline := time.Now().Add(timeout); ; {
		if _, err := runCmd("docker", "cp", container+":"+path, p.t.TempDir()); err == nil {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("no %s in container %.12s after %v", path, container, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// putFile creates an empty file at path in container (running or not).
func (p *project) putFile(container, path string) {
	p.t.Helper()
	src := filepath.Join(p.t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(src, nil, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.docker("cp", src, container+":"+path)
}

// killMethod SIGKILLs, from the host, the processes of container whose
// command line is that of method name in the test's methods file
// (/usr/bin/python3 fake.py <name>). The container has no shell, so no
// docker exec: docker top gives their pids (the daemon's pid namespace
// must be the test's, and the test may signal uid 65532: root).
func (p *project) killMethod(container, name string) int {
	p.t.Helper()
	n := 0
	for _, line := range strings.Split(p.docker("top", container, "-eo", "pid,args"), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && f[2] == "fake.py" && f[3] == name {
			pid, err := strconv.Atoi(f[0])
			if err == nil {
				err = syscall.Kill(pid, syscall.SIGKILL)
			}
			if err != nil {
				p.t.Fatalf("kill %q: %v (the test must run as root beside the Docker daemon)", line, err)
			}
			n++
		}
	}
	if n == 0 {
		p.t.Fatalf("no process of method %s in container %.12s", name, container)
	}
	return n
}

// workerMetrics scrapes a worker container's metrics (--metrics-listen
// :9090, not published: read at the container's address on the
// project's network, which this host routes to).
func (p *project) workerMetrics(container string) map[string]float64 {
	p.t.Helper()
	ip := p.docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", container)
	m, err := scrape("http://" + ip + ":9090/metrics")
	if err != nil {
		p.t.Fatalf("metrics of worker %.12s: %v", container, err)
	}
	return m
}

// scrape reads a Prometheus text exposition: series name{labels} → value.
func scrape(url string) (map[string]float64, error) {
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.LastIndexByte(line, ' '); line != "" && line[0] != '#' && i > 0 {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				out[line[:i]] = v
			}
		}
	}
	return out, sc.Err()
}

// pipelineErrors returns the error column of an export's r2 rows by
// pipeline (without its "@method=id" suffix), one entry per repetition.
func pipelineErrors(t *testing.T, b []byte) map[string][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("export is not a CSV with rows: %v", err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	out := map[string][]string{}
	for _, r := range recs[1:] {
		if r[col["metric"]] == "r2" {
			name, _, _ := strings.Cut(r[col["pipeline"]], "@")
			out[name] = append(out[name], r[col["error"]])
		}
	}
	return out
}
