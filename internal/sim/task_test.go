package sim

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestDefaultScales: with the default scale and the median threshold,
// the Bayes accuracy on complete data is 0.85 for every model with a
// binary task, at the paper's defaults; the Bayes classifier predicts
// each class for half the population, and P(Y = 1) is what task.go
// documents (above 1/2 where η is skewed to the right).
func TestDefaultScales(t *testing.T) {
	const n = 1 << 18
	for _, m := range binaryModels {
		s, err := Defaults(m)
		if err != nil {
			t.Fatal(err)
		}
		c, err := MedianThreshold(m, s.D, s.Rho)
		if err != nil {
			t.Fatal(err)
		}
		a := DefaultScale(m)
		l := newLaw(Scenario{Model: m, D: s.D, Rho: s.Rho})
		r := Stream(1, "default-scales", 0, "check") // another stream than the median's
		x := make([]float64, s.D)
		acc, pos, above := 0.0, 0.0, 0.0
		for range n {
			l.drawX(r, x)
			p := sigmoid(a * (l.signal(x) - c))
			acc += math.Max(p, 1-p)
			pos += p
			if p > 0.5 {
				above++
			}
		}
		acc, pos, above = acc/n, pos/n, above/n
		if math.Abs(acc-0.85) > 0.002 || math.Abs(above-0.5) > 0.005 || math.Abs(pos-positiveRates[m]) > 0.005 {
			t.Errorf("%s: scale %v, threshold %v: Bayes accuracy %.4f (want 0.85 ± 0.002), Bayes predicts 1 for %.4f (want 0.5), "+
				"P(Y = 1) %.4f (want %v)", m, a, c, acc, above, pos, positiveRates[m])
		}
	}
}

// TestBinaryScenarios: a binary task's identity names its task, scale and
// threshold (regression identities are unchanged); invalid ones are
// refused naming the field; draws are 0/1 with the frequency the logistic
// link gives.
func TestBinaryScenarios(t *testing.T) {
	q, _ := Defaults(Quadratic)
	reg := q.Canonical()
	b := q
	b.Task, b.Scale, b.Threshold, b.Noise = Binary, 0.782, 4.2, 0
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	if c := b.Canonical(); !strings.HasPrefix(c, strings.Replace(reg, ";noise=0.1", ";noise=0", 1)) ||
		!strings.HasSuffix(c, ";task=binary;scale=0.782;threshold=4.2") {
		t.Errorf("binary canonical %q", c)
	}
	if strings.Contains(reg, "task") {
		t.Errorf("a regression identity names its task: %q", reg)
	}
	for _, c := range []struct {
		edit func(*Scenario)
		want string
	}{
		{func(s *Scenario) { s.Scale = 0 }, "scale"},
		{func(s *Scenario) { s.Threshold = math.Inf(1) }, "threshold"},
		{func(s *Scenario) { s.Noise = 0.1 }, "noise"},
		{func(s *Scenario) { s.Model, s.D, s.Columns, s.Rho, s.Rate = Example1, 1, []int{0}, 0, 0.5 }, "toy settings"},
		{func(s *Scenario) { s.Task = "ordinal" }, "task"},
		{func(s *Scenario) { s.Task = Regression }, "scale and threshold"},
	} {
		s := b
		c.edit(&s)
		if err := s.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want ErrInvalid naming %q", s, err, c.want)
		}
	}
	rep, err := Generate(b, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	ones := 0
	for _, y := range rep.Train.Y {
		if y != 0 && y != 1 {
			t.Fatalf("binary target %v", y)
		}
		ones += int(y)
	}
	if p := float64(ones) / float64(len(rep.Train.Y)); math.Abs(p-0.5) > 0.06 {
		t.Errorf("P(Y = 1) = %v in 1000 draws, want about 0.5", p)
	}
	if _, _, err := Variance(b); !errors.Is(err, ErrInvalid) {
		t.Errorf("Var(Y) of a binary task: %v, want ErrInvalid", err)
	}
}
