"""dp: a small library for teaching differentiable programming (reverse-mode autodiff on NumPy).

The API follows "DP: a lightweight library for teaching differentiable programming" (Herta et
al., 2019). The public names and their signatures are listed in `dp.api.STABLE_API`.
"""
from . import allocator, data, init
from .conv import (Statistics, avgpool2d, conv2d, inv_std_dev, maxpool2d,
                   per_dim_mean_var_norm)
from .init import seed
from .loops import (Input, PastValue, SequenceNode, evaluation_order, lstm, run,
                    strongly_connected_components)
from .losses import binary_cross_entropy, cross_entropy, mean_squared_error, mse
from .model import BatchNorm, Dense, Dropout, Layer, Model, NeuralNode
from .node import (Node, ShapeError, as_array, compat_2019, concatenate, custom_op, detect_anomaly,
                   maximum, minimum, no_grad)
from .plots import plot_loss
from .optim import SGD, SGD_Momentum, RMS_Prop, RMSProp, Adam, Optimizer
from . import Helper, optimizer  # the 2019 library's module names (docs/COMPAT.md)
from .utils import (GradcheckError, batches, gradcheck, numerical_gradient, one_hot,
                    relative_error)

__version__ = "1.0.0"

allocator.tune()  # glibc: keep freed arrays for the next training step (see dp/allocator.py)

__all__ = [
    "Node", "ShapeError", "as_array", "concatenate", "custom_op", "maximum", "minimum", "no_grad",
    "detect_anomaly", "compat_2019",
    "cross_entropy", "binary_cross_entropy", "mean_squared_error", "mse",
    "Model", "Layer", "Dense", "NeuralNode", "Dropout", "BatchNorm",
    "Optimizer", "SGD", "SGD_Momentum", "RMSProp", "RMS_Prop", "Adam",
    "one_hot", "batches", "gradcheck", "GradcheckError", "numerical_gradient", "relative_error",
    "seed", "init", "data", "Helper", "optimizer",
    "conv2d", "maxpool2d", "avgpool2d", "inv_std_dev", "per_dim_mean_var_norm", "Statistics",
    "Input", "PastValue", "SequenceNode", "run", "evaluation_order", "strongly_connected_components",
    "lstm", "plot_loss",
]
