package methods

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/methodid"
)

// TestRequestJSON pins the request lines of protocol v1: regression and
// imputation requests exactly as before classification existed.
func TestRequestJSON(t *testing.T) {
	m := methodid.Method{Name: "hgb", Kind: methodid.Learner}
	tests := []struct {
		name string
		req  *request
		want string
	}{
		{"learner", func() *request {
			r := newRequest("fit_predict", learn.MethodCall{Method: m, Seed: 1234567, Threads: 1,
				Settings: learn.Settings{"max_iter": 100, "lr": 0.1}})
			r.ID = 7
			r.Train = trainFiles{X: "/d/x_train.f64", Y: "/d/y_train.f64", Rows: 800, Cols: 10}
			r.Test = testFiles{X: "/d/x_test.f64", Rows: 200, Cols: 10}
			r.Out = learnerOut{Pred: "/d/pred.f64"}
			return r
		}(), `{"protocol":1,"id":7,"op":"fit_predict","method":"hgb","seed":1234567,"threads":1,` +
			`"settings":{"lr":0.1,"max_iter":100},"train":{"x":"/d/x_train.f64","y":"/d/y_train.f64","rows":800,"cols":10},` +
			`"test":{"x":"/d/x_test.f64","rows":200,"cols":10},"out":{"pred":"/d/pred.f64"}}`},
		{"imputer", func() *request {
			r := newRequest("impute", learn.MethodCall{Method: methodid.Method{Name: "mice"}, Threads: 2})
			r.ID = 1
			r.Train = trainFiles{X: "/d/x_train.f64", Rows: 3, Cols: 2}
			r.Test = testFiles{X: "/d/x_test.f64", Rows: 1, Cols: 2}
			r.Out = imputerOut{Train: "/d/a.f64", Test: "/d/b.f64"}
			return r
		}(), `{"protocol":1,"id":1,"op":"impute","method":"mice","seed":0,"threads":2,"settings":{},` +
			`"train":{"x":"/d/x_train.f64","rows":3,"cols":2},"test":{"x":"/d/x_test.f64","rows":1,"cols":2},` +
			`"out":{"train":"/d/a.f64","test":"/d/b.f64"}}`},
		{"classifier", func() *request {
			r := newRequest(OpClassify, learn.MethodCall{Method: m, Seed: 42, Threads: 1})
			r.ID, r.Classes = 3, 4
			r.Train = trainFiles{X: "/d/x_train.f64", Y: "/d/y_train.f64", Rows: 80, Cols: 2}
			r.Test = testFiles{X: "/d/x_test.f64", Rows: 20, Cols: 2}
			r.Out = classOut{Proba: "/d/proba.f64"}
			return r
		}(), `{"protocol":1,"id":3,"op":"fit_predict_proba","method":"hgb","classes":4,"seed":42,"threads":1,"settings":{},` +
			`"train":{"x":"/d/x_train.f64","y":"/d/y_train.f64","rows":80,"cols":2},"test":{"x":"/d/x_test.f64","rows":20,"cols":2},` +
			`"out":{"proba":"/d/proba.f64"}}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.req)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.name, b, err, tc.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogging checks that starts, crashes and restarts are logged with
// the method, pid and sweep.
func TestLogging(t *testing.T) {
	f := newFixture(t, 1, fake{name: "m", behaviour: "crash-once", kind: "learner"})
	var out syncBuffer
	r, err := NewRunner(f.cat, Options{TempDir: t.TempDir(), Logger: hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f.r = r
	if err := f.run("s1", "m"); err != nil {
		t.Fatal(err)
	}
	log := out.String()
	for _, want := range []string{"started: method=m pid=", "sweep=s1", "process crashed: method=m pid=",
		`status="exit status 3"`, "restarting and retrying the call"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}
