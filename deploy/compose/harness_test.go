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
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/client"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// Shared by every test: the host's coordinator binary (the client), the
// dev PKI the tests generate, and the image under test.
var (
	bin   string // host coordinator binary
	certs string // dev CA, certificates and token (readable by uid 65532)
	image = envOr("MISSLAB_IMAGE", "misslab:dev")
	root  string // repository root
)

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// composeCmd is docker-compose (v1, Debian's) or else `docker compose` (v2).
var composeCmd = func() []string {
	if _, err := exec.LookPath("docker-compose"); err == nil {
		return []string{"docker-compose"}
	}
	return []string{"docker", "compose"}
}()

func TestMain(m *testing.M) {
	os.Exit(setup(m))
}

func setup(m *testing.M) int {
	wd, _ := os.Getwd()
	root = filepath.Join(wd, "..", "..")
	tmp, err := os.MkdirTemp("", "misslab-compose-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.Command("docker", "image", "inspect", image).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "compose tests: image %s not found (run make image): %v\n%s", image, err, out)
		return 1
	}
	bin = filepath.Join(tmp, "coordinator")
	build := exec.Command("go", "build", "-o", bin, "./cmd/coordinator")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build coordinator: %v\n%s", err, out)
		return 1
	}
	// A fresh dev CA for this run; 0644 keys so that the containers' user
	// (65532) can read the bind mount.
	certs = filepath.Join(tmp, "certs")
	if err := auth.WriteDevPKI(certs, auth.DefaultHosts, 2*time.Hour, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Chmod(certs, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// project is one compose project (its own network and volume).
type project struct {
	t    *testing.T
	name string
	env  []string
}

// up starts a project of one coordinator and workers workers; settings
// are MISSLAB_* variables of docker-compose.yml. It is torn down (volumes
// included) when the test ends, with its logs printed if the test failed.
func up(t *testing.T, workers int, settings ...string) *project {
	t.Helper()
	name := "mlct-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	p := &project{t: t, name: name, env: append(os.Environ(), "MISSLAB_IMAGE="+image, "MISSLAB_CERTS="+certs,
		"MISSLAB_PORT=0", "MISSLAB_METRICS_PORT=0", "MISSLAB_CLUSTER=ci")}
	p.env = append(p.env, settings...)
	p.compose(2*time.Minute, "down", "-v", "--remove-orphans", "-t", "1") // leftovers of an aborted run
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := p.composeErr(time.Minute, "logs", "--no-color", "--tail", "60")
			t.Logf("logs of %s:\n%s", name, out)
		}
		p.compose(2*time.Minute, "down", "-v", "--remove-orphans", "-t", "5")
	})
	start := time.Now()
	p.compose(3*time.Minute, "up", "-d", "--scale", fmt.Sprintf("worker=%d", workers))
	p.waitMetric("misslab_workers", "", func(v float64) bool { return v == float64(workers) }, 90*time.Second)
	t.Logf("%s: coordinator and %d workers up in %.1fs", name, workers, time.Since(start).Seconds())
	return p
}

