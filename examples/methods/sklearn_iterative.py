"""misslab imputer "sk_iterative": scikit-learn's IterativeImputer (MICE-style
chained Bayesian ridge regressions), fitted on the training covariates
only and applied unchanged to the test covariates.

Settings (a number each; anything else is an error naming it):
  max_iter            imputation rounds                    default 10
  tol                 stopping tolerance                   default 1e-3
  n_nearest_features  0 = every feature                    default 0
  sample_posterior    1 = draw from the posterior          default 0

random_state is the request's seed. A column with no observed training
value is left out of the fit and filled with 0 (the helper's rule), rather
than passed to scikit-learn with keep_empty_features=True: in
scikit-learn 1.2 that option makes IterativeImputer skip every round and
return the initial mean imputation (n_iter_ = 0), which examples/methods'
tests check against. Every observed entry is returned unchanged.
Linear algebra runs on one BLAS thread so the result never depends on
`threads`.
"""

import numpy as np
from sklearn.experimental import enable_iterative_imputer  # noqa: F401 (registers the class)
from sklearn.impute import IterativeImputer
from threadpoolctl import threadpool_limits

from misslab_method import run_imputer, with_defaults

DEFAULTS = {"max_iter": 10, "tol": 1e-3, "n_nearest_features": 0, "sample_posterior": 0}


def integer(s, k, lo):
    if s[k] != int(s[k]) or s[k] < lo:
        raise ValueError("setting %s = %r must be an integer >= %d" % (k, s[k], lo))
    return int(s[k])


def fit_transform(X, seed, settings, threads):
    s = with_defaults(settings, DEFAULTS)
    if s["sample_posterior"] not in (0, 1):
        raise ValueError("setting sample_posterior = %r must be 0 or 1" % s["sample_posterior"])
    keep = ~np.isnan(X).all(axis=0)  # columns with an observed training value
    imp = IterativeImputer(
        max_iter=integer(s, "max_iter", 1), tol=s["tol"],
        n_nearest_features=integer(s, "n_nearest_features", 0) or None,
        sample_posterior=bool(s["sample_posterior"]), random_state=seed)
    out = np.zeros_like(X)
    if keep.any():
        with threadpool_limits(limits=1):
            out[:, keep] = imp.fit_transform(X[:, keep])
    return (imp, keep), out


def transform(model, X_test):
    imp, keep = model
    out = np.zeros_like(X_test)
    if keep.any():
        with threadpool_limits(limits=1):
            out[:, keep] = imp.transform(X_test[:, keep])
    return out


if __name__ == "__main__":
    run_imputer((fit_transform, transform))
