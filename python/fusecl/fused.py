"""fusecl.fuse: a function of arrays and numbers planned once per argument
signature and replayed (the plan cache is C++'s, python/src/fuse.cpp).

A Python number argument cannot be a scalar of a dtype fixed in advance: under
NEP 50 it is weak, so ``x * rate`` is float32 for a float32 ``x`` and float64
for a float64 one. While the function is traced, each number arrives as a
``ScalarArg`` stand-in that records the Python arithmetic done on it
(``0.5 * v * v``); each use of one in a fusecl operation becomes a scalar slot
of the dtype NumPy gives it there, and a replay redoes the arithmetic on its
own call's numbers to fill the slots. A NumPy scalar (``np.float32(0.5)``, or
``rates[i]`` of an ndarray) is strong and has its own dtype: its stand-in's
slots have that dtype, and its arithmetic is NumPy's, redone on each call's
scalars. Where the function uses a number as a
Python value (a comparison, ``int()``, ``float()``, an index, an axis, a
shape, ``math.sin``), the stand-in gives the value and its argument is from
then on planned per value, as torch.compile specializes on such arguments.
"""
import functools as _functools
import math as _math
import operator as _operator
import struct as _struct

import numpy as _np

from . import _core
from ._core import Array, asarray

# The Python types a number argument may have, and a code for each in the key.
_KINDS = {bool: 1, int: 2, float: 3}
# NumPy scalars of the dtypes fusecl has (kind 4 in the key, then the dtype's
# code): np.float16, complex and the rest run the function as without fuse.
_NUMPY = 4
_NUMPY_DTYPES = {_np.dtype(t).str: code for code, t in enumerate(
    [_np.bool_, _np.int8, _np.int16, _np.int32, _np.int64, _np.uint8, _np.uint16, _np.uint32, _np.uint64,
     _np.float32, _np.float64])}


def _numpy_code(value):
    """The key code of a NumPy scalar of a dtype fusecl has, else None."""
    return _NUMPY_DTYPES.get(value.dtype.str) if isinstance(value, _np.generic) else None


def _is_number(value):
    """Whether value is a number a stand-in computes with (not an array)."""
    return type(value) in _KINDS or _numpy_code(value) is not None


def _value_words(kind, value):
    """The key words of a number planned per value, or None where it has none."""
    if kind == 3 or (kind == _NUMPY and value.dtype.kind == "f"):
        return [_struct.unpack("<Q", _struct.pack("<d", float(value)))[0]]  # -0.0, nan payloads kept apart
    value = int(value)
    if -(1 << 63) <= value < (1 << 64):
        return [value & ((1 << 64) - 1), int(value < 0)]
    return None


class ScalarArg:
    """A number argument of a fused function (a Python bool, int or float, or
    a NumPy scalar) while it is traced. It acts as the number in arithmetic
    and in fusecl operations; where its value is used otherwise it gives the
    value, and the function is planned per value of that argument.
    ``isinstance(v, float)`` is False for it; a NumPy scalar's ``dtype``,
    ``shape``, ``ndim``, ``size``, ``itemsize`` and ``nbytes`` are read
    without fixing its value."""

    __slots__ = ("_trace", "_value", "_f", "_deps")
    # Above NumPy's: a NumPy scalar's operator (np.float32(1) / v) then
    # defers to ours, which records it, instead of reading the value.
    __array_priority__ = 1e6

    def __init__(self, trace, value, f, deps):
        self._trace = trace  # the set of pinned arguments; its identity tells traces apart
        self._value = value  # the number in this call
        self._f = f          # the number as a function of a call's argument tuple
        self._deps = deps    # the argument positions it is computed from

    def _pin(self):
        self._trace.update(self._deps)
        return self._value

    def __getattr__(self, name):  # v.real, v.is_integer(), v.bit_length() ...
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _TYPE_ATTRS and isinstance(self._value, _np.generic):
            return getattr(self._value, name)  # the same for every value of its type: the signature holds it
        return getattr(self._pin(), name)

    def __repr__(self):
        return repr(self._pin())

    def __str__(self):
        return str(self._pin())

    def __format__(self, spec):
        return format(self._pin(), spec)

    def __bool__(self):
        return bool(self._pin())

    def __int__(self):
        return int(self._pin())

    def __float__(self):
        return float(self._pin())

    def __complex__(self):
        return complex(self._pin())

    def __index__(self):
        return _operator.index(self._pin())

    def __hash__(self):
        return hash(self._pin())

    def __round__(self, ndigits=None):
        return round(self._pin()) if ndigits is None else round(self._pin(), ndigits)

    def __trunc__(self):
        return _math.trunc(self._pin())

    def __floor__(self):
        return _math.floor(self._pin())

    def __ceil__(self):
        return _math.ceil(self._pin())

    def __array__(self, dtype=None, copy=None):
        return _np.asarray(self._pin(), dtype=dtype)

    def __divmod__(self, other):
        return divmod(self._pin(), other._pin() if isinstance(other, ScalarArg) else other)

    def __rdivmod__(self, other):
        return divmod(other, self._pin())


