package store

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Results are the store's hot records (a sweep of the paper holds
// millions, and a report reads them all), so their message,
// misslab.store.v1.Result, is encoded and decoded here by hand, with
// protowire, instead of through protobuf's reflection: the same bytes as
// proto.MarshalOptions{Deterministic: true} (fields in number order, a
// zero number or empty text left out, -0 kept), about twice as fast to
// read. TestResultCodecMatchesProtobuf checks both directions against
// protobuf on random results.

// Field numbers of misslab.store.v1.Result (proto/misslab/store/v1/store.proto).
const (
	resultR2 protowire.Number = iota + 1
	resultMSE
	resultFitSeconds
	resultPredictSeconds
	resultErrorKind
	resultErrorMessage
	resultRoot
	resultRootThreshold
	resultMAE
	resultImputeRMSETrain
	resultImputeRMSETest
	resultClass
)

// appendResult appends r's message.
func appendResult(b []byte, r Result) []byte {
	f := func(n protowire.Number, v float64) {
		if bits := math.Float64bits(v); bits != 0 {
			b = protowire.AppendTag(b, n, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, bits)
		}
	}
	s := func(n protowire.Number, v string) {
		if v != "" {
			b = protowire.AppendTag(b, n, protowire.BytesType)
			b = protowire.AppendString(b, v)
		}
	}
	f(resultR2, r.R2)
	f(resultMSE, r.MSE)
	f(resultFitSeconds, r.FitSeconds)
	f(resultPredictSeconds, r.PredictSeconds)
	s(resultErrorKind, truncate(r.ErrKind, maxKindText))
	s(resultErrorMessage, truncate(r.ErrMsg, maxErrText))
	s(resultRoot, truncate(r.Root, maxKindText))
	f(resultRootThreshold, r.RootThreshold)
	f(resultMAE, r.MAE)
	f(resultImputeRMSETrain, r.ImputeRMSETrain)
	f(resultImputeRMSETest, r.ImputeRMSETest)
	if r.Class != nil {
		b = protowire.AppendTag(b, resultClass, protowire.BytesType)
		b = protowire.AppendBytes(b, appendClassScores(nil, r.Class))
	}
	return b
}

// appendClassScores appends the message misslab.store.v1.ClassScores,
// whose fields 1..7 are doubles: LogLoss, Brier, AUC, AUCHandTill,
// Accuracy, BalancedAccuracy, ECE (a zero left out, -0 and NaN kept),
// and field 8 the repeated CalibrationBin messages of Reliability.
func appendClassScores(b []byte, c *ClassScores) []byte {
	for i, v := range classFields(c) {
		if bits := math.Float64bits(*v); bits != 0 {
			b = protowire.AppendTag(b, protowire.Number(i+1), protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, bits)
		}
	}
	for _, bin := range c.Reliability {
		b = protowire.AppendTag(b, classReliability, protowire.BytesType)
		b = protowire.AppendBytes(b, appendBin(nil, bin))
	}
	return b
}

// classReliability is the field number of ClassScores.reliability.
const classReliability protowire.Number = 8

// appendBin appends a CalibrationBin message: count (1) and correct (2)
// as varints, confidence (3) as a double, zeros left out.
func appendBin(b []byte, bin CalibrationBin) []byte {
	if bin.Count != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, bin.Count)
	}
	if bin.Correct != 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, bin.Correct)
	}
	if bits := math.Float64bits(bin.Confidence); bits != 0 {
		b = protowire.AppendTag(b, 3, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, bits)
	}
	return b
}