func (p *project) composeErr(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, composeCmd[0], append(append(composeCmd[1:], "-p", p.name, "-f",
		filepath.Join(root, "deploy", "compose", "docker-compose.yml")), args...)...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// compose runs docker-compose and fails the test if it fails.
func (p *project) compose(timeout time.Duration, args ...string) string {
	p.t.Helper()
	out, err := p.composeErr(timeout, args...)
	if err != nil {
		p.t.Fatalf("docker-compose %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// docker runs a docker command and fails the test if it fails.
func (p *project) docker(args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// containers returns the ids of a service's containers, in replica order.
func (p *project) containers(service string) []string {
	p.t.Helper()
	out := p.docker("ps", "-a", "--filter", "label=com.docker.compose.project="+p.name,
		"--filter", "label=com.docker.compose.service="+service,
		"--format", `{{.Label "com.docker.compose.container-number"}} {{.ID}}`)
	byNum := map[int]string{}
	for _, line := range strings.Split(out, "\n") {
		var n int
		var id string
		if _, err := fmt.Sscan(line, &n, &id); err == nil {
			byNum[n] = id
		}
	}
	ids := make([]string, 0, len(byNum))
	for i := 1; i <= len(byNum); i++ {
		ids = append(ids, byNum[i])
	}
	return ids
}

// port returns the host address published for a port of the coordinator
// (it changes when the container restarts).
func (p *project) port(inner int) string {
	p.t.Helper()
	return strings.TrimSpace(p.compose(time.Minute, "port", "coordinator", strconv.Itoa(inner)))
}

// clientArgs are the security flags of a client that may talk to p.
func clientArgs() []string {
	return []string{"--tls-ca", filepath.Join(certs, "ca.pem"), "--token-file", filepath.Join(certs, "token"), "--cluster", "ci"}
}

// cli runs the host's coordinator binary; it returns combined output.
func (p *project) cli(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	return string(out), err
}

// submit submits a grid (detached) and returns its sweep id.
func (p *project) submit(grid string, extra ...string) string {
	p.t.Helper()
	args := append([]string{"submit", grid, "--detach", "--addr", p.port(7420)}, clientArgs()...)
	out, err := p.cli(append(args, extra...)...)
	if err != nil {
		p.t.Fatalf("submit: %v\n%s", err, out)
	}
	f := strings.Fields(out)
	return f[len(f)-1]
}

// client returns a Go client of the coordinator with the test's credentials.
func (p *project) client() *client.Client {
	p.t.Helper()
	cfg := auth.ClientConfig{CA: filepath.Join(certs, "ca.pem"), TokenFile: filepath.Join(certs, "token"), Cluster: "ci"}
	opts, err := cfg.DialOptions()
	if err != nil {
		p.t.Fatal(err)
	}
	c, err := client.Dial(p.port(7420), opts...)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { c.Close() })
	return c
}

// status returns a sweep's status, or nil while the coordinator does not answer.
func status(c *client.Client, id string) *pb.SweepStatus {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := c.Status(ctx, &pb.StatusRequest{SweepId: id})
	if err != nil || len(resp.GetSweeps()) != 1 {
		return nil
	}
	return resp.GetSweeps()[0]
}

// waitStatus polls until cond holds for the sweep's status.
func (p *project) waitStatus(c *client.Client, id string, timeout time.Duration, what string, cond func(*pb.SweepStatus) bool) *pb.SweepStatus {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	var last *pb.SweepStatus
	for time.Now().Before(deadline) {
		if st := status(c, id); st != nil {
			last = st
			if cond(st) {
				return st
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.t.Fatalf("%s: not reached in %v; last status %v", what, timeout, last)
	return nil
}

func complete(st *pb.SweepStatus) bool { return st.GetState() == pb.SweepStatus_STATE_COMPLETE }

// metrics scrapes the coordinator's metrics: series name{labels} → value.
func (p *project) metrics() map[string]float64 {
	p.t.Helper()
	out := map[string]float64{}
	resp, err := http.Get("http://" + p.port(9090) + "/metrics")
	if err != nil {
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

func (p *project) waitMetric(name, labels string, cond func(float64) bool, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if v, ok := p.metrics()[name+labels]; ok && cond(v) {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	p.t.Fatalf("metric %s%s: condition not met in %v (now %v)", name, labels, timeout, p.metrics()[name+labels])
}

// export writes a sweep's CSV through the CLI and returns it.
func (p *project) export(id string) []byte {
	p.t.Helper()
	file := filepath.Join(p.t.TempDir(), "export.csv")
	out, err := p.cli(append([]string{"export", id, "--out", file, "--addr", p.port(7420)}, clientArgs()...)...)
	if err != nil {
		p.t.Fatalf("export: %v\n%s", err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		p.t.Fatal(err)
	}
	return b
}

// logs returns a service's logs.
func (p *project) logs(service string) string {
	return p.compose(time.Minute, "logs", "--no-color", service)
}

// localRun runs grid on this host with `coordinator run` and returns the CSV.
func localRun(t *testing.T, grid string, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, append([]string{"run", grid, "--out", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("local run: %v\n%s", err, out)
	}
	t.Logf("local reference run of %s: %.1fs", filepath.Base(grid), time.Since(start).Seconds())
	b, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// table is an exported CSV keyed by (scenario, rep, pipeline, metric).
type table struct {
	rows  map[string][2]string // key → (value, root)
	dups  []string
	count map[string]int // pipeline,metric → rows
}

func parseCSV(t *testing.T, b []byte) table {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("export is not a CSV with rows: %v (%d records)", err, len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"scenario", "rep", "fold", "pipeline", "metric", "value", "root"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("export lacks column %q: %v", h, recs[0])
		}
	}
	tb := table{rows: map[string][2]string{}, count: map[string]int{}}
	for _, r := range recs[1:] {
		key := strings.Join([]string{r[col["scenario"]], r[col["rep"]], r[col["fold"]], r[col["pipeline"]], r[col["metric"]]}, ",")
		if _, dup := tb.rows[key]; dup {
			tb.dups = append(tb.dups, key)
		}
		tb.rows[key] = [2]string{r[col["value"]], r[col["root"]]}
		tb.count[r[col["pipeline"]]+","+r[col["metric"]]]++
	}
	return tb
}

// sameScores checks that got has exactly the rows of want (no row
// missing, none twice, jobs of each pipeline and metric) and that every
// score (r2, mse, the root split) is bit-identical: the CSV prints
// float64s in shortest round-trip form, so equal text is equal bits.
func sameScores(t *testing.T, got, want []byte, jobs int) {
	t.Helper()
	g, w := parseCSV(t, got), parseCSV(t, want)
	if len(g.dups) > 0 {
		t.Errorf("%d rows exported twice, e.g. %s", len(g.dups), g.dups[0])
	}
	for pm, n := range w.count {
		if g.count[pm] != jobs || n != jobs {
			t.Errorf("%s: %d rows, reference %d, want %d (one per job)", pm, g.count[pm], n, jobs)
		}
	}
	if len(g.rows) != len(w.rows) {
		t.Errorf("%d rows, reference %d", len(g.rows), len(w.rows))
	}
	compared := 0
	for key, wv := range w.rows {
		metric := key[strings.LastIndexByte(key, ',')+1:]
		if metric == "fit_seconds" || metric == "predict_seconds" {
			continue
		}
		if gv, ok := g.rows[key]; !ok || gv != wv {
			t.Errorf("%s: got %q, reference %q", key, g.rows[key], wv)
			continue
		}
		compared++
	}
	t.Logf("%d rows (%d jobs), %d scores bit-identical to the reference", len(g.rows), jobs, compared)
}
