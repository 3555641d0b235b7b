package store

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// randomResult draws a result whose numbers include the special values
// (±0, NaN with payloads, ±Inf, subnormals) and whose text fields are
// empty, short, invalid UTF-8 or longer than the store keeps.
func randomResult(r *rand.Rand) Result {
	f := func() float64 {
		switch r.IntN(8) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return math.Float64frombits(0x7ff8000000000000 | r.Uint64()&0xfffffffffffff | 1)
		case 3:
			return math.Inf(1 - 2*r.IntN(2))
		case 4:
			return math.Float64frombits(r.Uint64() & 0xfffffffffffff) // subnormal
		}
		return math.Float64frombits(r.Uint64())
	}
	s := func() string {
		switch r.IntN(5) {
		case 0:
			return ""
		case 1:
			return "X3"
		case 2:
			return "bad \xff\xfe utf-8"
		case 3:
			return strings.Repeat("é", 3000) // past every bound, cut inside a rune
		}
		return "fit: singular matrix"
	}
	res := Result{R2: f(), MSE: f(), FitSeconds: f(), PredictSeconds: f(), ErrKind: s(), ErrMsg: s(), Root: s(),
		RootThreshold: f(), MAE: f(), ImputeRMSETrain: f(), ImputeRMSETest: f()}
	if r.IntN(2) == 0 {
		res.Class = &ClassScores{LogLoss: f(), Brier: f(), AUC: f(), AUCHandTill: f(), Accuracy: f(), BalancedAccuracy: f(), ECE: f()}
		for range r.IntN(12) {
			counts := []uint64{0, 1, 1 << 40, math.MaxUint64}
			res.Class.Reliability = append(res.Class.Reliability,
				CalibrationBin{Count: counts[r.IntN(4)], Correct: counts[r.IntN(4)], Confidence: f()})
		}
	}
	return res
}

// TestResultCodecMatchesProtobuf: the hand codec of results writes the
// bytes protobuf writes for misslab.store.v1.Result (deterministic) and
// reads what protobuf reads, bit for bit, on 20,000 random results; and
// it skips a field it does not know, as protobuf does.
func TestResultCodecMatchesProtobuf(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20_000 {
		res := randomResult(r)
		got := appendResult(nil, res)
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(resultMessage(res))
		must(t, err)
		if !bytes.Equal(got, want) {
			t.Fatalf("result %d %+v: hand encoding\n%x\nprotobuf\n%x", i, res, got, want)
		}
		back, err := parseResult(got)
		must(t, err)
		var m storev1.Result
		must(t, proto.Unmarshal(want, &m))
		if pb := resultRecord(&m); !sameBits(back, pb) {
			t.Fatalf("result %d: hand decoding %+v, protobuf %+v", i, back, pb)
		}
	}
	withUnknown := append(appendResult(nil, Result{R2: 0.5}), 0xa0, 0x06, 0x2a) // field 100, varint 42
	if got, err := parseResult(withUnknown); err != nil || got.R2 != 0.5 {
		t.Errorf("a result with an unknown field: %+v, %v", got, err)
	}
	for _, bad := range [][]byte{{0x09, 1, 2}, {0x2a, 0x05, 'a'}, {0x08, 0x01}, {0xff}} {
		if _, err := parseResult(bad); err == nil {
			t.Errorf("parseResult(%x) decoded", bad)
		}
	}
}

// sameBits compares results with their floats bit for bit.
func sameBits(a, b Result) bool {
	f := math.Float64bits
	return f(a.R2) == f(b.R2) && f(a.MSE) == f(b.MSE) && f(a.FitSeconds) == f(b.FitSeconds) &&
		f(a.PredictSeconds) == f(b.PredictSeconds) && a.ErrKind == b.ErrKind && a.ErrMsg == b.ErrMsg && a.Root == b.Root &&
		f(a.RootThreshold) == f(b.RootThreshold) && f(a.MAE) == f(b.MAE) && f(a.ImputeRMSETrain) == f(b.ImputeRMSETrain) &&
		f(a.ImputeRMSETest) == f(b.ImputeRMSETest) && sameClassBits(a.Class, b.Class)
}

// sameClassBits compares class scores bit for bit (nil equals nil only).
func sameClassBits(a, b *ClassScores) bool {
	if a == nil || b == nil {
		return a == b
	}
	for i, v := range classFields(a) {
		if math.Float64bits(*v) != math.Float64bits(*classFields(b)[i]) {
			return false
		}
	}
	if len(a.Reliability) != len(b.Reliability) {
		return false
	}
	for i, x := range a.Reliability {
		y := b.Reliability[i]
		if x.Count != y.Count || x.Correct != y.Correct || math.Float64bits(x.Confidence) != math.Float64bits(y.Confidence) {
			return false
		}
	}
	return true
}
