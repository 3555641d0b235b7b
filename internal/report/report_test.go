package report

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/misslab/misslab/internal/stats"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// goldenInput is a small but complete report: two mechanisms × two
// learner families with a failed pipeline and failure messages, one
// learning-curve model over three sizes with a Bayes rate, stump
// choices and simulated theory points.
func goldenInput() Input {
	in := fixture(12)
	keepPl := map[string]bool{"tree/mia": true, "tree/mean": true, "tree/mean+mask": true, "tree/surrogate": true,
		"svm/mean": true, "svm/gaussian": true, "svm/oor": true}
	keepSc := map[string]bool{"quadratic/mcar/0.2": true, "quadratic/mnar/0.2": true}
	in.Records = slices.DeleteFunc(in.Records, func(r stats.Record) bool { return !keepPl[r.Pipeline] || !keepSc[r.Scenario] })
	in.Scenarios = slices.DeleteFunc(in.Scenarios, func(s Scenario) bool { return !keepSc[s.Key] })
	in.Failures = slices.DeleteFunc(in.Failures, func(f Failure) bool { return f.Pipeline != "" && !keepPl[f.Pipeline] })
	c := curveFixture(8)
	c.Records = slices.DeleteFunc(c.Records, func(r stats.Record) bool {
		return !strings.HasPrefix(r.Scenario, "linear") || !strings.HasPrefix(r.Pipeline, "tree/")
	})
	c.Scenarios = slices.DeleteFunc(c.Scenarios, func(s Scenario) bool { return !strings.HasPrefix(s.Key, "linear") })
	in.Records = append(in.Records, c.Records...)
	in.Scenarios = append(in.Scenarios, c.Scenarios...)
	in.Curves, in.Choices, in.Theory = c.Curves, c.Choices, c.Theory
	return in
}

// goldenDir renders goldenInput once per test binary; the tests that
// read the full report share it.
var golden struct {
	once  sync.Once
	dir   string
	files []string
	err   error
}

func goldenReport(t *testing.T) (string, []string) {
	t.Helper()
	golden.once.Do(func() {
		golden.dir, golden.err = os.MkdirTemp("", "report-golden-")
		if golden.err == nil {
			golden.files, golden.err = Write(context.Background(), golden.dir, goldenInput())
		}
	})
	if golden.err != nil {
		t.Fatal(golden.err)
	}
	return golden.dir, golden.files
}

func TestMain(m *testing.M) {
	code := m.Run()
	if golden.dir != "" {
		os.RemoveAll(golden.dir)
	}
	os.Exit(code)
}