_TYPE_ATTRS = frozenset(("dtype", "shape", "ndim", "size", "itemsize", "nbytes"))
# What arithmetic with a stand-in takes as the other number; anything else
# (an array) gets NotImplemented, and its reflected operator runs.
_CONSTANTS = (int, float, _np.bool_, _np.number)


def _result(trace, value, f, deps):
    # A number stays a stand-in; anything else (a complex from (-1.0) ** 0.5,
    # an np.float16) is a value.
    if _is_number(value):
        return ScalarArg(trace, value, f, deps)
    trace.update(deps)
    return value


def _binary(fn):
    def method(self, other):
        sf = self._f
        if isinstance(other, ScalarArg) and other._trace is self._trace:
            of = other._f
            return _result(self._trace, fn(self._value, other._value), lambda a: fn(sf(a), of(a)),
                           self._deps | other._deps)
        if isinstance(other, ScalarArg):  # one that escaped another trace: a constant here
            other = other._value
        if not isinstance(other, _CONSTANTS):
            return NotImplemented  # arrays: their reflected operator
        return _result(self._trace, fn(self._value, other), lambda a: fn(sf(a), other), self._deps)
    return method


def _reflected(fn):
    def method(self, other):
        if isinstance(other, _np.ndarray):  # it deferred to us (__array_priority__): the value
            return fn(other, self._pin())
        if not isinstance(other, _CONSTANTS):
            return NotImplemented
        sf = self._f
        return _result(self._trace, fn(other, self._value), lambda a: fn(other, sf(a)), self._deps)
    return method


def _compared(fn):
    # A comparison of numbers is a Python bool the function may branch on:
    # the numbers are pinned. Beside an array it is the array's elementwise
    # comparison (reflected), which keeps the number a slot.
    def method(self, other):
        if isinstance(other, ScalarArg):
            return fn(self._pin(), other._pin())
        if isinstance(other, _np.ndarray):  # ndarray < v deferred to v > ndarray
            return fn(self._pin(), other)
        if not isinstance(other, _CONSTANTS):
            return NotImplemented
        return fn(self._pin(), other)
    return method


def _unary(fn):
    def method(self):
        sf = self._f
        return _result(self._trace, fn(self._value), lambda a: fn(sf(a)), self._deps)
    return method


for _name, _fn in [("add", _operator.add), ("sub", _operator.sub), ("mul", _operator.mul),
                   ("truediv", _operator.truediv), ("floordiv", _operator.floordiv), ("mod", _operator.mod),
                   ("pow", _operator.pow), ("and", _operator.and_), ("or", _operator.or_), ("xor", _operator.xor),
                   ("lshift", _operator.lshift), ("rshift", _operator.rshift)]:
    setattr(ScalarArg, f"__{_name}__", _binary(_fn))
    setattr(ScalarArg, f"__r{_name}__", _reflected(_fn))
