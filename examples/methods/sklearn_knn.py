"""misslab imputer "knn_impute": scikit-learn's KNNImputer. Each NA is the
mean of that column over the n_neighbors nearest training rows observing
it (nan-Euclidean distance on the coordinates both rows observe). Fitted
on the training covariates only; the test rows' neighbours are training
rows.

Settings (a number each; anything else is an error naming it):
  n_neighbors   default 5

keep_empty_features is on, so a column with no observed training value
is kept (filled with 0) rather than dropped; the helper returns every
observed entry unchanged. Distances run on one BLAS thread so the result
never depends on `threads`. The method is deterministic: the seed is unused.
"""

from sklearn.impute import KNNImputer
from threadpoolctl import threadpool_limits

from misslab_method import run_imputer, with_defaults

DEFAULTS = {"n_neighbors": 5}


def fit_transform(X, seed, settings, threads):
    s = with_defaults(settings, DEFAULTS)
    k = s["n_neighbors"]
    if k != int(k) or k < 1:
        raise ValueError("setting n_neighbors = %r must be an integer >= 1" % k)
    imp = KNNImputer(n_neighbors=int(k), keep_empty_features=True)
    with threadpool_limits(limits=1):
        return imp, imp.fit_transform(X)


def transform(imp, X_test):
    with threadpool_limits(limits=1):
        return imp.transform(X_test)


if __name__ == "__main__":
    run_imputer((fit_transform, transform))
