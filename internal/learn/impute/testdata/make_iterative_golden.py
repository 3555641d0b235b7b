#!/usr/bin/python3
"""Golden values for impute's Iterative imputer: scikit-learn 1.2.1's
IterativeImputer() with its defaults (BayesianRidge, mean start,
ascending order, max_iter 10, tol 1e-3).

Run from this directory with Debian's python (python3-sklearn 1.2.1,
numpy 1.24):
    /usr/bin/python3 make_iterative_golden.py
It writes iterative_<set>.csv for every data set below,
iterative_golden.json (rounds per set) and bayes_ridge.json (BayesianRidge()
fitted alone on small designs: coef_, intercept_, alpha_, lambda_, n_iter_). A set's CSV has the header
part,x1..xd,imp1..impd: one line per training row (part "train") then per
test row ("test"); x holds the input ("NA" = missing) and imp, where x is
NA, sklearn's imputed value (fit_transform for the training rows,
transform for the test rows), empty elsewhere. The Go tests read these
files; they never run Python.

A training column with no observed entry is dropped by sklearn
(keep_empty_features=False): the script fits sklearn without it and
writes 0 as its imputed value, misslab's convention for it.
"""
import json
import warnings

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning
from sklearn.experimental import enable_iterative_imputer  # noqa: F401
from sklearn.impute import IterativeImputer
from sklearn.linear_model import BayesianRidge


def gaussian(rng, n, d):
    """n rows of a correlated Gaussian with random means and covariance."""
    mu = rng.normal(scale=3, size=d)
    a = rng.normal(size=(d, d))
    sigma = a @ a.T / d + 0.3 * np.eye(d)
    return rng.multivariate_normal(mu, sigma, size=n)


def amputate(rng, x, rates):
    """Masks each entry of column j with probability rates[j] (MCAR)."""
    x = x.copy()
    for j, r in enumerate(rates):
        x[rng.random(x.shape[0]) < r, j] = np.nan
    return x


def tiny(rng):
    x = gaussian(rng, 30, 2)
    return amputate(rng, x[:20], [0.0, 0.3]), amputate(rng, x[20:], [0.2, 0.3])


def d5(rng):
    """Column 0 complete in training (not in the test set)."""
    x = gaussian(rng, 250, 5)
    tr = amputate(rng, x[:200], [0.0, 0.1, 0.2, 0.3, 0.2])
    te = amputate(rng, x[200:], [0.2, 0.1, 0.2, 0.3, 0.2])
    te[0, :] = np.nan  # a fully missing test row
    return tr, te


def n1000(rng):
    x = gaussian(rng, 1100, 3)
    return amputate(rng, x[:1000], [0.05, 0.25, 0.5]), amputate(rng, x[1000:], [0.3, 0.3, 0.3])


def d20(rng):
    """A complete column (0), a constant column with NA (3), a column
    with a single observed value (7), NA rates from 2% to 40% elsewhere.
    (A column observed on fewer rows than there are other columns is
    interpolated exactly in the first round, which makes every later
    regression nearly collinear: sklearn's own coefficients are then
    rounding noise, so no such column here; see bayes_ridge.json.)"""
    x = gaussian(rng, 350, 20)
    x[:, 3] = 2.5
    rates = np.linspace(0.02, 0.4, 20)
    rates[0] = 0.0
    tr = amputate(rng, x[:300], rates)
    te = amputate(rng, x[300:], np.full(20, 0.15))
    tr[1:, 7] = np.nan
    tr[0, 7] = x[0, 7]
    return tr, te


def empty(rng):
    """Column 2 has no observed training entry."""
    x = gaussian(rng, 110, 6)
    tr = amputate(rng, x[:80], [0.1, 0.2, 0.0, 0.3, 0.1, 0.25])
    te = amputate(rng, x[80:], [0.2] * 6)
    tr[:, 2] = np.nan
    return tr, te


def rates9(rng):
    x = gaussian(rng, 600, 9)
    rates = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.15, 0.25]
    return amputate(rng, x[:500], rates), amputate(rng, x[500:], rates)


SETS = {"tiny": tiny, "d5": d5, "n1000": n1000, "d20": d20, "empty": empty, "rates9": rates9}


def fit(train, test):
    """sklearn's imputations of train and test, with empty training
    columns put back as 0, and the number of rounds."""
    valid = ~np.all(np.isnan(train), axis=0)
    imp = IterativeImputer()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        out_tr = imp.fit_transform(train)
    out_te = imp.transform(test)
    again = imp.transform(train)
    assert np.array_equal(again, out_tr), "transform(train) differs from fit_transform(train)"
    full_tr = np.zeros(train.shape)
    full_te = np.zeros(test.shape)
    full_tr[:, valid] = out_tr
    full_te[:, valid] = out_te
    return full_tr, full_te, imp.n_iter_


def write_set(path, train, test, out_tr, out_te):
    d = train.shape[1]
    with open(path, "w") as f:
        f.write(",".join(["part"] + ["x%d" % (j + 1) for j in range(d)] + ["imp%d" % (j + 1) for j in range(d)]) + "\n")
        for part, x, out in (("train", train, out_tr), ("test", test, out_te)):
            for row, imp in zip(x, out):
                xs = ["NA" if np.isnan(v) else repr(float(v)) for v in row]
                ims = [repr(float(w)) if np.isnan(v) else "" for v, w in zip(row, imp)]
                f.write(",".join([part] + xs + ims) + "\n")


def ridge_designs(rng):
    """(name, X, y) designs for BayesianRidge alone."""
    x = rng.normal(size=(50, 4))
    yield "n50_p4", x, x @ [1.0, -2.0, 0.5, 0.0] + 3 + rng.normal(scale=0.5, size=50)
    x = rng.normal(size=(6, 9))
    yield "n6_p9", x, x[:, 0] - x[:, 1] + rng.normal(scale=0.3, size=6)
    x = rng.normal(size=(30, 3))
    x[:, 1] = 1.5
    yield "constant_x", x, 2 * x[:, 0] + rng.normal(size=30)
    x = rng.normal(size=(20, 2))
    yield "constant_y", x, np.full(20, -0.75)
    yield "n1", rng.normal(size=(1, 3)), np.array([4.0])
    x = rng.normal(scale=10, size=(200, 6)) + 5
    yield "n200_p6", x, x @ rng.normal(size=6) + rng.normal(scale=20, size=200)


def ridge_golden(rng):
    out = []
    for name, x, y in ridge_designs(rng):
        m = BayesianRidge().fit(x, y)
        out.append({"name": name, "x": x.tolist(), "y": y.tolist(), "coef": m.coef_.tolist(),
                    "intercept": float(m.intercept_), "alpha": float(m.alpha_),
                    "lambda": float(m.lambda_), "n_iter": int(m.n_iter_)})
    return out


def main():
    assert sklearn.__version__ == "1.2.1", sklearn.__version__
    rng = np.random.default_rng(20260126)
    summary = {"source": "make_iterative_golden.py (scikit-learn %s, numpy %s)" % (sklearn.__version__, np.__version__),
               "sets": []}
    for name, make in SETS.items():
        train, test = make(rng)
        out_tr, out_te, rounds = fit(train, test)
        write_set("iterative_%s.csv" % name, train, test, out_tr, out_te)
        summary["sets"].append({"name": name, "rounds": rounds})
    with open("iterative_golden.json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    with open("bayes_ridge.json", "w") as f:
        json.dump({"source": summary["source"], "fits": ridge_golden(rng)}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
