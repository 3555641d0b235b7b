#!/usr/bin/python3
"""Golden values for impute's Gaussian EM, from an independent numpy
implementation (row by row, regression form, no pattern grouping).

Run from this directory with Debian's python (numpy 1.24, scipy 1.10):
    /usr/bin/python3 gen_em_golden.py
It writes em_d5_train.csv, em_d5_test.csv (NA = missing) and
em_d5_golden.json. The Go tests read these files; they never run Python.
"""
import json

import numpy as np
from scipy.stats import multivariate_normal

D = 5
N_TRAIN, N_TEST = 150, 40
SHRINK = 0.01


def draw(rng, n):
    mu = np.array([1.0, -2.0, 0.5, 3.0, 0.0])
    a = rng.normal(size=(D, D))
    sigma = a @ a.T / D + 0.5 * np.eye(D)
    x = rng.multivariate_normal(mu, sigma, size=n)
    # General (non-monotone) MCAR pattern: every entry missing w.p. 0.2.
    x[rng.random(size=x.shape) < 0.2] = np.nan
    return x


def start(x):
    mu = np.zeros(D)
    var = np.ones(D)
    for j in range(D):
        o = x[~np.isnan(x[:, j]), j]
        if o.size:
            mu[j] = o.mean()
            if o.var() > 0:
                var[j] = o.var()
    return mu, np.diag(var)


def e_step(x, mu, sigma):
    """Expected sufficient statistics, one row at a time."""
    n = x.shape[0]
    t1 = np.zeros(D)
    t2 = np.zeros((D, D))
    for i in range(n):
        m = np.isnan(x[i])
        o = ~m
        xi = x[i].copy()
        c = np.zeros((D, D))
        if m.any():
            if o.any():
                beta = np.linalg.solve(sigma[np.ix_(o, o)], sigma[np.ix_(o, m)])
                xi[m] = mu[m] + (x[i, o] - mu[o]) @ beta
                c[np.ix_(m, m)] = sigma[np.ix_(m, m)] - sigma[np.ix_(m, o)] @ beta
            else:
                xi = mu.copy()
                c = sigma.copy()
        t1 += xi
        t2 += np.outer(xi, xi) + c
    return t1, t2


def em(x, tol=1e-14, maxit=100000):
    n = x.shape[0]
    mu, sigma = start(x)
    for it in range(1, maxit + 1):
        t1, t2 = e_step(x, mu, sigma)
        nmu = t1 / n
        nsigma = t2 / n - np.outer(nmu, nmu)
        change = max(np.abs(nmu - mu).max(), np.abs(nsigma - sigma).max())
        mu, sigma = nmu, nsigma
        if change < tol:
            return mu, sigma, it
    raise RuntimeError("EM did not converge")


def loglik(x, mu, sigma):
    total = 0.0
    for row in x:
        o = ~np.isnan(row)
        if o.any():
            total += multivariate_normal(mu[o], sigma[np.ix_(o, o)]).logpdf(row[o])
    return total


def impute(x, mu, sigma):
    out = x.copy()
    for i, row in enumerate(x):
        m = np.isnan(row)
        o = ~m
        if not m.any():
            continue
        if not o.any():
            out[i] = mu
            continue
        s = sigma[np.ix_(m, o)] @ np.linalg.inv(sigma[np.ix_(o, o)])
        out[i, m] = mu[m] + s @ (row[o] - mu[o])
    return out


def write_csv(path, x):
    with open(path, "w") as f:
        for row in x:
            f.write(",".join("NA" if np.isnan(v) else repr(float(v)) for v in row) + "\n")


def main():
    rng = np.random.default_rng(20240607)
    train = draw(rng, N_TRAIN)
    test = draw(rng, N_TEST)
    train[0, :] = np.nan           # a fully missing training row
    test[0, :] = np.nan            # a fully missing test row
    test[2, :4] = np.nan           # a pattern with only the last column observed
    mu, sigma, iters = em(train)
    tr = np.trace(sigma)
    shrunk = (1 - SHRINK) * sigma + SHRINK * tr * np.eye(D)
    write_csv("em_d5_train.csv", train)
    write_csv("em_d5_test.csv", test)
    golden = {
        "source": "gen_em_golden.py (numpy %s)" % np.__version__,
        "iterations": iters,
        "mu": mu.tolist(),
        "sigma": sigma.tolist(),
        "loglik": loglik(train, mu, sigma),
        "shrink": SHRINK,
        "sigma_shrunk": shrunk.tolist(),
        "imputed_train": impute(train, mu, shrunk).tolist(),
        "imputed_test": impute(test, mu, shrunk).tolist(),
    }
    with open("em_d5_golden.json", "w") as f:
        json.dump(golden, f, indent=1)


if __name__ == "__main__":
    main()
