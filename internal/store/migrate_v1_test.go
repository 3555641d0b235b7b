package store

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// encodeV1Result writes a Result in schema 1's value version ver (1, 2
// or 3), byte by byte as those releases did.
func encodeV1Result(ver byte, r Result) []byte {
	b := []byte{ver}
	for _, v := range []float64{r.R2, r.MSE, r.FitSeconds, r.PredictSeconds} {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
	}
	strs := []string{r.ErrKind, r.ErrMsg, r.Root}
	if ver == 1 {
		strs = strs[:2]
	}
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	tail := []float64{r.RootThreshold, r.MAE, r.ImputeRMSETrain, r.ImputeRMSETest}
	for _, v := range tail[:v1ResultTail[ver]] {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// TestV1ResultVersions: schema 1's three value versions decode as those
// releases read them (version 3 keeps MAE and the imputation RMSEs bit
// for bit, NaN payloads included; versions 1 and 2 read back with MAE 0
// and NaN imputation RMSEs, version 1 without a root split), and a
// truncated, extended or unknown value is refused.
func TestV1ResultVersions(t *testing.T) {
	payload := math.Float64frombits(0x7ff8000000000001)
	r := Result{R2: 0.5, MSE: math.Copysign(0, -1), FitSeconds: 1, PredictSeconds: 2, Root: "X2", RootThreshold: -1.5,
		MAE: 0.75, ImputeRMSETrain: payload, ImputeRMSETest: 0.125}
	for _, c := range []struct {
		ver  byte
		want Result
	}{
		{3, r},
		{2, Result{R2: 0.5, MSE: r.MSE, FitSeconds: 1, PredictSeconds: 2, Root: "X2", RootThreshold: -1.5, ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}},
		{1, Result{R2: 0.5, MSE: r.MSE, FitSeconds: 1, PredictSeconds: 2, ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}},
	} {
		got, err := decodeV1Result(encodeV1Result(c.ver, r))
		if err != nil {
			t.Fatalf("version %d: %v", c.ver, err)
		}
		if !sameResult(got, c.want) {
			t.Errorf("version %d decodes to %+v, want %+v", c.ver, got, c.want)
		}
	}
	fail := Result{ErrKind: "fit", ErrMsg: "singular ∑"}
	if got, err := decodeV1Result(encodeV1Result(1, fail)); err != nil || got.ErrKind != "fit" || got.ErrMsg != "singular ∑" {
		t.Errorf("a version-1 failure decodes to %+v, %v", got, err)
	}
	v3 := encodeV1Result(3, r)
	for _, bad := range [][]byte{nil, {3}, v3[:32], v3[:len(v3)-1], append(bytes.Clone(v3), 0),
		append(encodeV1Result(2, r), make([]byte, 8)...), append([]byte{4}, v3[1:]...), append([]byte{0}, v3[1:]...)} {
		if _, err := decodeV1Result(bad); err == nil {
			t.Errorf("a value of %d bytes (version %d) decodes", len(bad), firstByte(bad))
		}
	}
}

// sameResult compares results bit for bit.
func sameResult(a, b Result) bool {
	f := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return f(a.R2, b.R2) && f(a.MSE, b.MSE) && f(a.FitSeconds, b.FitSeconds) && f(a.PredictSeconds, b.PredictSeconds) &&
		a.ErrKind == b.ErrKind && a.ErrMsg == b.ErrMsg && a.Root == b.Root && f(a.RootThreshold, b.RootThreshold) &&
		f(a.MAE, b.MAE) && (f(a.ImputeRMSETrain, b.ImputeRMSETrain) || math.IsNaN(a.ImputeRMSETrain) && math.IsNaN(b.ImputeRMSETrain) && !isPayload(b.ImputeRMSETrain)) &&
		(f(a.ImputeRMSETest, b.ImputeRMSETest) || math.IsNaN(a.ImputeRMSETest) && math.IsNaN(b.ImputeRMSETest) && !isPayload(b.ImputeRMSETest))
}

// isPayload reports whether v is a NaN other than math.NaN().
func isPayload(v float64) bool {
	return math.IsNaN(v) && math.Float64bits(v) != math.Float64bits(math.NaN())
}
