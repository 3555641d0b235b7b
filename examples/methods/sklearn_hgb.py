"""misslab learner "hgb": scikit-learn's HistGradientBoostingRegressor.

It handles NA natively (each split learns a side for the missing values),
so the methods file says accepts_missing = true and a grid may run it as
"hgb/native" as well as behind any imputer ("hgb/mean+mask").

Settings (a number each; anything else is an error naming it):
  max_iter            boosting iterations                  default 100
  learning_rate                                            default 0.1
  max_leaf_nodes      0 = no limit                         default 31
  max_depth           0 = no limit                         default 0
  min_samples_leaf                                         default 20
  l2_regularization                                        default 0
  max_bins            at most 255                          default 255
  early_stopping      1 = on (holds out validation_fraction of the
                      training rows, drawn from the seed)  default 0 (off)
  validation_fraction                                      default 0.1
  n_iter_no_change                                         default 10
  tol                                                      default 1e-7

random_state is the request's seed. The model runs on one OpenMP thread
whatever `threads` says: scikit-learn sums gradients in parallel, so its
last bits (and then the trees) could depend on the thread count, and a
method's result must not.
"""

from sklearn.ensemble import HistGradientBoostingRegressor
from threadpoolctl import threadpool_limits

from misslab_method import run_learner, with_defaults

DEFAULTS = {
    "max_iter": 100, "learning_rate": 0.1, "max_leaf_nodes": 31, "max_depth": 0,
    "min_samples_leaf": 20, "l2_regularization": 0.0, "max_bins": 255,
    "early_stopping": 0, "validation_fraction": 0.1, "n_iter_no_change": 10, "tol": 1e-7,
}
INTEGRAL = ("max_iter", "max_leaf_nodes", "max_depth", "min_samples_leaf", "max_bins",
            "early_stopping", "n_iter_no_change")


def model(seed, settings):
    s = with_defaults(settings, DEFAULTS)
    for k in INTEGRAL:
        if s[k] != int(s[k]):
            raise ValueError("setting %s = %r must be an integer" % (k, s[k]))
        s[k] = int(s[k])
    if s["early_stopping"] not in (0, 1):
        raise ValueError("setting early_stopping = %r must be 0 or 1" % s["early_stopping"])
    return HistGradientBoostingRegressor(
        max_iter=s["max_iter"], learning_rate=s["learning_rate"],
        max_leaf_nodes=s["max_leaf_nodes"] or None, max_depth=s["max_depth"] or None,
        min_samples_leaf=s["min_samples_leaf"], l2_regularization=s["l2_regularization"],
        max_bins=s["max_bins"], early_stopping=bool(s["early_stopping"]),
        validation_fraction=s["validation_fraction"], n_iter_no_change=s["n_iter_no_change"],
        tol=s["tol"], random_state=seed)


def fit(X, y, seed, settings, threads):
    m = model(seed, settings)
    with threadpool_limits(limits=1, user_api="openmp"):
        m.fit(X, y)
    return m


def predict(m, X_test):
    with threadpool_limits(limits=1, user_api="openmp"):
        return m.predict(X_test)


if __name__ == "__main__":
    run_learner((fit, predict))
