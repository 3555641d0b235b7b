package methods

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as an external method: when MISSLAB_FAKE_METHOD
// is set (by a methods file's env), TestMain runs fakeMain instead of the
// tests. Behaviours:
//
//	mean     learner predicting mean(y)          lastcol  learner predicting Xtest's last column
//	fill0    imputer filling NA with 0            env      mean, but fails if the environment leaks
//	garbage  prints a line that is not JSON      sleep    never answers
//	crash    exits during the call               crash-once  crash the first time (marker), then work
//	error    replies ok:false                    badlen   one prediction too few
//	nan      a NaN prediction                    mutate   imputer changing an observed entry
//	noready  never prints the ready line
//
// A classification request (op fit_predict_proba) is answered with the
// training classes' frequencies for every test row, or, by behaviour:
//
//	proba-short  k−1 columns          proba-nan  a NaN probability
//	proba-neg    a negative one       proba-sum  a row summing to 0.9
//
// Any request out of protocol is refused: a regression or imputation
// request that carries "classes", a classification request without it.
//
// With MISSLAB_FAKE_MARKER set, a misbehaviour happens only on the call
// that creates that marker file; later calls (in any process) work (mean
// or fill0 by op). MISSLAB_FAKE_LOG, when set, receives "start <pid>" and
// "call <pid> <first value of y or X>" lines.
func TestMain(m *testing.M) {
	if b := os.Getenv("MISSLAB_FAKE_METHOD"); b != "" {
		os.Exit(fakeMain(b))
	}
	os.Exit(m.Run())
}

// fakeRequest is the fake's view of a request.
type fakeRequest struct {
	Protocol int                `json:"protocol"`
	ID       int64              `json:"id"`
	Op       string             `json:"op"`
	Method   string             `json:"method"`
	Classes  *int               `json:"classes"`
	Seed     int64              `json:"seed"`
	Threads  int                `json:"threads"`
	Settings map[string]float64 `json:"settings"`
	Train    struct {
		X, Y       string
		Rows, Cols int
	} `json:"train"`
	Test struct {
		X          string
		Rows, Cols int
	} `json:"test"`
	Out struct {
		Pred, Train, Test, Proba string
	} `json:"out"`
}

func fakeMain(behaviour string) int {
	fmt.Fprintf(os.Stderr, "fake %s pid %d starting\n", behaviour, os.Getpid())
	fakeLog("start %d", os.Getpid())
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	if behaviour == "noready" {
		for in.Scan() {
		}
		return 0
	}
	fmt.Println(`{"ready": true, "protocol": 1}`)
	var last int64
	for in.Scan() {
		var req fakeRequest
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintf(os.Stderr, "bad request: %v\n", err)
			return 2
		}
		if req.ID != last+1 || req.Protocol != 1 || req.Threads < 1 || req.Settings == nil ||
			(req.Classes != nil) != (req.Op == OpClassify) {
			fakeReply(req.ID, fmt.Errorf("request out of protocol: %s", in.Text()))
			continue
		}
		last = req.ID
		fakeReply(req.ID, fakeServe(behaviour, &req))
	}
	return 0
}

// fakeServe handles one request; a nil error is an ok reply.
func fakeServe(behaviour string, req *fakeRequest) error {
	b := behaviour
	if b == "crash-once" {
		b = "crash"
	}
	if marker := os.Getenv("MISSLAB_FAKE_MARKER"); marker != "" && !createMarker(marker) {
		b = map[string]string{"fit_predict": "mean", "impute": "fill0", OpClassify: "freq"}[req.Op]
	}
	X := fakeRead(req.Train.X, req.Train.Rows*req.Train.Cols)
	Xt := fakeRead(req.Test.X, req.Test.Rows*req.Test.Cols)
	var y []float64
	if req.Op != "impute" {
		y = fakeRead(req.Train.Y, req.Train.Rows)
		fakeLog("call %d %v", os.Getpid(), y[0])
	} else {
		fakeLog("call %d %v", os.Getpid(), X[0])
	}
	if req.Op == OpClassify && !slices.Contains([]string{"garbage", "sleep", "crash", "error"}, b) {
		return fakeProba(req, y, b)
	}
	switch b {
	case "garbage":
		fmt.Println("this is not JSON")
	case "sleep":
		time.Sleep(time.Hour)
	case "crash":
		fmt.Fprintln(os.Stderr, "crashing on purpose")
		os.Exit(3)
	case "error":
		return errors.New("deliberate failure\nwith a second line")
	case "env":
		if err := fakeCheckEnv(); err != nil {
			return err
		}
		return fakeMean(req, y, 0, false)
	case "fill0", "mutate":
		return fakeFill(req, X, Xt, b == "mutate")
	case "lastcol":
		fakeWrite(req.Out.Pred, Xt[(req.Test.Cols-1)*req.Test.Rows:])
	case "badlen":
		return fakeMean(req, y, -1, false)
	case "nan":
		return fakeMean(req, y, 0, true)
	default:
		return fakeMean(req, y, 0, false)
	}
	return nil
}

