package ampute

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by every error that reports a bad Spec (or a Spec
// that does not suit the table's features, such as censoring a categorical
// feature). The message names the grid key at fault: "mechanism", "rate"
// or "columns" (Spec.Amputed), and the feature index when one is involved.
var ErrInvalid = errors.New("ampute: invalid spec")

// ErrData is wrapped by every error that reports an unusable matrix: a nil
// or wrongly shaped Z, a group column out of range, an infinite value, or
// an amputed feature without any observed training value under a
// mechanism that needs one. The message names the feature or column index.
var ErrData = errors.New("ampute: unusable data")

// Mechanism names an amputation mechanism; the values are the strings of
// the grid's missingness.mechanism list.
type Mechanism string

// The mechanisms. Fit documents each one's model precisely.
const (
	// None adds no missing value.
	None Mechanism = "none"
	// MCAR amputes each observed entry independently with probability Rate.
	MCAR Mechanism = "mcar"
	// MAR amputes through a logistic model on the never-amputed features.
	MAR Mechanism = "mar"
	// MNAR amputes through a logistic model on every feature, the amputed
	// one's own value included.
	MNAR Mechanism = "mnar"
	// SelfMasking amputes through a logistic model on the feature's own
	// value only.
	SelfMasking Mechanism = "self-masking"
	// Censoring amputes every value above the training (1−Rate) quantile.
	Censoring Mechanism = "censoring"
)

// Mechanisms lists every mechanism in a stable order (the order of the
// constants above). Callers must not modify it.
var Mechanisms = []Mechanism{None, MCAR, MAR, MNAR, SelfMasking, Censoring}

// ParseMechanism returns the mechanism named s (exact, lower case) or an
// error wrapping ErrInvalid that lists the known names.
func ParseMechanism(s string) (Mechanism, error) {
	for _, m := range Mechanisms {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("%w: mechanism: unknown %q (known: %v)", ErrInvalid, s, Mechanisms)
}

// Spec is one amputation setting of a grid cell.
type Spec struct {
	// Mechanism is one of Mechanisms.
	Mechanism Mechanism
	// Rate is the target probability that an observed entry of an amputed
	// feature becomes NA: in (0, 1) for every mechanism but None, exactly
	// 0 for None.
	Rate float64
	// Amputed lists the amputed features as indices into the groups given
	// to Fit, strictly increasing (the grid's missingness.columns). It must
	// be non-empty unless Mechanism is None, for which it is checked but
	// otherwise ignored.
	Amputed []int
}

// Validate checks s against a table of features features. Errors wrap
// ErrInvalid and name the key at fault. MAR needs at least one feature that
// is never amputed (its predictors); categorical features under Censoring
// are checked by Fit, which knows the groups.
func (s Spec) Validate(features int) error {
	if features < 1 {
		return fmt.Errorf("%w: columns: the table has %d features, need at least 1", ErrInvalid, features)
	}
	if _, err := ParseMechanism(string(s.Mechanism)); err != nil {
		return err
	}
	if err := s.validateRate(); err != nil {
		return err
	}
	for k, f := range s.Amputed {
		if f < 0 || f >= features {
			return fmt.Errorf("%w: columns: feature %d out of range [0, %d)", ErrInvalid, f, features)
		}
		if k > 0 && f <= s.Amputed[k-1] {
			return fmt.Errorf("%w: columns: feature %d after %d: indices must be strictly increasing", ErrInvalid, f, s.Amputed[k-1])
		}
	}
	if s.Mechanism != None && len(s.Amputed) == 0 {
		return fmt.Errorf("%w: columns: %s needs at least one amputed feature", ErrInvalid, s.Mechanism)
	}
	if s.Mechanism == MAR && len(s.Amputed) == features {
		return fmt.Errorf("%w: columns: mar needs at least one feature that is never amputed, all %d are", ErrInvalid, features)
	}
	return nil
}

// validateRate checks Rate against the mechanism.
func (s Spec) validateRate() error {
	if s.Mechanism == None {
		if s.Rate != 0 {
			return fmt.Errorf("%w: rate: %v with mechanism none, must be 0", ErrInvalid, s.Rate)
		}
		return nil
	}
	if !(s.Rate > 0 && s.Rate < 1) || math.IsNaN(s.Rate) {
		return fmt.Errorf("%w: rate: %v with mechanism %s, must be in (0, 1)", ErrInvalid, s.Rate, s.Mechanism)
	}
	return nil
}
