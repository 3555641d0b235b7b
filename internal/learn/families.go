package learn

import (
	"fmt"

	"github.com/misslab/misslab/internal/learn/boost"
	"github.com/misslab/misslab/internal/learn/ctree"
	"github.com/misslab/misslab/internal/learn/forest"
	"github.com/misslab/misslab/internal/learn/knn"
	"github.com/misslab/misslab/internal/learn/linear"
	"github.com/misslab/misslab/internal/learn/svm"
	"github.com/misslab/misslab/internal/learn/tree"
)

// families maps each implemented learner family to its registration. To
// wire a family, add an entry: its setting keys with defaults and ranges
// (checked before New runs), its presets, and a factory that turns
// resolved settings into the package's parameters.
var families = map[string]Family{
	LinReg: {
		Params: []Param{{Key: "lambda", Default: linear.DefaultLambda, Min: 0, Max: 1e6,
			Doc: "ridge penalty on standardised columns; 0 is least squares"}},
		Presets: map[string]Settings{"ols": {"lambda": 0}},
		New: func(_ string, s Settings, _ Env) (Learner, error) {
			r, err := linear.New(s["lambda"])
			if err != nil {
				return nil, err
			}
			return Adapt(r), nil
		},
		// glm(family = binomial) for two classes, nnet::multinom for
		// more (see linear.Logistic): both unpenalised.
		NewClass: func(_ string, _ Settings, _ Env) (Classifier, error) {
			return adaptedClass[*linear.ClassModel](linear.Logistic{}.FitClass), nil
		},
		ClassCheck: func(s Settings) error {
			if s["lambda"] != linear.DefaultLambda && s["lambda"] != 0 {
				return fmt.Errorf("lambda = %v: logistic regression (glm, multinom) is unpenalised; "+
					"ridge applies to regression only", s["lambda"])
			}
			return nil
		},
	},
	Tree:   treeFamily,
	CTree:  ctreeFamily,
	Forest: forestFamily,
	Boost:  boostFamily,
	SVM:    svmFamily,
	KNN: {
		Params: []Param{{Key: "k", Default: knn.DefaultK, Min: 1, Max: 1e6, Integer: true,
			Doc: "neighbours averaged (caret knnreg, Euclidean on unscaled features)"}},
		New: func(_ string, s Settings, _ Env) (Learner, error) {
			r, err := knn.New(s.Int("k"))
			if err != nil {
				return nil, err
			}
			return Adapt(r), nil
		},
		// caret knn3: the class shares among the k nearest rows, ties
		// at the k-th distance included (see knn.Classifier).
		NewClass: func(_ string, s Settings, _ Env) (Classifier, error) {
			c, err := knn.NewClassifier(s.Int("k"))
			if err != nil {
				return nil, err
			}
			return adaptedClass[*knn.ClassModel](c.FitClass), nil
		},
	},
}

// treeFamily is CART with rpart semantics. minsplit 0 means rpart's rule
// minsplit = 3·minbucket, so that setting minbucket alone behaves as in
// rpart.control (the paper's minbucket 30 gives minsplit 90).
var treeFamily = Family{
	Params: []Param{
		{Key: "minbucket", Default: 30, Min: 1, Max: 1e9, Integer: true, Doc: "rpart minbucket: fewest training rows in a leaf"},
		{Key: "minsplit", Default: 0, Min: 0, Max: 1e9, Integer: true, Doc: "rpart minsplit: fewest rows to try a split; 0 = 3·minbucket"},
		{Key: "cp", Default: 0, Min: 0, Max: 1, Doc: "rpart complexity parameter, relative to the root's deviance"},
		{Key: "maxdepth", Default: 30, Min: 1, Max: 30, Integer: true, Doc: "rpart maxdepth (root = depth 0)"},
		{Key: "maxsurrogate", Default: 5, Min: 0, Max: 1e3, Integer: true, Doc: "rpart maxsurrogate (surrogate strategy)"},
	},
	Presets: map[string]Settings{"rpart_defaults": {"minbucket": 7, "minsplit": 20, "cp": 0.01}},
	New: func(strategy string, s Settings, _ Env) (Learner, error) {
		p, err := treeParams(strategy, s)
		if err != nil {
			return nil, err
		}
		return adaptFit(tree.Fit, p), nil
	},
	// rpart method = "class": Gini, the training classes' proportions
	// as priors, the leaf's class probabilities (see tree.FitClass).
	NewClass: func(strategy string, s Settings, _ Env) (Classifier, error) {
		p, err := treeParams(strategy, s)
		if err != nil {
			return nil, err
		}
		return adaptClass(tree.FitClass, p), nil
	},
}

