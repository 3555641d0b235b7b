"""misslab_classify: a misslab learner that classifies, in a dozen lines.

The companion of misslab_method (which it imports; list both in the
method's `files`). A learner whose methods file declares classification
(tasks = ["classification"], or ["regression", "classification"]) gets,
on a classification task, requests with op "fit_predict_proba": the
training targets are class codes 0..k-1 and "classes" is k. This module
serves them; you write the classifier:

    from misslab_classify import run_classifier

    def fit_predict_proba(X, y, k, X_test, seed, settings, threads):
        ...
        return P            # m x k: row i holds the probabilities of
                            # classes 0..k-1 for row i of X_test

    if __name__ == "__main__":
        run_classifier(fit_predict_proba)

X, X_test, seed, settings and threads are as for a learner (see
misslab_method); y holds n integer class codes in 0..k-1 (numpy int64)
and k >= 2 is the number of classes of the task, whether or not the
training set has every class. A pair ``(fit, predict_proba)`` with
``fit(X, y, k, seed, settings, threads) -> model`` and
``predict_proba(model, X_test) -> P`` times fitting and prediction
separately.

A method that also regresses (tasks = ["regression", "classification"])
passes its learner too: ``run_classifier(fit_predict_proba,
regressor=fit_predict)``, with ``fit_predict`` as run_learner takes it;
one process then serves both ops.

The helper checks what the worker will check: P must be m x k, every
value finite and in [0, 1], every row summing to 1 within 1e-6 (else an
error reply naming the first bad row); it does not renormalise. Output,
errors and stdout are handled as misslab_method handles them.

Needs only numpy (and misslab_method).
"""

import json
import sys
import time
import traceback

import numpy as np

import misslab_method as _m
from misslab_method import MethodError

__all__ = ["run_classifier", "check_proba", "OP_CLASSIFY", "PROBA_SUM_TOL"]

OP_CLASSIFY = "fit_predict_proba"
PROBA_SUM_TOL = 1e-6  # |sum of a row - 1| the worker accepts


def _class_codes(y, k):
    codes = np.rint(y)
    if not np.all(codes == y) or np.any(codes < 0) or np.any(codes >= k):
        bad = int(np.flatnonzero((codes != y) | (codes < 0) | (codes >= k))[0])
        raise MethodError("target %d is %r, not a class code in 0..%d" % (bad + 1, y[bad], k - 1))
    return codes.astype(np.int64)


def check_proba(P, m, k):
    """Return P as an m x k float64 array of class probabilities, or raise
    MethodError saying what is wrong with it."""
    P = np.asarray(P, dtype=np.float64)
    if P.shape != (m, k):
        raise MethodError("the classifier returned probabilities of shape %s for %d test rows of %d classes"
                          % (P.shape, m, k))
    bad = ~(np.isfinite(P) & (P >= 0) & (P <= 1))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise MethodError("probability of class %d on row %d is %r, want a number in [0, 1]" % (j, i + 1, P[i, j]))
    off = np.abs(P.sum(axis=1) - 1) > PROBA_SUM_TOL
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise MethodError("row %d's probabilities sum to %r, want 1" % (i + 1, P[i].sum()))
    return P


def _classifier_call(fn, req):
    n, d = _m._shape(req, "train")
    m, dt = _m._shape(req, "test")
    if dt != d:
        raise MethodError("train has %d columns, test %d" % (d, dt))
    k = req.get("classes")
    if not isinstance(k, int) or k < 2:
        raise MethodError("classes = %r: want an integer >= 2" % (k,))
    X = _m.read_matrix(req["train"]["x"], n, d)
    y = _class_codes(_m.read_vector(req["train"]["y"], n), k)
    Xt = _m.read_matrix(req["test"]["x"], m, d)
    seed, settings, threads = int(req["seed"]), dict(req.get("settings") or {}), int(req.get("threads", 1))
    _m._seed_globals(seed)
    if isinstance(fn, tuple):
        fit, predict_proba = fn
        t0 = time.perf_counter()
        model = fit(X, y, k, seed, settings, threads)
        t1 = time.perf_counter()
        P = predict_proba(model, Xt)
        times = {"fit_seconds": t1 - t0, "predict_seconds": time.perf_counter() - t1}
    else:
        t0 = time.perf_counter()
        P = fn(X, y, k, Xt, seed, settings, threads)
        times = {"fit_seconds": time.perf_counter() - t0}
    _m.write_matrix(req["out"]["proba"], check_proba(P, m, k))
    return times


def _serve(handlers):
    ch = _m._Channel()
    ch.send({"ready": True, "protocol": _m.PROTOCOL})
    for line in ch.lines():
        rid = 0
        try:
            req = json.loads(line.decode("utf-8"))
            rid = req.get("id", 0) if isinstance(req, dict) else 0
            if not isinstance(req, dict):
                raise MethodError("request is not a JSON object")
            if req.get("protocol") != _m.PROTOCOL:
                raise MethodError("protocol %r is not supported (want %d)" % (req.get("protocol"), _m.PROTOCOL))
            op = req.get("op")
            if op not in handlers:
                raise MethodError("op %r is not supported by this method (want %s)"
                                  % (op, " or ".join(repr(o) for o in sorted(handlers))))
            reply = {"id": rid, "ok": True}
            reply.update(handlers[op](req))
        except Exception as exc:  # the method must survive its own errors
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            reply = {"id": rid, "ok": False, "error": _m._one_line(exc)}
        ch.send(reply)
    sys.exit(0)


def run_classifier(fn, regressor=None):
    """Serve a classifier until EOF: fn is fit_predict_proba(X, y, k,
    X_test, seed, settings, threads) -> P (m x k), or a pair (fit,
    predict_proba). With regressor (a learner as run_learner takes it),
    the process also answers regression requests."""
    _m._check(fn, "run_classifier")
    handlers = {OP_CLASSIFY: lambda req: _classifier_call(fn, req)}
    if regressor is not None:
        _m._check(regressor, "run_classifier: regressor")
        handlers["fit_predict"] = lambda req: _m._learner_call(regressor, req)
    _serve(handlers)
