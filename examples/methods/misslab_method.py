"""misslab_method: write a misslab external method in a dozen lines.

A misslab worker runs an external method as one long-lived child process
that speaks protocol 1 (docs/METHODS.md): it prints a ready line, then
answers one JSON request per stdin line with one JSON reply per stdout
line, exchanging the data through raw little-endian float64 files in
column-major order. This module does all of that; you write the method:

    from misslab_method import run_learner

    def fit_predict(X, y, X_test, seed, settings, threads):
        ...
        return predictions          # one finite value per row of X_test

    if __name__ == "__main__":
        run_learner(fit_predict)

or, for an imputer, ``run_imputer(impute)`` with
``impute(X, X_test, seed, settings, threads) -> (X_imputed, X_test_imputed)``.

Arguments: X (n x d) and X_test (m x d) are float64 numpy arrays with NaN
for NA; y holds n floats; seed is an int in [0, 2**31 - 1), the method's
only source of randomness (numpy's and Python's global generators are also
seeded with it before every call); settings is a dict of numbers (integral
values are ints), possibly empty; threads (>= 1) is how many threads the
method may use, and must never change its result.

Either function may instead be a pair, timed separately:
``run_learner((fit, predict))`` with ``fit(X, y, seed, settings, threads)
-> model`` and ``predict(model, X_test) -> predictions``;
``run_imputer((fit_transform, transform))`` with ``fit_transform(X, seed,
settings, threads) -> (model, X_imputed)`` and ``transform(model, X_test)
-> X_test_imputed``. A single function is timed as the fit.

The helper checks what the worker will check and repairs what it safely
can: predictions must be m finite numbers; an imputer's observed entries
are copied back from the input (so they are returned bit-identical), NA
left in a column that has no observed training value are filled with 0,
and any other non-finite value is an error. A Python exception becomes
an ``ok: false`` reply with a one-line message; the full traceback goes
to stderr, which the worker keeps (its tail) for its error report.

stdout carries the protocol only: this module moves the process's file
descriptor 1 to a private descriptor for its replies and points fd 1 and
sys.stdout at stderr, so a stray print() (or a C library writing to fd 1)
cannot corrupt the stream. The process exits 0 when stdin reaches EOF.

Needs only numpy.
"""

import json
import os
import random
import sys
import time
import traceback

import numpy as np

PROTOCOL = 1

__all__ = ["run_learner", "run_imputer", "with_defaults", "MethodError",
           "read_matrix", "write_matrix", "read_vector", "write_vector", "PROTOCOL"]


class MethodError(Exception):
    """A request the method cannot serve; its message is the reply's error."""


def with_defaults(settings, defaults):
    """Return a copy of defaults updated by settings; a name that is not in
    defaults raises MethodError naming every such name and the known ones."""
    unknown = sorted(set(settings) - set(defaults))
    if unknown:
        raise MethodError("unknown setting%s %s (known: %s)" % (
            "s" if len(unknown) > 1 else "", ", ".join(unknown), ", ".join(sorted(defaults))))
    out = dict(defaults)
    out.update(settings)
    return out


def read_matrix(path, rows, cols):
    """Read a rows x cols column-major little-endian float64 file."""
    a = np.fromfile(path, dtype="<f8")
    if a.size != rows * cols:
        raise MethodError("%s holds %d values, want %d x %d" % (path, a.size, rows, cols))
    return np.ascontiguousarray(a.reshape((cols, rows)).T, dtype=np.float64)


def write_matrix(path, a):
    """Write a 2-D array as a column-major little-endian float64 file."""
    np.asarray(a, dtype="<f8").ravel(order="F").tofile(path)


def read_vector(path, n):
    """Read n little-endian float64 values."""
    a = np.fromfile(path, dtype="<f8")
    if a.size != n:
        raise MethodError("%s holds %d values, want %d" % (path, a.size, n))
    return a.astype(np.float64)


def write_vector(path, v):
    """Write a vector as little-endian float64 values."""
    np.asarray(v, dtype="<f8").ravel().tofile(path)


