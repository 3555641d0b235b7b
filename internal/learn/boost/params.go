package boost

import (
	"fmt"
	"math"
	"strings"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Method names accepted in Params.Method.
const (
	// Exact is XGBoost's tree_method="exact" (updater grow_colmaker,prune):
	// every distinct observed value is a candidate threshold.
	Exact = "exact"
)

// Setting names accepted by Params.Set, the names a grid file uses.
var SettingNames = []string{"rounds", "eta", "max_depth", "lambda", "alpha",
	"gamma", "min_child_weight", "base_score"}

// Params are the hyper-parameters of gradient boosting, for Fit (the
// squared error objective, XGBoost's reg:squarederror, formerly
// reg:linear) and FitClass (binary:logistic, multi:softprob) alike. The
// zero value is not usable; start from DefaultParams. Like XGBoost, every
// real-valued parameter is rounded to float32 before use.
type Params struct {
	// Rounds is the number of boosting rounds (trees), ≥ 0. Default 500,
	// the paper's setting (XGBoost's own nrounds has no default).
	Rounds int
	// Eta is the learning rate (shrinkage) applied to every leaf, ≥ 0.
	// Default 0.3.
	Eta float64
	// MaxDepth is the maximal depth of a tree (root at depth 0), 1..30.
	// Trees grow depthwise. Default 6.
	MaxDepth int
	// Lambda is the L2 penalty on leaf weights, ≥ 0. Default 1.
	Lambda float64
	// Alpha is the L1 penalty on leaf weights, ≥ 0. Default 0.
	Alpha float64
	// Gamma is XGBoost's min_split_loss, ≥ 0: after growing, a split both
	// of whose children are leaves is pruned while its loss change is
	// below Gamma. The loss change is XGBoost's unhalved
	// G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ), not the ½[…] of Chen &
	// Guestrin's paper. Default 0 (no pruning).
	Gamma float64
	// MinChildWeight is the minimal hessian sum of a child, ≥ 0. The
	// squared-error hessian is 1 per row, so for Fit this is a minimal
	// child size; FitClass's hessians are p(1−p) ≤ ¼ per row (two
	// classes) or 2p_c(1−p_c) ≤ ½ (more), so the default needs at least 4
	// resp. 2 rows in a child. Default 1.
	MinChildWeight float64
	// BaseScore is the initial prediction of every row. Default 0.5, the
	// fixed default of XGBoost < 2.0 (the versions the paper used);
	// XGBoost ≥ 2.0 estimates it from the targets instead. For FitClass
	// with two classes it is a probability in (0, 1), the initial margin
	// being its log-odds; with more classes it is every class's initial
	// margin, which cancels in the softmax.
	BaseScore float64
	// Method is the split-finding method; only Exact (or "", meaning
	// Exact) is implemented.
	Method string
}

// DefaultParams returns XGBoost's defaults with 500 rounds (the same for
// regression and classification).
func DefaultParams() Params {
	return Params{Rounds: 500, Eta: 0.3, MaxDepth: 6, Lambda: 1, Alpha: 0,
		Gamma: 0, MinChildWeight: 1, BaseScore: 0.5, Method: Exact}
}

// Validate reports the first invalid field as an error wrapping
// learnerr.ErrSetting.
func (p Params) Validate() error {
	nonneg := []struct {
		name string
		v    float64
	}{{"eta", p.Eta}, {"lambda", p.Lambda}, {"alpha", p.Alpha},
		{"gamma", p.Gamma}, {"min_child_weight", p.MinChildWeight}}
	for _, c := range nonneg {
		if !(c.v >= 0) || c.v > math.MaxFloat32 {
			return fmt.Errorf("boost: %s = %v, want a finite value ≥ 0: %w", c.name, c.v, learnerr.ErrSetting)
		}
	}
	switch {
	case p.Rounds < 0:
		return fmt.Errorf("boost: rounds = %d, want ≥ 0: %w", p.Rounds, learnerr.ErrSetting)
	case p.MaxDepth < 1 || p.MaxDepth > 30:
		return fmt.Errorf("boost: max_depth = %d, want 1..30 (the exact method needs a bound): %w", p.MaxDepth, learnerr.ErrSetting)
	case math.IsNaN(p.BaseScore) || math.Abs(p.BaseScore) > math.MaxFloat32:
		return fmt.Errorf("boost: base_score = %v, want a finite float32: %w", p.BaseScore, learnerr.ErrSetting)
	case p.Method != "" && p.Method != Exact:
		return fmt.Errorf("boost: method %q, want %q: %w", p.Method, Exact, learnerr.ErrSetting)
	}
	return nil
}

// Set assigns the setting name (one of SettingNames) from a grid value.
// rounds and max_depth must be integral. Range checks are left to Validate.
func (p *Params) Set(name string, v float64) error {
	switch name {
	case "rounds", "max_depth":
		if v != math.Trunc(v) || math.Abs(v) > 1<<30 {
			return fmt.Errorf("boost: %s = %v, want an integer: %w", name, v, learnerr.ErrSetting)
		}
		if name == "rounds" {
			p.Rounds = int(v)
		} else {
			p.MaxDepth = int(v)
		}
	case "eta":
		p.Eta = v
	case "lambda":
		p.Lambda = v
	case "alpha":
		p.Alpha = v
	case "gamma":
		p.Gamma = v
	case "min_child_weight":
		p.MinChildWeight = v
	case "base_score":
		p.BaseScore = v
	default:
		return fmt.Errorf("boost: unknown setting %q (known: %s): %w", name, strings.Join(SettingNames, ", "), learnerr.ErrSetting)
	}
	return nil
}
