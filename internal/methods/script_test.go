package methods

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// pyRoundTrip is a Python method written with protocol.md's numpy recipe:
// as an imputer it echoes the training matrix it read to echo.f64 (in its
// working directory) and fills NA with 42; as a learner it predicts the
// last column of the test matrix plus the mean target.
const pyRoundTrip = `import json, sys
import numpy as np

def read(p, rows, cols):
    return np.fromfile(p, dtype="<f8").reshape((cols, rows)).T

def write(a, p):
    np.asarray(a, dtype="<f8").ravel(order="F").tofile(p)

print(json.dumps({"ready": True, "protocol": 1}), flush=True)
for line in sys.stdin:
    req = json.loads(line)
    tr, te, out = req["train"], req["test"], req["out"]
    X = read(tr["x"], tr["rows"], tr["cols"])
    Xt = read(te["x"], te["rows"], te["cols"])
    if req["op"] == "impute":
        write(X, "echo.f64")
        write(np.where(np.isnan(X), 42.0, X), out["train"])
        write(np.where(np.isnan(Xt), 42.0, Xt), out["test"])
    else:
        y = np.fromfile(tr["y"], dtype="<f8")
        write(Xt[:, -1] + y.mean(), out["pred"])
    print(json.dumps({"id": req["id"], "ok": True}), flush=True)
`

// rRoundTrip is the same method in base R with readBin/writeBin (the
// request's fields are taken with regular expressions: no JSON package).
const rRoundTrip = `field <- function(line, obj, key) {
  o <- regmatches(line, regexpr(paste0('"', obj, '":\\{[^}]*\\}'), line))
  v <- regmatches(o, regexec(paste0('"', key, '":"?([^",}]*)'), o))[[1]][2]
  v
}
rd <- function(p, rows, cols) matrix(readBin(p, "double", n = rows*cols, size = 8, endian = "little"), rows, cols)
wr <- function(m, p) writeBin(as.double(m), p, size = 8, endian = "little")
out <- stdout()
cat('{"ready": true, "protocol": 1}\n', file = out); flush(out)
con <- file("stdin", "r")
while (length(line <- readLines(con, n = 1)) > 0) {
  id <- regmatches(line, regexec('"id":([0-9]+)', line))[[1]][2]
  op <- regmatches(line, regexec('"op":"([a-z_]+)"', line))[[1]][2]
  n <- as.integer(field(line, "train", "rows")); d <- as.integer(field(line, "train", "cols"))
  m <- as.integer(field(line, "test", "rows"))
  X <- rd(field(line, "train", "x"), n, d); Xt <- rd(field(line, "test", "x"), m, d)
  if (op == "impute") {
    wr(X, "echo.f64")
    X[is.na(X)] <- 42; Xt[is.na(Xt)] <- 42
    wr(X, field(line, "out", "train")); wr(Xt, field(line, "out", "test"))
  } else {
    y <- readBin(field(line, "train", "y"), "double", n = n, size = 8, endian = "little")
    wr(Xt[, d] + mean(y), field(line, "out", "pred"))
  }
  cat(sprintf('{"id":%s,"ok":true}\n', id), file = out); flush(out)
}
`

// specialBits are float64 values whose bits must survive a round trip:
// Go's NaN, R's NA, a negative and a signalling NaN, ±0, subnormals, and
// the extremes.
var specialBits = []uint64{
	0x7FF8000000000001, 0x7FF00000000007A2, 0xFFF8000000000000, 0x7FF0000000000001,
	0x8000000000000000, 0x0000000000000000, 0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x8000000000000001,
	math.Float64bits(1e308), math.Float64bits(-1e308), math.Float64bits(math.MaxFloat64),
	math.Float64bits(math.SmallestNonzeroFloat64), math.Float64bits(math.Pi), math.Float64bits(-1.5),
}

// scriptFixture writes script and a methods file running it with prog
// as both an imputer "rt_imp" and a learner "rt_learn", with a Runner
// whose TempDir is tmp.
func scriptFixture(t testing.TB, tmp, prog, script string) *fixture {
	dir := t.TempDir()
	src := fmt.Sprintf(`method "rt_imp" {
  kind    = "imputer"
  command = [%[1]q, "method.script"]
  files   = ["method.script"]
}
method "rt_learn" {
  kind    = "learner"
  command = [%[1]q, "method.script"]
  files   = ["method.script"]
}
`, prog)
	for name, s := range map[string]string{"methods.hcl": src, "method.script": script} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := Load(filepath.Join(dir, "methods.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(cat, Options{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return &fixture{dir: dir, cat: cat, r: r}
}

// testRoundTrip checks that a script method reads and writes float64
// bit-exactly, NaN payloads included, in column-major order.
func testRoundTrip(t *testing.T, prog, script string) {
	f := scriptFixture(t, t.TempDir(), prog, script)
	f.t = t
	rows, cols := 5, 3 // not square: a transposition cannot go unnoticed
	X := mat.NewDense(rows, cols, nil)
	for k := range rows * cols {
		X.Set(k%rows, k/rows, math.Float64frombits(specialBits[k%len(specialBits)]))
	}
	Xt := mat.NewDense(2, cols, []float64{1, 2, math.NaN(), 4, 5, 6})
	Xi, Xti, _, err := f.r.ForSweep("s").Impute(t.Context(), f.call("rt_imp"), X, Xt)
	if err != nil {
		t.Fatal(err) // includes the runner's check that observed entries came back bit-identical
	}
	echo, err := os.ReadFile(filepath.Join(f.dir, "echo.f64"))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for j := range cols {
		for i := range rows {
			binary.Write(&want, binary.LittleEndian, math.Float64bits(X.At(i, j)))
		}
	}
	if !bytes.Equal(echo, want.Bytes()) {
		t.Errorf("the matrix written back differs:\n got %x\nwant %x", echo, want.Bytes())
	}
	for i := range rows {
		for j := range cols {
			if math.IsNaN(X.At(i, j)) && Xi.At(i, j) != 42 {
				t.Errorf("NA at (%d, %d) filled with %v, want 42", i, j, Xi.At(i, j))
			}
		}
	}
	if Xti.At(0, 2) != 42 || Xti.At(1, 2) != 6 {
		t.Errorf("test matrix imputed as %v", mat.Formatted(Xti))
	}
	y := []float64{1, 2, 3, 4, 6}
	Xl := mat.NewDense(rows, cols, nil)
	pred, _, err := f.r.ForSweep("s").FitPredict(t.Context(), f.call("rt_learn"), Xl, y, Xti)
	if err != nil {
		t.Fatal(err)
	}
	if len(pred) != 2 || pred[0] != 42+3.2 || pred[1] != 6+3.2 {
		t.Errorf("pred = %v, want [45.2 9.2]", pred)
	}
}

func TestPythonNumpyRoundTrip(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skipf("/usr/bin/python3 has no numpy: %v", err)
	}
	testRoundTrip(t, "/usr/bin/python3", pyRoundTrip)
}

func TestRRoundTrip(t *testing.T) {
	if _, err := os.Stat("/usr/bin/Rscript"); err != nil {
		t.Skipf("no /usr/bin/Rscript: %v", err)
	}
	testRoundTrip(t, "/usr/bin/Rscript", rRoundTrip)
}
