package forest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

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

// bitsDigest is the SHA-256 of the predictions' IEEE bits, little-endian.
func bitsDigest(pred []float64) string {
	h := sha256.New()
	var b [8]byte
	for _, v := range pred {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestPredictionBits: every case predicts bit for bit what the code
// before the issue-14 layout work predicted (testdata/pred_bits.txt: the
// case, the SHA-256 of its prediction bits, its first prediction).
func TestPredictionBits(t *testing.T) {
	cases := bitsCases()
	if *updateBits {
		var sb strings.Builder
		for _, c := range cases {
			pred, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&sb, "%s %s %v\n", c.name, bitsDigest(pred), pred[0])
		}
		if err := os.WriteFile(filepath.FromSlash(bitsFile), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readBits(t)
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
			if got := fmt.Sprintf("%s %v", bitsDigest(pred), pred[0]); got != w {
				t.Errorf("predictions changed: got %s, recorded %s", got, w)
			}
		})
	}
}

// readBits reads testdata/pred_bits.txt into case name → "digest first".
func readBits(t *testing.T) map[string]string {
	t.Helper()
	fh, err := os.Open(filepath.FromSlash(bitsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("%s: bad line %q", bitsFile, sc.Text())
		}
		out[name] = rest
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
