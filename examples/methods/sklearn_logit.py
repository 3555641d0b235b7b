"""misslab learner "logit": scikit-learn's LogisticRegression, a classifier.

Its methods file says tasks = ["classification"]: a grid runs it on a
binary or multiclass task only (misslab refuses it for regression). It
takes the NA itself (accepts_missing = true): each column's NA are
replaced by its training mean and an indicator column per incomplete
training column is appended (SimpleImputer with add_indicator), the
columns are standardised, then a logistic regression (multinomial for
more than two classes, L2 penalty, lbfgs) is fitted. So "logit/native"
is mean imputation with the mask, and "logit/iterative" fits it behind
another imputer.

Settings (a number each; anything else is an error naming it):
  C          inverse L2 penalty strength          default 1
  max_iter   lbfgs iterations                     default 1000
  tol                                             default 1e-6

A class absent from the training set gets probability 0. The fit is
deterministic (lbfgs); it runs with one BLAS thread whatever `threads`
says, so that its last bits cannot depend on the thread count.
"""

import numpy as np
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from misslab_classify import run_classifier
from misslab_method import with_defaults

DEFAULTS = {"C": 1.0, "max_iter": 1000, "tol": 1e-6}


def fit(X, y, k, seed, settings, threads):
    s = with_defaults(settings, DEFAULTS)
    if s["max_iter"] != int(s["max_iter"]) or s["max_iter"] < 1:
        raise ValueError("setting max_iter = %r must be a positive integer" % s["max_iter"])
    classes = np.unique(y)
    if classes.size == 1:  # nothing to fit: the one class seen
        return k, classes, None
    model = make_pipeline(
        SimpleImputer(strategy="mean", add_indicator=True, keep_empty_features=True),
        StandardScaler(),
        LogisticRegression(C=s["C"], max_iter=int(s["max_iter"]), tol=s["tol"], random_state=seed))
    with threadpool_limits(limits=1):
        model.fit(X, y)
    return k, classes, model


def predict_proba(fitted, X_test):
    k, classes, model = fitted
    P = np.zeros((X_test.shape[0], k))
    if model is None:
        P[:, classes[0]] = 1
        return P
    with threadpool_limits(limits=1):
        P[:, model.classes_] = model.predict_proba(X_test)
    return P


if __name__ == "__main__":
    run_classifier((fit, predict_proba))
