package learnerr

import "errors"

// The sentinels below are the only ones in internal/learn and its
// subpackages. An error those packages return because of the data, the
// settings or the numerics wraps exactly one of them, with a message
// naming the package and the problem, e.g. "tree: X has 3 columns, the
// tree was fitted on 4: learn: bad input"; cancellation returns the
// context's error. Callers test them with errors.Is. Their texts are
// stable: callers may strip them from a message.
var (
	// ErrInput reports unusable data: a nil or empty matrix, mismatched
	// shapes (len(y) ≠ rows, a test set with another column count, a
	// sampled row out of range), NaN where the learner's mode does not
	// accept NA, ±Inf anywhere in X, a non-finite target, a nil random
	// source, or fewer rows than the method needs.
	ErrInput = errors.New("learn: bad input")
	// ErrSetting reports a setting or parameter outside its domain, of
	// the wrong kind (e.g. not an integer), or unknown.
	ErrSetting = errors.New("learn: bad setting")
	// ErrPipeline reports a pipeline name that does not parse or names an
	// unsupported learner/strategy pair.
	ErrPipeline = errors.New("learn: unknown pipeline")
	// ErrNumerical reports a numerical failure on data that were
	// otherwise valid: a singular design or covariance matrix, or an
	// iterative method that did not converge.
	ErrNumerical = errors.New("learn: numerical failure")
	// ErrNotImplemented reports a learner family that is named but not
	// implemented.
	ErrNotImplemented = errors.New("learn: not implemented")
	// ErrOracle reports an attempt to build the bayes/oracle pipeline,
	// which the experiment runner evaluates from the true law instead.
	ErrOracle = errors.New("learn: the bayes oracle is not a fitted pipeline")
	// ErrMethodCrash reports an external method (see methodid.Method) whose
	// process could not start, or exited or was killed during a call, twice
	// in a row (the runner restarts it and retries once).
	ErrMethodCrash = errors.New("learn: external method crashed")
	// ErrMethodTimeout reports an external method call that outlived the
	// method's timeout; its process was killed.
	ErrMethodTimeout = errors.New("learn: external method timed out")
	// ErrMethodOutput reports an external method that answered with
	// something other than the protocol's reply (garbage on stdout, a reply
	// for another request) or wrote output files of the wrong size or with
	// NaN or ±Inf where numbers are due.
	ErrMethodOutput = errors.New("learn: malformed output from external method")
	// ErrMethodFailed reports an external method that replied with an
	// error of its own (ok = false).
	ErrMethodFailed = errors.New("learn: external method reported an error")
)
