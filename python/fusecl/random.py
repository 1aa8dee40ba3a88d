"""Random arrays generated on the device (Philox4x32-10, counter based): no
upload, the same values for the same seed on every device, and fused into the
expression that uses them."""
from . import _core


def uniform(shape, seed=0, dtype=None, low=0.0, high=1.0, device=None):
    """Uniform in [low, high) (default [0, 1)), float64 unless dtype says float32."""
    x = _core._random_uniform(shape, seed, dtype, device)
    if low != 0.0 or high != 1.0:
        x = x * (high - low) + low
    return x


def normal(shape, seed=0, dtype=None, loc=0.0, scale=1.0, device=None):
    """Normal with mean loc and standard deviation scale (Box-Muller)."""
    x = _core._random_normal(shape, seed, dtype, device)
    if loc != 0.0 or scale != 1.0:
        x = x * scale + loc
    return x
