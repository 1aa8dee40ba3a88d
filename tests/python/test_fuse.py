# fusecl.fuse: replays give what running the function gives (bit for bit:
# the same kernels), with each call's own arguments and NumPy's values
# within float32 rounding; what cannot replay runs the function and says why.
import itertools

import numpy as np
import pytest

import fusecl

from conftest import edge_values


def softmax_and_shift(x, y):
    e = fusecl.exp(x - fusecl.max(x, axis=1, keepdims=True))
    return e / fusecl.sum(e, axis=1, keepdims=True), x * 2.0 - y


def test_replays_use_each_calls_arguments_and_match_running_the_function():
    f = fusecl.fuse(softmax_and_shift)
    rng = np.random.default_rng(5)
    for cols in (1, 3, 17, 1000):
        for _ in range(2):
            xh = edge_values(np.float32, 5 * cols, rng).reshape(5, cols)
            xh[~np.isfinite(xh)] = 0.5  # softmax of inf is NaN either way; keep the rows comparable
            yh = edge_values(np.float32, 5 * cols, rng).reshape(5, cols)
            x, y = fusecl.asarray(xh), fusecl.asarray(yh)
            got = f(x, y)
            want = softmax_and_shift(x, y)
            fusecl.eval(*want)
            for g, w in zip(got, want):
                assert np.array_equal(g.numpy(), w.numpy(), equal_nan=True)
            with np.errstate(all="ignore"):
                e = np.exp(xh.astype(np.float64) - xh.max(axis=1, keepdims=True))
                np.testing.assert_allclose(got[0].numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
                np.testing.assert_array_equal(got[1].numpy(), xh * np.float32(2) - yh)
    info = f.info()
    assert info["traces"] == 4 and info["replays"] == 4 and info["unreplayed"] == 0, info


def test_a_replay_launches_one_kernel_and_runs_no_python():
    calls = []

    @fusecl.fuse
    def chain(x):
        calls.append(1)
        return fusecl.sqrt(x * x + 1.0) * fusecl.sin(x) + fusecl.exp(-x) * 0.5

    x = fusecl.asarray(np.linspace(-1, 1, 4099, dtype=np.float32))
    first = chain(x).numpy()
    fusecl.reset_stats()
    again = chain(x)
    fusecl.finish()
    s = fusecl.stats()
    assert s["kernels_launched"] == 1 and s["uploads"] == 0 and s["downloads"] == 0, s
    assert len(calls) == 1
    assert np.array_equal(again.numpy(), first)
    assert chain.__name__ == "chain"


def test_ndarray_arguments_are_uploaded_and_replayed():
    f = fusecl.fuse(lambda a, b: a * b + 1.0)
    a, b = np.arange(10, dtype=np.float32), np.full(10, 3, dtype=np.float32)
    f(a, b)
    np.testing.assert_array_equal(f(b, a).numpy(), b * a + 1)
    assert f.info()["replays"] == 1


@pytest.mark.parametrize("case, reason", [
    ("lazy", "not evaluated"),
    ("random", "random"),
    ("evaluates", "evaluated or uploaded arrays while it ran"),
])
def test_what_cannot_replay_runs_the_function_and_says_why(case, reason):
    x = fusecl.asarray(np.linspace(0, 1, 100, dtype=np.float32))
    if case == "lazy":
        f = fusecl.fuse(lambda a: a * 3.0)
        arg = x + 1.0
        want = (np.linspace(0, 1, 100, dtype=np.float32) + np.float32(1)) * np.float32(3)
    elif case == "random":
        seeds = itertools.count(1)  # a new seed per call: a replay would repeat the first one's draws
        f = fusecl.fuse(lambda a: a + fusecl.random.uniform(a.shape, seed=next(seeds), dtype=np.float32))
        arg, want = x, None
    else:
        f = fusecl.fuse(lambda a: a * float(a[1]))
        arg = x
        want = np.linspace(0, 1, 100, dtype=np.float32) * np.float32(np.linspace(0, 1, 100, dtype=np.float32)[1])
    r1, r2 = f(arg).numpy(), f(arg).numpy()
    if want is not None:
        np.testing.assert_allclose(r2, want, rtol=1e-6)
    else:
        assert not np.array_equal(r1, r2)  # fresh draws on each call
    info = f.info()
    assert info["replays"] == 0 and reason in info["last_reason"], info


def test_bad_results_and_scalar_arguments():
    bad = fusecl.fuse(lambda a: a.numpy())
    with pytest.raises(TypeError, match="must return a fusecl array"):
        bad(fusecl.asarray(np.ones(3, np.float32)))
    scaled = fusecl.fuse(lambda a, s: a * s)
    x = fusecl.asarray(np.ones(3, np.float32))
    r = scaled(x, np.float64(2.5))  # a NumPy scalar: strong, as NEP 50 has it (test_fuse_numpy_scalars.py)
    assert r.dtype == np.float64
    np.testing.assert_array_equal(r.numpy(), np.full(3, 2.5))
    with pytest.raises(TypeError):
        scaled(x, "2.5")  # as without fuse
    with pytest.raises(ValueError):
        fusecl.fuse(lambda a: a, max_signatures=0)(x)