// treeParams turns resolved tree settings into tree.Params.
func treeParams(strategy string, s Settings) (tree.Params, error) {
	p := tree.PaperDefaults()
	p.MinBucket, p.MinSplit, p.CP = s.Int("minbucket"), s.Int("minsplit"), s["cp"]
	p.MaxDepth, p.MaxSurrogate = s.Int("maxdepth"), s.Int("maxsurrogate")
	if p.MinSplit == 0 {
		p.MinSplit = 3 * p.MinBucket
	}
	p.Strategy = tree.NoMissing
	if Native(strategy) {
		var err error
		if p.Strategy, err = tree.ParseStrategy(strategy); err != nil {
			return tree.Params{}, err
		}
	}
	return p, nil
}

// boostFamily is gradient boosting with XGBoost's exact method; the
// defaults are boost.DefaultParams (the paper's 500 rounds).
var boostFamily = func() Family {
	def := boost.DefaultParams()
	return Family{
		Params: []Param{
			{Key: "rounds", Default: float64(def.Rounds), Min: 0, Max: 1e6, Integer: true, Doc: "boosting rounds"},
			{Key: "eta", Default: def.Eta, Min: 0, Max: 1e6, Doc: "learning rate"},
			{Key: "max_depth", Default: float64(def.MaxDepth), Min: 1, Max: 30, Integer: true, Doc: "maximum tree depth (the exact method needs a bound)"},
			{Key: "lambda", Default: def.Lambda, Min: 0, Max: 1e30, Doc: "L2 penalty on leaf weights"},
			{Key: "alpha", Default: def.Alpha, Min: 0, Max: 1e30, Doc: "L1 penalty on leaf weights"},
			{Key: "gamma", Default: def.Gamma, Min: 0, Max: 1e30, Doc: "minimum loss reduction to split"},
			{Key: "min_child_weight", Default: def.MinChildWeight, Min: 0, Max: 1e30, Doc: "minimum hessian sum in a child"},
			{Key: "base_score", Default: def.BaseScore, Min: -1e30, Max: 1e30, Doc: "initial prediction (XGBoost < 2.0: 0.5)"},
		},
		New: func(_ string, s Settings, _ Env) (Learner, error) {
			p, err := boostParams(s)
			if err != nil {
				return nil, err
			}
			return adaptFit(boost.Fit, p), nil
		},
		// XGBoost 1.7.4 exact, binary:logistic for two classes and
		// multi:softprob for more (see boost.FitClass).
		NewClass: func(_ string, s Settings, _ Env) (Classifier, error) {
			p, err := boostParams(s)
			if err != nil {
				return nil, err
			}
			return adaptClass(boost.FitClass, p), nil
		},
	}
}()

// boostParams turns resolved boost settings into boost.Params.
func boostParams(s Settings) (boost.Params, error) {
	p := boost.DefaultParams()
	for _, k := range boost.SettingNames {
		if err := p.Set(k, s[k]); err != nil {
			return boost.Params{}, err
		}
	}
	if err := p.Validate(); err != nil {
		return boost.Params{}, err
	}
	return p, nil
}

// ctreeFamily is the conditional inference tree. Its defaults are the
// paper's runs (party::ctree with mincriterion 0, minbucket 30, NA rows
// to the majority child, no surrogates); ctree/surrogate keeps
// maxsurrogate surrogate splits per node (default 5, as rpart; partykit's
// own default is 0, which would make it ctree/majority).
var ctreeFamily = func() Family {
	def := ctree.PaperDefaults()
	return Family{
		Params: []Param{
			{Key: "mincriterion", Default: def.MinCriterion, Min: 0, Max: 1, Doc: "split only when 1 − adjusted p-value exceeds this"},
			{Key: "minbucket", Default: float64(def.MinBucket), Min: 1, Max: 1e9, Integer: true, Doc: "fewest rows observing the split variable per child"},
			{Key: "minsplit", Default: float64(def.MinSplit), Min: 0, Max: 1e9, Integer: true, Doc: "fewest rows to try a split"},
			{Key: "maxdepth", Default: 0, Min: 0, Max: 1e3, Integer: true, Doc: "maximum depth (0 = unlimited; 1 = stumps)"},
			{Key: "maxsurrogate", Default: 5, Min: 0, Max: 1e3, Integer: true, Doc: "surrogate splits per node (surrogate strategy only)"},
		},
		Presets: map[string]Settings{"partykit_defaults": {"mincriterion": 0.95, "minbucket": 7, "minsplit": 20}},
		New: func(strategy string, s Settings, _ Env) (Learner, error) {
			return adaptFit(ctree.Fit, ctreeParams(strategy, s)), nil
		},
		// partykit's ctree with a factor response: the class indicators
		// as influence function, the leaf's class shares as
		// probabilities (see ctree.FitClass).
		NewClass: func(strategy string, s Settings, _ Env) (Classifier, error) {
			return adaptClass(ctree.FitClass, ctreeParams(strategy, s)), nil
		},
	}
}()

