package sim

import (
	"testing"
)

// BenchmarkGenerateQuadratic draws one repetition of Experiment 1
// (quadratic, d = 9, n_train = n_test = 1000, MCAR 20% on 3 columns).
// Target: < 1 ms and < 1 MiB per repetition.
func BenchmarkGenerateQuadratic(b *testing.B) {
	s, _ := Defaults(Quadratic)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Generate(s, 1, i); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateMNAR is Experiment 1 under censoring (per-column sort).
func BenchmarkGenerateMNAR(b *testing.B) {
	s, _ := Defaults(Quadratic)
	s.Mechanism = MNAR
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Generate(s, 1, i); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateFriedmanMillion draws 10⁶ training rows of the
// Friedman model (d = 10, MCAR 20% on every column). Target: < 1 s.
func BenchmarkGenerateFriedmanMillion(b *testing.B) {
	s, _ := Defaults(Friedman)
	s.NTrain, s.NTest = 1_000_000, 1
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Generate(s, 1, i); err != nil {
			b.Fatal(err)
		}
	}
}

func benchBayes(b *testing.B, model, mechanism string) {
	s, _ := Defaults(model)
	s.Mechanism = mechanism
	rep, err := Generate(s, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BayesPredict(s, rep.Test.X); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBayesPredictFriedman predicts a 1000-row Friedman test set.
func BenchmarkBayesPredictFriedman(b *testing.B) { benchBayes(b, Friedman, MCAR) }

// BenchmarkBayesPredictNonlinear predicts a 1000-row Model 4 test set
// (posterior quadrature over the hidden variable for each row).
func BenchmarkBayesPredictNonlinear(b *testing.B) { benchBayes(b, NonlinearHigh, MCAR) }

// BenchmarkBayesPredictLinearMNAR predicts a 1000-row linear test set
// under censoring (20% on every column: adaptive Gauss–Hermite over the
// common factor for each row with a censored entry). Target: < 10 ms.
func BenchmarkBayesPredictLinearMNAR(b *testing.B) { benchBayes(b, Linear, MNAR) }

// BenchmarkStream derives one random stream.
func BenchmarkStream(b *testing.B) {
	s, _ := Defaults(Quadratic)
	id := s.Canonical()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Stream(1, id, i, PurposeTrain)
	}
}
