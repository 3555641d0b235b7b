package stats

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// readClassCase reads testdata/class/case<i>.csv: the true classes and
// the n × k probabilities.
func readClassCase(t *testing.T, i int) (p []float64, k int, y []int) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "class", fmt.Sprintf("case%d.csv", i)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	k = len(rows[0]) - 1
	for _, r := range rows[1:] {
		c, _ := strconv.Atoi(r[0])
		y = append(y, c)
		for _, v := range r[1:] {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			p = append(p, x)
		}
	}
	return p, k, y
}

// TestAUCMatchesPROC: the binary AUC, the one-vs-rest mean and Hand and
// Till's M equal pROC 1.18.0's on the cases of make_class_golden.R (ties
// included), to 1e-12.
func TestAUCMatchesPROC(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "class", "expected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		i, _ := strconv.Atoi(r[0])
		auc, _ := strconv.ParseFloat(r[2], 64)
		ht, _ := strconv.ParseFloat(r[3], 64)
		p, k, y := readClassCase(t, i)
		s, err := ScoreClasses(p, k, y)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if math.Abs(s.AUC-auc) > 1e-12 || math.Abs(s.AUCHandTill-ht) > 1e-12 {
			t.Errorf("case %d (k = %d): AUC %.17g and Hand-Till %.17g, pROC %.17g and %.17g", i, k, s.AUC, s.AUCHandTill, auc, ht)
		}
	}
}

// TestClassScoresByHand: the other scores on small cases worked by hand.
func TestClassScoresByHand(t *testing.T) {
	ln := math.Log
	cases := []struct {
		name string
		p    []float64
		k    int
		y    []int
		want ClassScores
		bins map[int]CalibrationBin // Reliability's non-empty bins (0-based)
	}{
		{
			// rows: (0.8, 0.2) y=0; (0.3, 0.7) y=1; (0.6, 0.4) y=1; (0.5, 0.5) y=0.
			// log-loss: −(ln .8 + ln .7 + ln .4 + ln .5)/4; Brier: (.2² + .3² + .6² + .5²)/4 = .185;
			// predictions 0, 1, 0, 0 (tie → class 0): accuracy 3/4, recalls 2/2 and 1/2 → 3/4;
			// AUC: positives .7, .4 against negatives .2, .5: (1+1) + (1+0) = 3 of 4 → .75;
			// ECE: top probabilities .8 (bin 8, right), .7 (bin 7, right), .6 (bin 6, wrong),
			// .5 (bin 5, right): (.2 + .3 + .6 + .5)/4 = .4.
			"binary", []float64{0.8, 0.2, 0.3, 0.7, 0.6, 0.4, 0.5, 0.5}, 2, []int{0, 1, 1, 0},
			ClassScores{LogLoss: -(ln(.8) + ln(.7) + ln(.4) + ln(.5)) / 4, Brier: .185, AUC: .75, AUCHandTill: .75,
				Accuracy: .75, BalancedAccuracy: .75, ECE: .4},
			map[int]CalibrationBin{7: {1, 1, .8}, 6: {1, 1, .7}, 5: {1, 0, .6}, 4: {1, 1, .5}},
		},
		{
			// three classes, rows (1, 0, 0) y=0; (0, .5, .5) y=2; (.2, .2, .6) y=1.
			// log-loss: −(ln(1 − 1e−15) + ln .5 + ln .2)/3; Brier: (0 + (.25+.25) + (.04+.64+.36))/3 = 1.54/3;
			// predictions 0, 1 (tie → 1), 2: accuracy 1/3, recalls 1, 0, 0 → 1/3;
			// ECE: 1 (bin 9, right), .5 (bin 4, wrong), .6 (bin 5, wrong): (0 + .5 + .6)/3.
			"three classes", []float64{1, 0, 0, 0, .5, .5, .2, .2, .6}, 3, []int{0, 2, 1},
			ClassScores{LogLoss: -(ln(1-1e-15) + ln(.5) + ln(.2)) / 3, Brier: 1.54 / 3, Accuracy: 1.0 / 3,
				BalancedAccuracy: 1.0 / 3, ECE: 1.1 / 3},
			map[int]CalibrationBin{9: {1, 1, 1}, 4: {1, 0, .5}, 5: {1, 0, .6}},
		},
		{
			// a confident mistake costs −ln 1e−15, not +Inf
			"clipped", []float64{1, 0, 0, 1}, 2, []int{1, 1},
			ClassScores{LogLoss: -(ln(1e-15) + ln(1-1e-15)) / 2, Brier: .5, AUC: math.NaN(), AUCHandTill: math.NaN(),
				Accuracy: .5, BalancedAccuracy: .5, ECE: .5},
			map[int]CalibrationBin{9: {2, 1, 2}}, // both rows' top probability is 1
		},
	}
	for _, c := range cases {
		got, err := ScoreClasses(c.p, c.k, c.y)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.k > 2 {
			c.want.AUC, c.want.AUCHandTill = got.AUC, got.AUCHandTill // pinned by TestAUCMatchesPROC
		}
		for _, f := range []struct {
			name      string
			got, want float64
		}{{"log-loss", got.LogLoss, c.want.LogLoss}, {"Brier", got.Brier, c.want.Brier}, {"AUC", got.AUC, c.want.AUC},
			{"Hand-Till", got.AUCHandTill, c.want.AUCHandTill}, {"accuracy", got.Accuracy, c.want.Accuracy},
			{"balanced accuracy", got.BalancedAccuracy, c.want.BalancedAccuracy}, {"ECE", got.ECE, c.want.ECE}} {
			if !(math.Abs(f.got-f.want) <= 1e-12 || math.IsNaN(f.got) && math.IsNaN(f.want)) {
				t.Errorf("%s: %s %.17g, want %.17g", c.name, f.name, f.got, f.want)
			}
		}
		for b, got := range got.Reliability {
			if want := c.bins[b]; got != want {
				t.Errorf("%s: reliability bin %d = %+v, want %+v", c.name, b, got, want)
			}
		}
	}
}

// TestScoreClassesRefusesBadInput: shapes, classes and probabilities out
// of range are errors, never scores.
func TestScoreClassesRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
		k    int
		y    []int
	}{
		{"one class", []float64{1, 1}, 1, []int{0, 0}},
		{"short", []float64{0.5, 0.5}, 2, []int{0, 1}},
		{"class out of range", []float64{0.5, 0.5}, 2, []int{2}},
		{"NaN", []float64{math.NaN(), 1}, 2, []int{0}},
		{"sum", []float64{0.5, 0.6}, 2, []int{0}},
		{"sum just beyond the tolerance", []float64{0.5, 0.5 + 2e-6}, 2, []int{0}},
		{"no rows", nil, 2, nil},
	} {
		if _, err := ScoreClasses(c.p, c.k, c.y); !errors.Is(err, ErrClassScores) {
			t.Errorf("%s: %v, want ErrClassScores", c.name, err)
		}
	}
	// A float32 softmax (XGBoost's multi:softprob) sums to 1 only within
	// float32 rounding; such rows are scored as given.
	p := []float64{0.2, 0.3000000224, 0.5, 0.1, 0.1, 0.79999993}
	if _, err := ScoreClasses(p, 3, []int{1, 2}); err != nil {
		t.Errorf("float32-rounded rows: %v", err)
	}
}