// ctreeParams turns resolved ctree settings into ctree.Params: the
// paper's controls with the settings applied, surrogates only under the
// surrogate strategy.
func ctreeParams(strategy string, s Settings) ctree.Params {
	p := ctree.PaperDefaults()
	p.MinCriterion, p.MinBucket, p.MinSplit = s["mincriterion"], s.Int("minbucket"), s.Int("minsplit")
	p.MaxDepth, p.MaxSurrogate = s.Int("maxdepth"), 0
	if strategy == Surrogate {
		p.MaxSurrogate = s.Int("maxsurrogate")
	}
	return p
}

// svmFamily is epsilon-SVR with e1071's defaults; gamma 0 means 1/p.
var svmFamily = func() Family {
	def := svm.DefaultParams()
	return Family{
		Params: []Param{
			{Key: "cost", Default: def.Cost, Min: 1e-12, Max: 1e12, Doc: "C, the box constraint"},
			{Key: "gamma", Default: def.Gamma, Min: 0, Max: 1e12, Doc: "radial kernel width; 0 = 1/(number of columns)"},
			{Key: "epsilon", Default: def.Epsilon, Min: 0, Max: 1e12, Doc: "width of the insensitive tube (on scaled y)"},
			{Key: "tolerance", Default: def.Tolerance, Min: 1e-15, Max: 1, Doc: "stopping tolerance of SMO"},
		},
		New: func(_ string, s Settings, _ Env) (Learner, error) {
			r, err := svm.FromSettings(s)
			if err != nil {
				return nil, err
			}
			return Adapt(r), nil
		},
		// e1071 C-classification with probability = TRUE: libsvm's
		// one-against-one machines, Platt sigmoids fitted by its internal
		// 5-fold CV (shuffled from the job's rng), pairwise coupling.
		NewClass: func(_ string, s Settings, _ Env) (Classifier, error) {
			c, err := svm.ClassifierFromSettings(s)
			if err != nil {
				return nil, err
			}
			return adaptedClass[*svm.ClassModel](c.FitClass), nil
		},
		ClassCheck: func(s Settings) error {
			if s["epsilon"] != def.Epsilon {
				return fmt.Errorf("epsilon = %v: the insensitive tube is eps-regression's; C-classification has none", s["epsilon"])
			}
			return nil
		},
	}
}()

// forestFamily is the random forest with ranger's regression defaults.
// Env.Threads grows trees in parallel without changing any result.
var forestFamily = func() Family {
	def := forest.RangerDefaults()
	return Family{
		Params: []Param{
			{Key: "trees", Default: float64(def.NumTrees), Min: 1, Max: 1e6, Integer: true, Doc: "number of trees (ranger num.trees)"},
			{Key: "mtry", Default: 0, Min: 0, Max: 1e6, Integer: true, Doc: "columns tried per node; 0 = max(1, ⌊√p⌋) of the columns after preprocessing"},
			{Key: "min_node_size", Default: 0, Min: 0, Max: 1e9, Integer: true,
				Doc: "nodes with at most this many entries are leaves; 0 = ranger's default for the task: 5 for regression, 10 for a probability forest"},
			{Key: "max_depth", Default: 0, Min: 0, Max: 1e3, Integer: true, Doc: "maximum depth (0 = unlimited)"},
			{Key: "sample_fraction", Default: def.SampleFraction, Min: 1e-9, Max: 1, Doc: "fraction of rows drawn per tree"},
			{Key: "replace", Default: 1, Min: 0, Max: 1, Integer: true, Doc: "1 = bootstrap with replacement, 0 = subsample"},
		},
		New: func(strategy string, s Settings, env Env) (Learner, error) {
			p := forestParams(strategy, s, env)
			if p.MinNodeSize == 0 {
				p.MinNodeSize = forest.DefaultMinNodeSize
			}
			return adaptFit(forest.Fit, p), nil
		},
		// ranger probability = TRUE: Gini splits, leaves holding the
		// in-bag class shares, averaged over the trees (see
		// forest.FitClass, which reads min_node_size 0 as ranger's 10).
		NewClass: func(strategy string, s Settings, env Env) (Classifier, error) {
			return adaptClass(forest.FitClass, forestParams(strategy, s, env)), nil
		},
	}
}()

// forestParams turns resolved forest settings into forest.Params.
func forestParams(strategy string, s Settings, env Env) forest.Params {
	p := forest.RangerDefaults()
	p.NumTrees, p.Mtry, p.MinNodeSize = s.Int("trees"), s.Int("mtry"), s.Int("min_node_size")
	p.MaxDepth, p.SampleFraction, p.Replace = s.Int("max_depth"), s["sample_fraction"], s["replace"] == 1
	p.Threads, p.Strategy = env.Threads, tree.NoMissing
	if strategy == MIA {
		p.Strategy = tree.MIA
	}
	return p
}
