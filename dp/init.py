"""Weight initialisations, and the random generator that dp uses everywhere.

A weight matrix W has shape (fan_in, fan_out): a layer computes X @ W + b with one example per
row of X. Each initialiser is ``f(fan_in, fan_out, dtype) -> array``.
"""
from __future__ import annotations

import numpy as np

_generator = [np.random]


def seed(value: int | None) -> None:
    """Make initialisation, dropout masks and mini-batch order reproducible: dp draws from a
    generator of its own, seeded with `value`, from now on. ``seed(None)`` goes back to NumPy's
    global generator, as at import."""
    _generator[0] = np.random if value is None else np.random.default_rng(value)


def generator():
    """dp's random generator: NumPy's global one (the module np.random, whose functions dp
    calls) until `seed` is called, as in the 2019 library, where np.random.seed(s) made a run
    reproducible; then a np.random.Generator of dp's own."""
    return _generator[0]


def uniform(fan_in, fan_out, dtype=np.float64, scale=0.1):
    """W ~ U(-scale, scale)."""
    return generator().uniform(-scale, scale, (fan_in, fan_out)).astype(dtype)


def normal(fan_in, fan_out, dtype=np.float64, std=0.1):
    """W ~ N(0, std^2)."""
    return (std * generator().standard_normal((fan_in, fan_out))).astype(dtype)


def xavier_uniform(fan_in, fan_out, dtype=np.float64):
    """Glorot & Bengio (2010): W ~ U(-a, a), a = sqrt(6 / (fan_in + fan_out)),
    so that Var(W) = 2 / (fan_in + fan_out) keeps activations and gradients at one scale."""
    return uniform(fan_in, fan_out, dtype, scale=np.sqrt(6.0 / (fan_in + fan_out)))


def xavier_normal(fan_in, fan_out, dtype=np.float64):
    """W ~ N(0, 2 / (fan_in + fan_out))."""
    return normal(fan_in, fan_out, dtype, std=np.sqrt(2.0 / (fan_in + fan_out)))


def he_uniform(fan_in, fan_out, dtype=np.float64):
    """He et al. (2015), for ReLU: W ~ U(-a, a), a = sqrt(6 / fan_in), so Var(W) = 2 / fan_in."""
    return uniform(fan_in, fan_out, dtype, scale=np.sqrt(6.0 / fan_in))


def he_normal(fan_in, fan_out, dtype=np.float64):
    """W ~ N(0, 2 / fan_in)."""
    return normal(fan_in, fan_out, dtype, std=np.sqrt(2.0 / fan_in))


INITIALISERS = {f.__name__: f for f in (uniform, normal, xavier_uniform, xavier_normal,
                                         he_uniform, he_normal)}
INITIALISERS.update(xavier=xavier_uniform, glorot=xavier_uniform, he=he_normal)


def get(init):
    """An initialiser from its name (see INITIALISERS) or a callable."""
    if callable(init):
        return init
    try:
        return INITIALISERS[init]
    except KeyError:
        raise ValueError(f"unknown initialisation {init!r}; choose one of "
                         f"{sorted(INITIALISERS)} or pass a function") from None
