# fusecl.host_view: NumPy arrays used in place, expressions over them computed
# in chunks of rows (made small here, so that small arrays cross many chunk
# boundaries), checked against NumPy.
import gc

import numpy as np
import pytest

import fusecl


@pytest.fixture(autouse=True)
def small_chunks():
    before = fusecl._core._set_stream_chunk_bytes(8 * 1024)
    yield
    fusecl._core._set_stream_chunk_bytes(before)


def test_elementwise_and_reductions_match_numpy_in_chunks():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3001, 7)).astype(np.float32)
    b = rng.standard_normal((3001, 7)).astype(np.float32)
    x, y = fusecl.host_view(a), fusecl.host_view(b)
    fusecl.reset_stats()
    got = (fusecl.sqrt(x * x + 1) * y - x).numpy()
    assert fusecl.stats()["streamed_chunks"] > 1
    np.testing.assert_allclose(got, np.sqrt(a * a + 1) * b - a, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(fusecl.sum(x * y).numpy(), np.sum(a.astype(np.float64) * b), rtol=1e-5)
    np.testing.assert_allclose(fusecl.mean(x, axis=0).numpy(), a.mean(axis=0, dtype=np.float64), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fusecl.max(x, axis=1).numpy(), a.max(axis=1))
    assert int(fusecl.argmax(x).numpy()) == int(np.argmax(a))
    assert list(fusecl.argmin(x, axis=0).numpy()) == list(np.argmin(a, axis=0))
    e = fusecl.exp(x - fusecl.max(x, axis=1, keepdims=True))
    sm = (e / fusecl.sum(e, axis=1, keepdims=True)).numpy()
    ea = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(sm, ea / ea.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_integers_and_the_view_reads_current_data():
    a = np.arange(50000, dtype=np.int32) - 25000
    x = fusecl.host_view(a)
    assert int(fusecl.sum(x).numpy()) == int(a.sum(dtype=np.int64))
    a[123] = 10 ** 6
    assert int(fusecl.max(x).numpy()) == 10 ** 6  # a view: the new value is read
    assert int(fusecl.argmax(x).numpy()) == 123


def test_the_view_keeps_the_ndarray_alive():
    x = fusecl.host_view(np.full(20000, 2.5, dtype=np.float64))
    gc.collect()
    np.testing.assert_array_equal((x * 2).numpy(), np.full(20000, 5.0))


def test_what_cannot_be_viewed_says_so():
    with pytest.raises(ValueError, match="not C-contiguous"):
        fusecl.host_view(np.zeros((4, 4), np.float32).T)
    with pytest.raises(TypeError, match="numpy.ndarray"):
        fusecl.host_view([1.0, 2.0])
    with pytest.raises(ValueError, match="big-endian"):
        fusecl.host_view(np.zeros(4, dtype=">f4"))