// parseBin decodes a CalibrationBin message; unknown fields are skipped.
func parseBin(b []byte) (CalibrationBin, error) {
	var bin CalibrationBin
	for len(b) > 0 {
		n, typ, w := protowire.ConsumeTag(b)
		if w < 0 {
			return bin, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
		}
		b = b[w:]
		switch {
		case (n == 1 || n == 2) && typ == protowire.VarintType:
			v, w := protowire.ConsumeVarint(b)
			if w < 0 {
				return bin, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			if n == 1 {
				bin.Count = v
			} else {
				bin.Correct = v
			}
			b = b[w:]
		case n == 3 && typ == protowire.Fixed64Type:
			v, w := protowire.ConsumeFixed64(b)
			if w < 0 {
				return bin, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			bin.Confidence, b = math.Float64frombits(v), b[w:]
		case n >= 1 && n <= 3:
			return bin, fmt.Errorf("calibration bin field %d: %w", n, errResultField)
		default:
			w = protowire.ConsumeFieldValue(n, typ, b)
			if w < 0 {
				return bin, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			b = b[w:]
		}
	}
	return bin, nil
}

// classFields lists the fields of c in field-number order.
func classFields(c *ClassScores) [7]*float64 {
	return [7]*float64{&c.LogLoss, &c.Brier, &c.AUC, &c.AUCHandTill, &c.Accuracy, &c.BalancedAccuracy, &c.ECE}
}

// parseClassScores decodes a ClassScores message; unknown fields are
// skipped.
func parseClassScores(b []byte) (*ClassScores, error) {
	c := &ClassScores{}
	fields := classFields(c)
	for len(b) > 0 {
		n, typ, w := protowire.ConsumeTag(b)
		if w < 0 {
			return nil, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
		}
		b = b[w:]
		if n == classReliability {
			if typ != protowire.BytesType {
				return nil, fmt.Errorf("reliability: %w", errResultField)
			}
			v, w := protowire.ConsumeBytes(b)
			if w < 0 {
				return nil, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			bin, err := parseBin(v)
			if err != nil {
				return nil, fmt.Errorf("reliability bin %d: %w", len(c.Reliability), err)
			}
			c.Reliability, b = append(c.Reliability, bin), b[w:]
			continue
		}
		if n >= 1 && int(n) <= len(fields) {
			if typ != protowire.Fixed64Type {
				return nil, fmt.Errorf("class score %d: %w", n, errResultField)
			}
			v, w := protowire.ConsumeFixed64(b)
			if w < 0 {
				return nil, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			*fields[n-1], b = math.Float64frombits(v), b[w:]
			continue
		}
		w = protowire.ConsumeFieldValue(n, typ, b)
		if w < 0 {
			return nil, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
		}
		b = b[w:]
	}
	return c, nil
}

// errResultField is the cause of a result message with a field of the
// wrong type.
var errResultField = errors.New("a field of the wrong type")

// parseResult decodes a result message. Fields it does not know are
// skipped, as protobuf does.
func parseResult(b []byte) (Result, error) {
	var r Result
	for len(b) > 0 {
		n, typ, w := protowire.ConsumeTag(b)
		if w < 0 {
			return Result{}, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
		}
		b = b[w:]
		var dst *float64
		var str *string
		switch n {
		case resultR2:
			dst = &r.R2
		case resultMSE:
			dst = &r.MSE
		case resultFitSeconds:
			dst = &r.FitSeconds
		case resultPredictSeconds:
			dst = &r.PredictSeconds
		case resultRootThreshold:
			dst = &r.RootThreshold
		case resultMAE:
			dst = &r.MAE
		case resultImputeRMSETrain:
			dst = &r.ImputeRMSETrain
		case resultImputeRMSETest:
			dst = &r.ImputeRMSETest
		case resultErrorKind:
			str = &r.ErrKind
		case resultErrorMessage:
			str = &r.ErrMsg
		case resultRoot:
			str = &r.Root
		}
		switch {
		case dst != nil && typ == protowire.Fixed64Type:
			v, w := protowire.ConsumeFixed64(b)
			if w < 0 {
				return Result{}, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			*dst, b = math.Float64frombits(v), b[w:]
		case n == resultClass && typ == protowire.BytesType:
			v, w := protowire.ConsumeBytes(b)
			if w < 0 {
				return Result{}, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			var err error
			if r.Class, err = parseClassScores(v); err != nil {
				return Result{}, err
			}
			b = b[w:]
		case n == resultClass:
			return Result{}, fmt.Errorf("field %d: %w", n, errResultField)
		case str != nil && typ == protowire.BytesType:
			v, w := protowire.ConsumeBytes(b)
			if w < 0 {
				return Result{}, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			*str, b = string(v), b[w:]
		case dst != nil || str != nil:
			return Result{}, fmt.Errorf("field %d: %w", n, errResultField)
		default:
			w := protowire.ConsumeFieldValue(n, typ, b)
			if w < 0 {
				return Result{}, fmt.Errorf("does not decode: %w", protowire.ParseError(w))
			}
			b = b[w:]
		}
	}
	return r, nil
}
