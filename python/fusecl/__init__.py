"""fusecl: NumPy-style array expressions fused into one generated OpenCL kernel.

Operations on ``fusecl.Array`` are lazy: each adds a node to a graph, and
nothing runs until a result is needed (``a.numpy()``, ``np.asarray(a)``,
``fusecl.eval(*arrays)``, ``bool/float/int`` of a one-element array or
``repr``). Then the whole graph becomes one OpenCL kernel (a reduction's
consumers get kernels of their own). Dtypes and promotion follow NumPy 2
(NEP 50: Python scalars are weak), whatever NumPy version is installed.
"""

import numpy as _np

from . import _core
from ._core import *  # noqa: F401,F403  (Array, operations, devices, stats)
from ._core import Array, Error, _DeviceScope, asarray
from . import random  # noqa: F401
from .fused import fuse  # noqa: F401

__all__ = [n for n in dir(_core) if not n.startswith("_")] + [
    "random", "device", "newaxis", "square", "positive", "reciprocal", "float_power", "modf", "fuse"]

newaxis = None
pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan


def device(dev):
    """``with fusecl.device(dev):`` makes ``dev`` this thread's default device
    for arrays created inside (``dev`` an open Device or an open_device spec).
    Enter and leave it on one thread (the scope is per thread, like the C++
    DeviceScope)."""
    if isinstance(dev, str):
        dev = _core.open_device(dev)
    return _DeviceScope(dev)


def _repr(self):
    # Like NumPy's repr: evaluates, and summarizes large arrays ("...").
    body = _np.array2string(self.numpy(), separator=", ", prefix="fusecl.Array(")
    return "fusecl.Array(%s, dtype=%s)" % (body, self.dtype)


def _str(self):
    return str(self.numpy())


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    for i in range(len(self)):
        yield self[i]


# NumPy ufuncs called on fusecl arrays (np.sin(a), ndarray + a) run as
# fusecl operations and stay lazy; what fusecl lacks raises TypeError.
_UFUNC_NAMES = {"absolute": "abs", "conjugate": None}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    name = _UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__)
    fn = globals().get(name) if name else None
    if method != "__call__" or kwargs or fn is None:
        return NotImplemented
    return fn(*inputs)


def _to_numpy(x):
    if isinstance(x, Array):
        return x.numpy()
    if isinstance(x, (list, tuple)):
        return type(x)(_to_numpy(v) for v in x)
    return x


def _array_function(self, func, types, args, kwargs):
    # np.sum(a), np.where(c, a, b), np.concatenate([...]): fusecl's function of
    # the same name, lazy, when there is one; any other NumPy function
    # (np.shape, np.allclose, np.sort, ...) gets the evaluated values.
    fn = globals().get(func.__name__)
    if callable(fn) and not isinstance(fn, type) and func.__module__.startswith("numpy") and "out" not in kwargs:
        return fn(*args, **kwargs)
    return func(*_to_numpy(args), **{k: _to_numpy(v) for k, v in kwargs.items()})


def _inplace(op, name):
    # fusecl arrays are immutable: `a += b` rebinds a to a new lazy array
    # (other names for the old one keep the old value). Its dtype stays a's,
    # as NumPy's in-place operators keep it, refusing the casts NumPy refuses.
    def f(self, other):
        r = op(self, other)
        if r is NotImplemented:
            return r
        if r.dtype != self.dtype:
            if not _np.can_cast(r.dtype, self.dtype, "same_kind"):
                raise TypeError(f"Cannot cast ufunc '{name}' output from {r.dtype!r} to {self.dtype!r} "
                                "with casting rule 'same_kind'")
            r = r.astype(self.dtype)
        return r
    return f


for _name, _ufunc in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
                      ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "power"), ("and", "bitwise_and"),
                      ("or", "bitwise_or"), ("xor", "bitwise_xor"), ("lshift", "left_shift"),
                      ("rshift", "right_shift")]:
    setattr(Array, f"__i{_name}__", _inplace(getattr(Array, f"__{_name}__"), _ufunc))


def square(x):
    """x * x (NumPy's square; of bools, int8 as NumPy's)."""
    x = asarray(x)
    if x.dtype == _np.bool_:
        x = x.astype(_np.int8)
    return x * x


def positive(x):
    """+x, a copy of the values (NumPy's positive; not defined for bools, as in NumPy)."""
    x = asarray(x)
    if x.dtype == _np.bool_:
        raise TypeError("ufunc 'positive' not supported for the input type bool (NumPy raises TypeError here too)")
    return x


def reciprocal(x):
    """1 / x in x's float dtype (NumPy's reciprocal). Integers are refused:
    NumPy computes 1.0 / x and converts it back, so its result for 0 depends on
    the platform (INT_MIN or 0 on x86); use 1 // x or 1 / x."""
    x = asarray(x)
    if x.dtype.kind != "f":
        raise TypeError(f"fusecl.reciprocal of {x.dtype} is not supported: NumPy's integer reciprocal of 0 depends on "
                        "the platform; use 1 // x (floor) or 1 / x (float64)")
    return true_divide(1, x)


def _in_float64(x):
    if isinstance(x, Array):
        return x.astype(_np.float64)
    if isinstance(x, (_np.ndarray, _np.generic)):
        return asarray(x).astype(_np.float64)
    if isinstance(x, (bool, int, float)):
        return float(x)  # weak: float64 beside a float64 array, and alone
    return x  # a fused function's number: weak, beside the other operand's float64


def float_power(x1, x2):
    """x1 ** x2 in float64 whatever the inputs' dtypes (NumPy's float_power)."""
    return power(_in_float64(x1), _in_float64(x2))


def modf(x):
    """(fractional part, integral part) of x, both with x's sign, as NumPy's
    modf: modf(-3.0) is (-0.0, -3.0), modf(inf) is (0.0, inf). Integers and
    bools compute in float (float64 from 32 bits up), as NumPy's."""
    x = asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(_np.float32 if x.dtype.itemsize <= 2 else _np.float64)
    whole = trunc(x)
    return copysign(where(isinf(x), 0, x - whole), x), whole


Array.__repr__ = _repr
Array.__str__ = _str
Array.__iter__ = _iter
Array.__array_ufunc__ = _array_ufunc
Array.__array_function__ = _array_function
