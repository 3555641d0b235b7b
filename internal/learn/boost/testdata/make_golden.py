#!/usr/bin/python3
"""Generate the golden fixtures of boost_golden_test.go with XGBoost.

Run with Debian's Python (xgboost 1.7.4, numpy):

    cd internal/learn/boost/testdata && /usr/bin/python3 make_golden.py

For each data set it writes golden_<name>.json holding the training and test
data (NaN written as null), the XGBoost parameters, the 20 trees of the fitted
booster taken from its JSON model (node arrays: children, split feature,
split threshold, default direction, leaf value, loss change, hessian sum)
and the test-set predictions after 1, 2, 5 and 20 rounds
(iteration_range=(0, k)). Training uses tree_method="exact" and nthread=1,
the setting the Go package reproduces.
"""
import json

import numpy as np
import xgboost as xgb

ROUNDS = [1, 2, 5, 20]


def gaussian(rng, n, d, rho=0.5, mu=1.0):
    """Equicorrelated Gaussian covariates, N(mu 1, rho 11' + (1-rho) I)."""
    z0 = rng.standard_normal((n, 1))
    return mu + np.sqrt(rho) * z0 + np.sqrt(1 - rho) * rng.standard_normal((n, d))


def mcar(rng, x, rates):
    """Mask column j with probability rates[j] (MCAR)."""
    x = x.copy()
    for j, p in rates.items():
        x[rng.random(x.shape[0]) < p, j] = np.nan
    return x


def quad_mcar(rng):
    """Paper's Model 1, d = 9, 20% MCAR on X1..X3, default parameters."""
    def draw(n):
        x = gaussian(rng, n, 9)
        y = (x[:, :3] ** 2).sum(axis=1) + 0.1 * rng.standard_normal(n)
        return mcar(rng, x, {0: 0.2, 1: 0.2, 2: 0.2}), y
    return draw(600), draw(400), {}


def friedman_heavy(rng):
    """Friedman-type target, d = 10, 20-40% MCAR on five columns."""
    def draw(n):
        x = gaussian(rng, n, 10)
        y = (10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2
             + 10 * x[:, 3] + 5 * x[:, 4] + 0.1 * rng.standard_normal(n))
        return mcar(rng, x, {0: 0.4, 1: 0.25, 3: 0.3, 4: 0.2, 7: 0.35}), y
    return draw(1000), draw(400), {}


def dense_train(rng):
    """No NaN in training (only default-left learned splits), 30% NaN at test."""
    beta = np.array([1.0, 2.0, -1.0, 3.0, -0.5])
    def draw(n, rate):
        x = gaussian(rng, n, 5)
        y = x @ beta + 0.1 * rng.standard_normal(n)
        return mcar(rng, x, {j: rate for j in range(5)}), y
    return draw(300, 0.0), draw(300, 0.3), {}


def ties_params(rng):
    """Tied values (one decimal), a constant column with NaN (no forward
    scan), censoring on X1, and non-default parameters including pruning."""
    def draw(n):
        x = np.round(gaussian(rng, n, 6), 1)
        x[:, 5] = 2.0
        y = x[:, 0] ** 2 + x[:, 1] - x[:, 2] * x[:, 3] + 0.3 * rng.standard_normal(n)
        x[x[:, 0] > np.quantile(x[:, 0], 0.75), 0] = np.nan
        return mcar(rng, x, {1: 0.3, 5: 0.3}), y
    params = dict(eta=0.1, max_depth=4, reg_lambda=2.0, reg_alpha=0.5, gamma=1.0,
                  min_child_weight=3.0, base_score=1.5)
    return draw(500), draw(300), params


def predictive(rng):
    """Paper's predictive missingness, Y = sum_j (X_j^2 + 2 M_j) + eps on
    three columns, plus a constant column whose missingness also shifts Y
    (only the descending scan runs on it, so its split is "missing left,
    observed right" at threshold 2 - (2 + 1e-6))."""
    def draw(n):
        x = gaussian(rng, n, 5)
        x[:, 4] = 2.0
        m = rng.random((n, 4)) < np.array([0.3, 0.3, 0.3, 0.4])
        y = (x[:, :3] ** 2).sum(axis=1) + 2 * m[:, :3].sum(axis=1) - 1.5 * m[:, 3]
        y += 0.1 * rng.standard_normal(n)
        x[:, :3][m[:, :3]] = np.nan
        x[m[:, 3], 4] = np.nan
        return x, y
    return draw(500), draw(300), {}