// TestGolden renders goldenInput and compares every file byte for byte
// with testdata/golden (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	dir, files := goldenReport(t)
	golden := filepath.Join("testdata", "golden")
	if *update {
		if err := os.RemoveAll(golden); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(golden, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(golden, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("rewrote %d golden files", len(files))
	}
	want, err := os.ReadDir(golden)
	if err != nil {
		t.Fatal(err)
	}
	var wantNames []string
	for _, e := range want {
		wantNames = append(wantNames, e.Name())
	}
	if !slices.Equal(files, wantNames) {
		t.Fatalf("files written:\n%v\ngolden files:\n%v", files, wantNames)
	}
	for _, f := range files {
		got, _ := os.ReadFile(filepath.Join(dir, f))
		exp, _ := os.ReadFile(filepath.Join(golden, f))
		if !bytes.Equal(got, exp) {
			t.Errorf("%s differs from testdata/golden/%s (%d vs %d bytes); inspect, then rerun with -update",
				f, f, len(got), len(exp))
		}
	}
}

// writePageOnly writes in's tables and index.html without drawing figures.
func writePageOnly(t *testing.T, in Input) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	files, err := write(context.Background(), dir, in, false)
	if err != nil {
		t.Fatal(err)
	}
	return dir, files
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Two renderings of the same input are byte-identical (no map order,
// goroutine schedule or clock leaks into the output), whatever the
// number of rendering goroutines.
func TestDeterministic(t *testing.T) {
	d1, f1 := goldenReport(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	d2 := t.TempDir()
	f2, err := Write(context.Background(), d2, goldenInput())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f1, f2) {
		t.Fatalf("file lists differ: %v vs %v", f1, f2)
	}
	for _, f := range f1 {
		if readFile(t, filepath.Join(d1, f)) != readFile(t, filepath.Join(d2, f)) {
			t.Errorf("%s differs between two renderings", f)
		}
	}
}

// The report lists exactly the expected files, and index.html shows
// every figure once and links every file.
func TestFilesAndPage(t *testing.T) {
	dir, files := goldenReport(t)
	var figs []string
	for _, f := range files {
		if name, ok := strings.CutSuffix(f, ".png"); ok {
			figs = append(figs, name)
			if !slices.Contains(files, name+".svg") {
				t.Errorf("%s.png has no SVG twin", name)
			}
		}
	}
	want := []string{"box-r2-1", "box-r2-2", "box-rel-1", "box-rel-2", "curves",
		"pvalues-1-1-tree", "pvalues-1-2-svm", "pvalues-2-1-tree", "pvalues-2-2-svm",
		"pvalues-3-1-tree", "pvalues-4-1-tree", "pvalues-5-1-tree", "ranks-cd", "selection", "theory-prop1", "theory-prop2",
		"timing-1", "timing-2", "timing-3", "timing-4", "timing-5"}
	if !slices.Equal(figs, want) {
		t.Errorf("figures %v\nwant %v", figs, want)
	}
	for _, f := range []string{"index.html", "results.csv", "summary.csv", "ttests.csv", "curves.csv", "selection.csv", "theory.csv"} {
		if !slices.Contains(files, f) {
			t.Errorf("missing %s", f)
		}
	}
	page := readFile(t, filepath.Join(dir, "index.html"))
	for _, f := range figs {
		if n := strings.Count(page, `<img src="`+f+`.png"`); n != 1 {
			t.Errorf("index.html shows %s.png %d times, want once", f, n)
		}
	}
	pc, err := CheckPage(dir, strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if pc.Images != len(figs) || pc.Links != len(figs)+6 { // an SVG link per figure + 6 CSV links
		t.Errorf("CheckPage = %+v, want %d images and %d links", pc, len(figs), len(figs)+6)
	}
}

// Every label reaches the page escaped.
func TestIndexEscapes(t *testing.T) {
	in := goldenInput()
	in.Sweep = `exp <script>alert("x")</script>`
	in.Scenarios[0].Title = `MCAR & "quoted" <i>`
	in.Scenarios[0].Labels = append(in.Scenarios[0].Labels, Label{"note<", "a>b"})
	dir, _ := writePageOnly(t, in)
	page := readFile(t, filepath.Join(dir, "index.html"))
	for _, raw := range []string{"<script>", "<i>", "<node-3>", `"quoted"`, "note<", "a>b"} {
		if strings.Contains(page, raw) {
			t.Errorf("index.html contains unescaped %q", raw)
		}
	}
	for _, esc := range []string{"&lt;script&gt;", "MCAR &amp; &#34;quoted&#34; &lt;i&gt;", "&lt;node-3&gt; &amp; lease expired", "note&lt;", "a&gt;b"} {
		if !strings.Contains(page, esc) {
			t.Errorf("index.html lacks escaped %q", esc)
		}
	}
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("index.html has a script element; it must be static")
	}
}

func TestBanner(t *testing.T) {
	in := goldenInput()
	in.Jobs = Jobs{Planned: 50, Done: 41, Failed: 3}
	dir, _ := writePageOnly(t, in)
	page := readFile(t, filepath.Join(dir, "index.html"))
	if !strings.Contains(page, `class="banner"`) || !strings.Contains(page, "41 of 50 jobs done; 3 failed") {
		t.Error("an incomplete sweep shows no '41 of 50 jobs done; 3 failed' banner")
	}
	in.Jobs = Jobs{Planned: 50, Done: 50}
	dir, _ = writePageOnly(t, in)
	if page := readFile(t, filepath.Join(dir, "index.html")); strings.Contains(page, `class="banner"`) {
		t.Error("a complete sweep shows a banner")
	}
	for _, c := range []struct {
		j    Jobs
		want string
	}{{Jobs{}, ""}, {Jobs{Planned: 4, Done: 4}, ""}, {Jobs{Planned: 4, Done: 4, Failed: 1}, "4 of 4 jobs done; 1 failed"},
		{Jobs{Planned: 4, Done: 2}, "2 of 4 jobs done; 0 failed"}} {
		if got := banner(c.j); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("banner(%+v) = %q, want %q", c.j, got, c.want)
		}
	}
}

// The per-scenario table's median and IQR are the type-7 quartiles of
// the completed runs, computed here by hand from the records.
func TestSummaryTableValues(t *testing.T) {
	in := goldenInput()
	dir, _ := goldenReport(t)
	page := readFile(t, filepath.Join(dir, "index.html"))
	for _, c := range []struct{ scenario, family, strategy string }{
		{"quadratic/mcar/0.2", "tree", "mia"}, {"quadratic/mnar/0.2", "svm", "gaussian"}} {
		var r2 []float64
		runs, failed := 0, 0
		for _, r := range in.Records {
			if r.Scenario == c.scenario && r.Pipeline == c.family+"/"+c.strategy {
				runs++
				if r.Failed {
					failed++
					continue
				}
				r2 = append(r2, r.R2)
			}
		}
		slices.Sort(r2)
		q := func(p float64) float64 { // R type 7, by its definition
			h := float64(len(r2)-1) * p
			lo := int(h)
			if lo+1 >= len(r2) {
				return r2[lo]
			}
			return r2[lo] + (h-float64(lo))*(r2[lo+1]-r2[lo])
		}
		row := "<tr><td>" + c.family + "</td><td>" + c.strategy + `</td><td class="num">` + strconv.Itoa(runs) +
			`</td><td class="num">` + strconv.Itoa(failed) + `</td><td class="num">` + num(q(0.5)) +
			`</td><td class="num">` + num(q(0.75)-q(0.25)) + "</td>"
		if !strings.Contains(page, row) {
			t.Errorf("index.html lacks the row %s", row)
		}
	}
}

// The CSV files are the stats writers' output on the same records, and
// ttests.csv holds one row per pair of pipelines of a family.
func TestCSVFiles(t *testing.T) {
	in := goldenInput()
	dir, _ := goldenReport(t)
	var want bytes.Buffer
	if err := stats.WriteResultsCSV(&want, in.Records); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "results.csv")); got != want.String() {
		t.Error("results.csv differs from stats.WriteResultsCSV")
	}
	sums, err := stats.Summarize(in.Records, stats.PrefixGroup("/"))
	if err != nil {
		t.Fatal(err)
	}
	want.Reset()
	if err := stats.WriteSummaryCSV(&want, sums); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "summary.csv")); got != want.String() {
		t.Error("summary.csv differs from stats.WriteSummaryCSV")
	}
	// Pairs: MCAR and MNAR have 4 tree and 3 svm pipelines (6 + 3
	// pairs each); the three linear sizes 3 tree pipelines (3 pairs each).
	lines := strings.Count(readFile(t, filepath.Join(dir, "ttests.csv")), "\n")
	if wantRows := 2*(6+3) + 3*3; lines != wantRows+1 {
		t.Errorf("ttests.csv has %d lines, want %d rows + header", lines, wantRows)
	}
}

