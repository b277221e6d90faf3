"""The 2019 library's module of optimizers, kept under its name (``optimizer.SGD``); they are
defined in `dp.optim`."""
from .optim import SGD, SGD_Momentum, RMS_Prop, RMSProp, Adam, Optimizer  # noqa: F401