def adjacent_pair(rng, missing_like_b):
    """X1 takes two adjacent float32 values a < b, so the midpoint of any
    threshold between them rounds to a or b and XGBoost uses a value itself;
    X3 likewise takes c < e adjacent, with no NaN. 20% NaN on X1."""
    a = np.float32(1.0)
    b = np.nextafter(a, np.float32(2))
    c = np.float32(-3.0)
    e = np.nextafter(c, np.float32(0))
    def draw(n):
        x = gaussian(rng, n, 4)
        hi = rng.random(n) < 0.5
        x[:, 0] = np.where(hi, b, a).astype(np.float64)
        x[:, 2] = np.where(rng.random(n) < 0.5, e, c).astype(np.float64)
        miss = rng.random(n) < 0.2
        hi = np.where(miss, missing_like_b, hi)
        y = 3 * hi + x[:, 1] + 2 * (x[:, 2] > c) + 0.1 * rng.standard_normal(n)
        x[miss, 0] = np.nan
        return x, y
    return draw(300), draw(200), {}


def adjacent(rng):
    """NaN in X1 behaves like a: the descending scan (missing left) wins and
    its threshold between a and b is b itself."""
    return adjacent_pair(rng, False)


def adjacent_fwd(rng):
    """NaN in X1 behaves like b: the ascending scan (missing right) wins, and
    XGBoost's threshold is a, which sends a to the right as well: the gain
    was computed for one partition while the children get another (here an
    empty left child, and the same split again at every depth)."""
    return adjacent_pair(rng, True)


DATASETS = [("quad_mcar", quad_mcar, 1), ("friedman_heavy", friedman_heavy, 2),
            ("dense_train", dense_train, 3), ("ties_params", ties_params, 4),
            ("predictive", predictive, 5), ("adjacent", adjacent, 6),
            ("adjacent_fwd", adjacent_fwd, 7)]


def nulls(a):
    return [[None if np.isnan(v) else float(v) for v in row] for row in a]


def trees_of(bst):
    model = json.loads(bst.save_raw("json"))
    out = []
    for t in model["learner"]["gradient_booster"]["model"]["trees"]:
        out.append({k: t[k] for k in ("left_children", "right_children", "split_indices",
                                      "split_conditions", "default_left", "base_weights",
                                      "loss_changes", "sum_hessian")})
    return out


def main():
    for name, make, seed in DATASETS:
        rng = np.random.default_rng(seed)
        (xtr, ytr), (xte, yte), extra = make(rng)
        params = dict(objective="reg:squarederror", tree_method="exact", nthread=1,
                      eta=0.3, max_depth=6, reg_lambda=1.0, reg_alpha=0.0, gamma=0.0,
                      min_child_weight=1.0, base_score=0.5, seed=0)
        params.update(extra)
        dtr = xgb.DMatrix(xtr, label=ytr, missing=np.nan, nthread=1)
        dte = xgb.DMatrix(xte, missing=np.nan, nthread=1)
        bst = xgb.train(params, dtr, num_boost_round=max(ROUNDS))
        preds = {str(k): [float(v) for v in bst.predict(dte, iteration_range=(0, k))]
                 for k in ROUNDS}
        trees = trees_of(bst)
        if params["gamma"] > 0:
            p0 = dict(params, gamma=0.0)
            unpruned = trees_of(xgb.train(p0, dtr, num_boost_round=max(ROUNDS)))
            n1 = sum(len(t["left_children"]) - t["left_children"].count(-1) for t in trees)
            n0 = sum(len(t["left_children"]) - t["left_children"].count(-1) for t in unpruned)
            print("%s: %d splits with gamma=%g, %d without" % (name, n1, params["gamma"], n0))
        doc = dict(name=name, xgboost=xgb.__version__, params=params,
                   x_train=nulls(xtr), y_train=[float(v) for v in ytr],
                   x_test=nulls(xte), rounds=ROUNDS, predictions=preds, trees=trees)
        with open("golden_%s.json" % name, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        print("wrote golden_%s.json (%d trees)" % (name, len(trees)))


if __name__ == "__main__":
    main()
