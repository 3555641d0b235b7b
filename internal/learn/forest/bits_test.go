package forest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/internal/learntest"
	"github.com/misslab/misslab/internal/learn/tree"
)

// -update-bits rewrites testdata/pred_bits.txt from the current code. It
// was run once, on the code before the issue-14 layout work, and must not
// be rerun to make TestPredictionBits pass.
var updateBits = flag.Bool("update-bits", false, "rewrite testdata/pred_bits.txt from the current code")

const bitsFile = "testdata/pred_bits.txt"

// bitsCase is one fit + predict whose prediction bits are recorded.
type bitsCase struct {
	name string
	run  func() ([]float64, error)
}

// bitsCases fits forests on seeded quadratic data: complete, mean-imputed,
// with NaN under MIA, grid-valued (many ties), with NaN and ties, without
// replacement, with mtry = d, a depth bound and a larger node size, and
// the benchmark's 500-tree mean-imputed and MIA fits.
func bitsCases() []bitsCase {
	type variant struct {
		name  string
		na    bool // keep NaN (MIA)
		mean  bool // mean-impute the NaN
		grid  float64
		tweak func(*Params)
	}
	variants := []variant{
		{name: "complete"},
		{name: "mean", mean: true},
		{name: "mia", na: true},
		{name: "grid", grid: 2},
		{name: "mia-grid", na: true, grid: 4},
		{name: "mean-grid", mean: true, grid: 10},
		{name: "noreplace", na: true, tweak: func(p *Params) { p.Replace, p.SampleFraction = false, 0.632 }},
		{name: "mtry9-mns1", grid: 4, tweak: func(p *Params) { p.Mtry, p.MinNodeSize = quadD, 1 }},
		{name: "mia-depth4-mns10", na: true, tweak: func(p *Params) { p.MaxDepth, p.MinNodeSize = 4, 10 }},
	}
	var cases []bitsCase
	for _, v := range variants {
		for _, seed := range []uint64{1, 7, 23} {
			cases = append(cases, bitsCase{name: fmt.Sprintf("%s/seed%d", v.name, seed), run: func() ([]float64, error) {
				tr, te := goldenData(seed, 300, 200)
				Xtr, Xte := tr.x, te.x
				if v.na || v.mean {
					Xtr, Xte = tr.withNA(), te.withNA()
				}
				if v.grid > 0 {
					roundDense(Xtr, v.grid)
					roundDense(Xte, v.grid)
				}
				if v.mean {
					mu := colMeans(Xtr)
					Xtr, Xte = imputed(Xtr, mu), imputed(Xte, mu)
				}
				p := RangerDefaults()
				p.NumTrees = 50
				if v.na {
					p.Strategy = tree.MIA
				}
				if v.tweak != nil {
					v.tweak(&p)
				}
				return fitPredictBits(Xtr, tr.y, Xte, p, seed)
			}})
		}
	}
	for _, variant := range []string{benchMean, benchMIA} {
		cases = append(cases, bitsCase{name: "bench/" + variant, run: func() ([]float64, error) {
			Xtr, ytr, Xte := benchData(variant)
			p := RangerDefaults()
			if variant == benchMIA {
				p.Strategy = tree.MIA
			}
			return fitPredictBits(Xtr, ytr, Xte, p, 0)
		}})
	}
	return cases
}

// fitPredictBits fits with rand.NewPCG(seed, 1) and predicts Xte.
func fitPredictBits(Xtr *mat.Dense, y []float64, Xte *mat.Dense, p Params, seed uint64) ([]float64, error) {
	f, err := Fit(context.Background(), Xtr, y, p, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		return nil, err
	}
	return f.Predict(context.Background(), Xte)
}

// TestPredictionBits: every case predicts bit for bit what the code
// before the issue-14 layout work predicted (testdata/pred_bits.txt: the
// case, the SHA-256 of its prediction bits, its first prediction).
func TestPredictionBits(t *testing.T) {
	cases := bitsCases()
	path := filepath.FromSlash(bitsFile)
	if *updateBits {
		var recs []learntest.Recorded
		for _, c := range cases {
			pred, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, learntest.Recorded{Name: c.name, Text: bitsText(pred)})
		}
		learntest.WriteRecorded(t, path, recs)
		return
	}
	want := map[string]string{}
	for _, r := range learntest.ReadRecorded(t, path) {
		want[r.Name] = r.Text
	}
	if len(want) != len(cases) {
		t.Fatalf("%s has %d cases, the test %d", bitsFile, len(want), len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pred, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			w, ok := want[c.name]
			if !ok {
				t.Fatalf("no recorded bits for %s", c.name)
			}
			if got := bitsText(pred); got != w {
				t.Errorf("predictions changed: got %s, recorded %s", got, w)
			}
		})
	}
}

// bitsText is what pred_bits.txt records of a case: the digest of its
// prediction bits and its first prediction.
func bitsText(pred []float64) string {
	return fmt.Sprintf("%s %v", learntest.Digest(pred), pred[0])
}