class _Channel:
    """The protocol's stdin/stdout, with fd 1 diverted to stderr."""

    def __init__(self):
        sys.stdout.flush()
        self.out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
        os.dup2(2, 1)  # anything written to fd 1 from now on lands on stderr
        sys.stdout = sys.stderr
        self.inp = sys.stdin.buffer

    def send(self, obj):
        self.out.write(json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n")
        self.out.flush()

    def lines(self):
        while True:
            line = self.inp.readline()
            if not line:
                return
            line = line.strip()
            if line:
                yield line


def _one_line(exc):
    msg = "%s: %s" % (type(exc).__name__, exc) if not isinstance(exc, MethodError) else str(exc)
    return " ".join(msg.split()) or type(exc).__name__


def _seed_globals(seed):
    random.seed(seed)
    np.random.seed(seed)


def _shape(req, part):
    d = req[part]
    return int(d["rows"]), int(d["cols"])


def _learner_call(fn, req):
    n, d = _shape(req, "train")
    m, dt = _shape(req, "test")
    if dt != d:
        raise MethodError("train has %d columns, test %d" % (d, dt))
    X = read_matrix(req["train"]["x"], n, d)
    y = read_vector(req["train"]["y"], n)
    Xt = read_matrix(req["test"]["x"], m, d)
    seed, settings, threads = int(req["seed"]), dict(req.get("settings") or {}), int(req.get("threads", 1))
    _seed_globals(seed)
    times = {}
    if isinstance(fn, tuple):
        fit, predict = fn
        t0 = time.perf_counter()
        model = fit(X, y, seed, settings, threads)
        t1 = time.perf_counter()
        pred = predict(model, Xt)
        times = {"fit_seconds": t1 - t0, "predict_seconds": time.perf_counter() - t1}
    else:
        t0 = time.perf_counter()
        pred = fn(X, y, Xt, seed, settings, threads)
        times = {"fit_seconds": time.perf_counter() - t0}
    pred = np.asarray(pred, dtype=np.float64).ravel()
    if pred.size != m:
        raise MethodError("the learner returned %d predictions for %d test rows" % (pred.size, m))
    bad = int(np.count_nonzero(~np.isfinite(pred)))
    if bad:
        raise MethodError("the learner returned %d non-finite predictions" % bad)
    write_vector(req["out"]["pred"], pred)
    return times


def _fix_imputed(name, out, orig, empty):
    """Return out as float64 with orig's observed entries and the NA of
    training-empty columns filled with 0; raise on anything else."""
    out = np.array(out, dtype=np.float64, copy=True)
    if out.shape != orig.shape:
        raise MethodError("the imputer returned %s %s, want %s" % (name, out.shape, orig.shape))
    obs = ~np.isnan(orig)
    out[obs] = orig[obs]
    fill = ~np.isfinite(out) & empty[np.newaxis, :]
    out[fill] = 0.0
    bad = int(np.count_nonzero(~np.isfinite(out)))
    if bad:
        raise MethodError("the imputer left %d non-finite values in %s" % (bad, name))
    return out


def _imputer_call(fn, req):
    n, d = _shape(req, "train")
    m, dt = _shape(req, "test")
    if dt != d:
        raise MethodError("train has %d columns, test %d" % (d, dt))
    X = read_matrix(req["train"]["x"], n, d)
    Xt = read_matrix(req["test"]["x"], m, d)
    seed, settings, threads = int(req["seed"]), dict(req.get("settings") or {}), int(req.get("threads", 1))
    _seed_globals(seed)
    if isinstance(fn, tuple):
        fit_transform, transform = fn
        t0 = time.perf_counter()
        model, Xi = fit_transform(X.copy(), seed, settings, threads)
        t1 = time.perf_counter()
        Xti = transform(model, Xt.copy())
        times = {"fit_seconds": t1 - t0, "predict_seconds": time.perf_counter() - t1}
    else:
        t0 = time.perf_counter()
        Xi, Xti = fn(X.copy(), Xt.copy(), seed, settings, threads)
        times = {"fit_seconds": time.perf_counter() - t0}
    empty = np.isnan(X).all(axis=0)
    write_matrix(req["out"]["train"], _fix_imputed("X", Xi, X, empty))
    write_matrix(req["out"]["test"], _fix_imputed("X_test", Xti, Xt, empty))
    return times


def _serve(op, fn):
    ch = _Channel()
    ch.send({"ready": True, "protocol": PROTOCOL})
    for line in ch.lines():
        rid = 0
        try:
            req = json.loads(line.decode("utf-8"))
            rid = req.get("id", 0) if isinstance(req, dict) else 0
            if not isinstance(req, dict):
                raise MethodError("request is not a JSON object")
            if req.get("protocol") != PROTOCOL:
                raise MethodError("protocol %r is not supported (want %d)" % (req.get("protocol"), PROTOCOL))
            if req.get("op") != op:
                raise MethodError("op %r is not supported by this method (want %r)" % (req.get("op"), op))
            times = (_learner_call if op == "fit_predict" else _imputer_call)(fn, req)
            reply = {"id": rid, "ok": True}
            reply.update(times)
        except Exception as exc:  # the method must survive its own errors
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            reply = {"id": rid, "ok": False, "error": _one_line(exc)}
        ch.send(reply)
    sys.exit(0)


def _check(fn, what):
    if isinstance(fn, tuple):
        if len(fn) != 2 or not all(callable(f) for f in fn):
            raise TypeError("%s: want a function or a pair of functions" % what)
    elif not callable(fn):
        raise TypeError("%s: want a function or a pair of functions" % what)


def run_learner(fn):
    """Serve a learner until EOF: fn is fit_predict(X, y, X_test, seed,
    settings, threads) -> predictions, or a pair (fit, predict)."""
    _check(fn, "run_learner")
    _serve("fit_predict", fn)


def run_imputer(fn):
    """Serve an imputer until EOF: fn is impute(X, X_test, seed, settings,
    threads) -> (X_imputed, X_test_imputed), or a pair (fit_transform,
    transform)."""
    _check(fn, "run_imputer")
    _serve("impute", fn)