// fakeMean writes mean(y) for every test row (plus extra values; the
// first one NaN when nan).
func fakeMean(req *fakeRequest, y []float64, extra int, nan bool) error {
	s := 0.0
	for _, v := range y {
		s += v
	}
	pred := make([]float64, req.Test.Rows+extra)
	for i := range pred {
		pred[i] = s / float64(len(y))
	}
	if nan {
		pred[0] = math.NaN()
	}
	fakeWrite(req.Out.Pred, pred)
	return nil
}

// fakeProba writes the training classes' frequencies for every test row,
// spoilt as behaviour b says.
func fakeProba(req *fakeRequest, y []float64, b string) error {
	k, m := *req.Classes, req.Test.Rows
	freq := make([]float64, k)
	for _, v := range y {
		if v != math.Trunc(v) || v < 0 || int(v) >= k {
			return fmt.Errorf("target %v is not a class code in 0..%d", v, k-1)
		}
		freq[int(v)] += 1 / float64(len(y))
	}
	cols := k
	if b == "proba-short" {
		cols--
	}
	out := make([]float64, 0, m*cols)
	for j := range cols { // column-major
		for range m {
			out = append(out, freq[j])
		}
	}
	switch b {
	case "proba-nan":
		out[m+1] = math.NaN() // class 1, row 2
	case "proba-neg":
		out[2] -= 1 // class 0, row 3
	case "proba-sum":
		out[m+3] -= 0.1 // class 1, row 4
	}
	fakeWrite(req.Out.Proba, out)
	return nil
}

// fakeFill writes X and Xt with NA filled by 0 (and, when mutate, the
// first observed entry of X changed).
func fakeFill(req *fakeRequest, X, Xt []float64, mutate bool) error {
	if mutate {
		X[slices.IndexFunc(X, func(v float64) bool { return !math.IsNaN(v) })]++
	}
	for _, m := range [][]float64{X, Xt} {
		for i, v := range m {
			if math.IsNaN(v) {
				m[i] = 0
			}
		}
	}
	fakeWrite(req.Out.Train, X)
	fakeWrite(req.Out.Test, Xt)
	return nil
}

// fakeCheckEnv fails unless the environment is exactly the protocol's.
func fakeCheckEnv() error {
	allowed := []string{"PATH", "LANG", "HOME", "TMPDIR", "MISSLAB_METHOD", "MISSLAB_PROTOCOL", "GORACE"}
	var bad []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(allowed, k) && !strings.HasPrefix(k, "MISSLAB_FAKE_") {
			bad = append(bad, k)
		}
	}
	home := os.Getenv("HOME")
	st, err := os.Stat(home)
	wd, _ := os.Getwd()
	switch {
	case len(bad) > 0:
		return fmt.Errorf("leaked variables: %v", bad)
	case home == os.Getenv("MISSLAB_FAKE_WORKER_HOME") || os.Getenv("TMPDIR") != home:
		return fmt.Errorf("HOME %q / TMPDIR %q are not private", home, os.Getenv("TMPDIR"))
	case err != nil || !st.IsDir() || st.Mode().Perm() != 0o700:
		return fmt.Errorf("HOME %q is not a 0700 directory: %v", home, err)
	case os.Getenv("LANG") != "C.UTF-8" || os.Getenv("MISSLAB_PROTOCOL") != "1" || !strings.HasPrefix(os.Getenv("MISSLAB_METHOD"), "envcheck"):
		return fmt.Errorf("LANG/MISSLAB_* wrong: %v", os.Environ())
	case os.Getenv("PATH") != os.Getenv("MISSLAB_FAKE_WORKER_PATH"):
		return fmt.Errorf("PATH %q is not the worker's", os.Getenv("PATH"))
	case wd != os.Getenv("MISSLAB_FAKE_DIR"):
		return fmt.Errorf("working directory %q, want the methods file's", wd)
	}
	return nil
}

func fakeReply(id int64, err error) {
	r := map[string]any{"id": id, "ok": err == nil, "fit_seconds": 0.001, "predict_seconds": 0.0005}
	if err != nil {
		r["error"] = err.Error()
	}
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
}

// fakeRead reads n little-endian float64 from path (an independent
// implementation of the protocol's format).
func fakeRead(path string, n int) []float64 {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	defer f.Close()
	out := make([]float64, n)
	if err := binary.Read(bufio.NewReader(f), binary.LittleEndian, out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
	return out
}

func fakeWrite(path string, v []float64) {
	f, err := os.Create(path)
	if err == nil {
		err = binary.Write(f, binary.LittleEndian, v)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(4)
	}
}

// createMarker creates the marker file; false when it already existed.
func createMarker(path string) bool {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

func fakeLog(format string, a ...any) {
	path := os.Getenv("MISSLAB_FAKE_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintf(f, format+"\n", a...)
	f.Close()
}