func TestInputErrors(t *testing.T) {
	good := goldenInput()
	cases := map[string]func(*Input){
		"duplicate scenario": func(in *Input) { in.Scenarios = append(in.Scenarios, in.Scenarios[0]) },
		"non-finite R2": func(in *Input) {
			in.Records = slices.Clone(in.Records)
			in.Records[3].R2 = math.NaN()
		},
		"duplicate record": func(in *Input) { in.Records = append(slices.Clone(in.Records), in.Records[0]) },
		"alpha":            func(in *Input) { in.Alpha = 1.5 },
		"conf":             func(in *Input) { in.Conf = -1 },
		"curve size":       func(in *Input) { in.Curves.Point = func(string) (string, int, bool) { return "x", 0, true } },
	}
	for name, mod := range cases {
		in := good
		mod(&in)
		if _, err := Write(context.Background(), t.TempDir(), in); !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", name, err)
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(ctx, t.TempDir(), goldenInput()); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// A sweep without any stored result still gets a page with its banner
// and failures, and no figures.
func TestNoRecords(t *testing.T) {
	in := Input{Sweep: "empty", Jobs: Jobs{Planned: 10, Failed: 10},
		Failures: []Failure{{Scenario: "s", Rep: 0, Message: "boom"}}}
	dir := t.TempDir()
	files, err := Write(context.Background(), dir, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"index.html", "results.csv", "summary.csv", "ttests.csv"}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	page := readFile(t, filepath.Join(dir, "index.html"))
	if !strings.Contains(page, "0 of 10 jobs done; 10 failed") || !strings.Contains(page, "boom") {
		t.Error("the empty report lacks its banner or failure")
	}
}

// A scenario listed without results (its jobs all failed) gets a table
// row but no figure column; a record of an unlisted scenario is shown
// under its key.
func TestScenarioWithoutResults(t *testing.T) {
	in := goldenInput()
	in.Scenarios = append([]Scenario{{Key: "quadratic/pending", Title: "Pending", RepsPlanned: 5}}, in.Scenarios...)
	in.Records = append(slices.Clone(in.Records), stats.Record{Scenario: "extra/key", Rep: 0, Pipeline: "tree/mia", R2: 0.5, MSE: 1})
	p, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.scen); n != 7 || p.scen[0].Key != "quadratic/pending" || p.scen[6].Title != "extra/key" {
		t.Fatalf("scenarios %+v", p.scen)
	}
	res, err := analyse(p)
	if err != nil {
		t.Fatal(err)
	}
	lay := assemble(p, res)
	for _, f := range lay.figures {
		if strings.Contains(f.Caption, "Pending") || f.Section == "timing:quadratic/pending" {
			t.Errorf("figure %s covers the scenario without results", f.Name)
		}
	}
	var b strings.Builder
	if err := writePage(&b, lay.page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<tr><td>Pending</td>`) || !strings.Contains(b.String(), `0 of 5`) {
		t.Error("the scenario table lacks the pending scenario with 0 of 5 repetitions")
	}
}

// TestRelativeFigureSkipsOnePipelineFamilies: a family with a single
// pipeline is identically 0 relative to its own mean, so the relative
// figure leaves its row out while the absolute figure keeps it.
func TestRelativeFigureSkipsOnePipelineFamilies(t *testing.T) {
	in := fixture(6)
	for _, sc := range in.Scenarios {
		for rep := range 6 {
			in.Records = append(in.Records, stats.Record{Scenario: sc.Key, Rep: rep, Pipeline: "linear/mean",
				R2: 0.4 + 0.01*float64(rep), MSE: 1, FitSeconds: 1e-3, PredictSeconds: 1e-4})
		}
	}
	dir := t.TempDir()
	if _, err := Write(context.Background(), dir, in); err != nil {
		t.Fatal(err)
	}
	abs, rel := readFile(t, filepath.Join(dir, "box-r2-1.svg")), readFile(t, filepath.Join(dir, "box-rel-1.svg"))
	if !strings.Contains(abs, ">linear<") {
		t.Error("absolute figure lacks the linear row")
	}
	if strings.Contains(rel, ">linear<") || !strings.Contains(rel, ">svm<") {
		t.Error("relative figure: want the svm row and no linear row")
	}
}
