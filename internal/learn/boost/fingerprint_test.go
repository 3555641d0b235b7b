package boost

import (
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
)

// updateFingerprints rewrites testdata/fingerprints.txt from the current
// code; run once before a change that must not alter any prediction.
var updateFingerprints = flag.Bool("update-fingerprints", false, "rewrite testdata/fingerprints.txt")

// fingerprintCase is one fit whose test predictions are hashed bit for bit.
type fingerprintCase struct {
	name string
	seed uint64
	grid float64 // > 0: features rounded to multiples of grid (ties)
	rate float64 // MCAR rate on the first three columns
	n    int     // training and test rows
	p    func(*Params)
}

func fingerprintCases() []fingerprintCase {
	def := func(*Params) {}
	return []fingerprintCase{
		{"quad-s1", 1, 0, 0.2, 1000, def},
		{"quad-s2", 2, 0, 0.2, 1000, def},
		{"quad-s3-dense", 3, 0, 0, 503, def},
		{"grid-s4", 4, 0.5, 0.2, 1000, def},
		{"grid-s5-fine", 5, 0.05, 0.4, 777, def},
		{"grid-s6-coarse", 6, 1, 0.3, 601, def},
		{"params-l1", 7, 0.25, 0.2, 500, func(p *Params) {
			p.Alpha, p.Lambda, p.MinChildWeight, p.Gamma, p.MaxDepth, p.Rounds = 0.5, 0, 3, 0.2, 4, 100
		}},
		{"params-mcw", 8, 0, 0.3, 500, func(p *Params) {
			p.MinChildWeight, p.Lambda, p.MaxDepth, p.Eta, p.Rounds = 7.5, 2, 8, 0.1, 150
		}},
		{"params-stump", 9, 0.5, 0.5, 300, func(p *Params) { p.MaxDepth, p.Rounds = 1, 50 }},
		{"params-lambda0-mcw0", 10, 0.5, 0.3, 400, func(p *Params) {
			p.Lambda, p.MinChildWeight, p.Rounds = 0, 0, 120
		}},
		{"params-deep-fine-grid", 11, 0.01, 0.6, 900, func(p *Params) {
			p.MaxDepth, p.Rounds, p.Lambda = 10, 60, 0.3
		}},
	}
}

// fingerprint fits c and returns the hex SHA-256 of its test predictions'
// float64 bits.
func fingerprint(t *testing.T, c fingerprintCase) string {
	rng := rand.New(rand.NewPCG(c.seed, 99))
	prep := func(X *mat.Dense) *mat.Dense {
		if c.grid > 0 {
			X.Apply(func(_, _ int, v float64) float64 { return math.Round(v/c.grid) * c.grid }, X)
		}
		return X
	}
	Xtr, ytr := quadratic(rng, c.n, 9, 0.5, c.rate)
	Xte, _ := quadratic(rng, c.n, 9, 0.5, c.rate)
	p := DefaultParams()
	c.p(&p)
	m, err := Fit(context.Background(), prep(Xtr), ytr, p, rng)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(context.Background(), prep(Xte))
	if err != nil {
		t.Fatal(err)
	}
	return learntest.Digest(pred)
}

// TestFingerprints checks that predictions are bit-identical to those
// recorded in testdata/fingerprints.txt (by -update-fingerprints), so that
// speed work cannot change any result.
func TestFingerprints(t *testing.T) {
	path := filepath.Join("testdata", "fingerprints.txt")
	var got []learntest.Recorded
	for _, c := range fingerprintCases() {
		got = append(got, learntest.Recorded{Name: c.name, Text: fingerprint(t, c)})
	}
	if *updateFingerprints {
		learntest.WriteRecorded(t, path, got)
		return
	}
	want := learntest.ReadRecorded(t, path)
	if len(want) != len(got) {
		t.Fatalf("%s has %d cases, want %d", path, len(want), len(got))
	}
	for i, g := range got {
		if g != want[i] {
			t.Errorf("prediction fingerprint changed:\n got %s %s\nwant %s %s", g.Name, g.Text, want[i].Name, want[i].Text)
		}
	}
}