for _name, _fn in [("neg", _operator.neg), ("pos", _operator.pos), ("abs", abs), ("invert", _operator.invert)]:
    setattr(ScalarArg, f"__{_name}__", _unary(_fn))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(ScalarArg, f"__{_name}__", _compared(getattr(_operator, _name)))

_core._register_scalar_arg(ScalarArg)


class Fused:
    """A function of arrays and Python numbers planned once per argument
    signature and replayed (see fuse)."""

    def __init__(self, fn, max_signatures):
        self._fn = fn
        self._cache = _core._TraceCache(max_signatures)
        self._single = True  # whether the function returned one array (not a tuple), the last time it ran
        self._static = set()  # positions of number arguments planned per value
        _functools.update_wrapper(self, fn)

    def _plain(self, args):
        # An argument no plan can take: the function runs, and its results
        # are evaluated, as without fuse.
        r = self._fn(*args)
        _core.eval(*((r,) if isinstance(r, Array) else tuple(r)))
        return r

    def __call__(self, *args):
        arrays, key = [], []
        for i, a in enumerate(args):
            if isinstance(a, (Array, _np.ndarray)):
                arrays.append(asarray(a))
                continue
            kind, dtype = _KINDS.get(type(a)), []
            if kind is None:
                code = _numpy_code(a)
                if code is None:
                    return self._plain(args)
                kind, dtype = _NUMPY, [code]
            if i in self._static:
                words = _value_words(kind, a)
                if words is None:
                    return self._plain(args)
                key += [i << 8 | 1 << 4 | kind, *dtype, *words]
            else:
                key += [i << 8 | kind, *dtype]

        def body(given, trace):
            it = iter(given)
            call = []
            for i, a in enumerate(args):
                if isinstance(a, (Array, _np.ndarray)):
                    call.append(next(it))
                elif trace is not None and i not in self._static:
                    call.append(ScalarArg(trace, a, _operator.itemgetter(i), frozenset((i,))))
                else:
                    call.append(a)
            r = self._fn(*call)
            self._single = isinstance(r, Array)
            if not trace:
                return r, ""
            self._static |= trace
            return r, ("number argument(s) %s were used as Python values (a comparison, int(), float(), an index, "
                       "an axis, a shape...): from now on they are planned per value" % sorted(trace))

        out = self._cache.call(body, arrays, key, args)
        return out[0] if self._single else tuple(out)

    def info(self):
        """traces, replays, unreplayed (calls), signatures (plans held) and
        last_reason (why the latest unreplayed call could not replay)."""
        return self._cache.info()


def fuse(fn=None, *, max_signatures=8):
    """``@fusecl.fuse``: plans the function's kernels on its first call with
    each argument signature and replays them on later calls, without running
    the Python function or building its graph again, as cupy.fuse does.

    Arguments are fusecl arrays, ndarrays (uploaded), Python numbers (bool,
    int, float) and NumPy scalars of fusecl's dtypes. The signature is the
    arrays' dtypes and shapes, their device, which arguments are the same
    array, and each number's type (a NumPy scalar's dtype). A number keeps
    NEP 50's meaning (``x * rate`` is float32 for a float32 ``x`` and a
    Python float, float64 for an ``np.float64``) and a replay uses each
    call's value; inside the function
    it is a stand-in (``fusecl.fused.ScalarArg``) that acts as the number in
    arithmetic. Where the function uses a number as a Python value (a
    comparison, ``int()``, ``float()``, ``math.sin``, an index, an axis, a
    shape, an exponent of ``**``), that argument is planned per value from
    the next call on. The function returns an array or a tuple of them,
    evaluated when the call returns.

    A call that cannot replay (an argument that is lazy, a view, empty, a
    NumPy scalar of a dtype fusecl lacks, or of another type; random numbers drawn, or arrays
    evaluated or uploaded, inside the function) runs the function as without
    fuse: ``f.info()["last_reason"]`` says why."""
    if fn is None:
        return lambda f: Fused(f, max_signatures)
    return Fused(fn, max_signatures)
