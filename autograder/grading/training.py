"""Where the training of a network that scores below the bar went wrong (09, 14; issue 30, 3):
the first stage of the notebook's training that is not what it must be, as one sentence after
the accuracy's. In order: the network's layers, the labels the optimizer was given, net.loss on
digits of the notebook's own training split, and the losses of `loss_hist`.

Everything here comes from the probe `training` (probes/dp_common.py), a reply whose every
part is a hint: it can change which sentence a failing network gets, never a score. A stage
that a reply cannot answer (no optimizer, rows not found among the digits) says nothing and the
next one is asked. What is a fact of the code is named as a known mistake (`WHY`, which each
checks module registers: {name: checking.diagnosed(name, why) for name, why in WHY.items()});
what only locates the difference is said as such.
"""
from __future__ import annotations

import numpy as np

SAMPLE = 100            # training digits given to net.loss and net.forward
LOSS_RTOL = 1e-4        # net.loss and the cross-entropy of net's logits agree (float32 and a clip)
FLAT = 0.05             # a training whose last losses are within 5% of its first learned nothing
WINDOW = 10             # losses averaged at each end of loss_hist
JUMP = 10               # a step whose loss is 10 times the first one's diverged

WHY = {
    "hidden_layer_without_activation": "a hidden layer without an activation: two linear "
                                       "layers in a row are one linear map, so the network is "
                                       "no deeper than one layer",
    "parameters_named_alike": "two layers' parameters have the same name: grad(1) gives one "
                              "gradient per name, so each layer needs a name of its own",
    "training_labels_not_one_hot": "the optimizer was given labels that are not one-hot rows of "
                                   "10: dp.one_hot(y_train, 10)",
    "training_labels_not_the_images": "the optimizer was given labels that are not those of its "
                                      "images (shuffle the images and the labels with one "
                                      "permutation, or give y_train with x_train)",
}


def first_difference(reply: dict, digits, rows, layers, named: dict) -> str:
    """The sentence (with its leading ". ") of the first stage that departs, or "". `reply`: the
    probe `training` on digits.x_train[rows]; `layers`: the network as plain data (None when the
    grader has none); `named`: {name in WHY: the end of a message naming it}, from
    the calling checks module."""
    for stage in (lambda: _layers(layers, named), lambda: _names(reply.get("names"), named),
                  lambda: _labels(reply.get("optimizer"), digits, named),
                  lambda: _loss(reply.get("loss"), reply.get("logits"), digits.y_train[rows]),
                  lambda: _losses(reply.get("losses"), reply.get("optimizer"), reply.get("logits"),
                                  digits.y_train[rows])):
        said = stage()
        if said:
            return said
    return ""


def _layers(layers, named) -> str:
    dense = [layer for layer in layers or () if layer.get("kind") == "dense"]
    for i, layer in enumerate(dense[:-1]):          # the last dense layer is the output
        if layer.get("activation") == "linear":
            return (f". The first difference is in net's layers: its dense layer {i} has no "
                    f"activation{named['hidden_layer_without_activation']}")
    return ""


def _names(names, named) -> str:
    seen = {}
    for i, layer in enumerate(names or ()):
        for name in layer:
            if name in seen and seen[name] != i:
                return (f". The first difference is in net's layers: layers {seen[name]} and {i} "
                        f"both have a parameter named {name!r}{named['parameters_named_alike']}")
            seen.setdefault(name, i)
    return ""


def _keys(images) -> list:
    """Each image (a row of pixels in [0, 1]) as bytes that an equal image has too."""
    pixels = np.clip(np.round(np.asarray(images, dtype=float) * 255), 0, 255).astype(np.uint8)
    return [row.tobytes() for row in pixels.reshape(len(pixels), -1)]


def _labels(optimizer, digits, named) -> str:
    if optimizer is None:
        return ""
    shape = tuple(optimizer["y_shape"])
    if len(shape) != 2 or shape[1] != 10:
        return (f". The first difference is in the training labels: the optimizer's labels have "
                f"shape {shape}{named['training_labels_not_one_hot']}")
    x, y = optimizer["x"], optimizer["y"]
    if len(x) == 0 or x.shape[1] != 784 or len(y) != len(x) or not np.all(np.isfinite(x)):
        return ""
    index = dict(zip(_keys(digits.x_train), digits.y_train))
    known = [(i, index[key]) for i, key in enumerate(_keys(x)) if key in index]
    if len(known) < len(x) // 2:         # images not the notebook's digits: nothing to compare
        return ""
    rows, truth = np.array([i for i, _ in known]), np.array([label for _, label in known])
    given = np.argmax(y[rows], axis=1)
    wrong = float(np.mean(given != truth))
    if wrong <= 0.5:
        return ""
    first = int(np.flatnonzero(given != truth)[0])
    return (f". The first difference is in the training labels: the labels given with the "
            f"optimizer's first {len(rows)} images are not theirs for {wrong:.0%} of them (its "
            f"image {rows[first]} is a {truth[first]}, its label row says "
            f"{given[first]}){named['training_labels_not_the_images']}")


def _cross_entropy(logits, labels) -> float:
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-np.mean(log_p[np.arange(len(labels)), labels]))


def _loss(loss, logits, labels) -> str:
    if loss is None or logits is None or not np.all(np.isfinite(logits)):
        return ""
    wanted = _cross_entropy(logits, labels)
    if np.isfinite(loss) and abs(loss - wanted) <= LOSS_RTOL * max(abs(wanted), 1.0):
        return ""
    return (f". The first difference is in net.loss(x, y): on {len(labels)} of the notebook's "
            f"training digits with their one-hot labels it is {loss:.6g}, but the mean "
            f"cross-entropy of net.forward(x) for those labels is {wanted:.6g}")


def _losses(losses, optimizer, logits, labels) -> str:
    if losses is None or len(losses) < 2:
        return ""
    bad = np.flatnonzero(~np.isfinite(losses))
    if len(bad):
        return (f". The first difference is in training: loss_hist's loss {bad[0]} is "
                f"{losses[bad[0]]}" + _optimizer(optimizer))
    jumps = np.flatnonzero(losses > JUMP * abs(losses[0]))
    if len(jumps) and losses[0] > 0:
        return (f". The first difference is in training: the loss jumped from {losses[0]:.4g} at "
                f"step 0 of loss_hist to {losses[jumps[0]]:.4g} at step {jumps[0]}"
                + _optimizer(optimizer))
    window = max(1, min(WINDOW, len(losses) // 4))
    first, last = float(np.mean(losses[:window])), float(np.mean(losses[-window:]))
    if last > (1 + FLAT) * first:
        how = "rose"
    elif last > (1 - FLAT) * first:
        how = "hardly changed"
    else:
        wanted = _cross_entropy(logits, labels) if logits is not None and \
            np.all(np.isfinite(logits)) else np.nan
        if not 3 * last < wanted:
            return ""
        return (f". The first difference is in training: loss_hist ends at {last:.4g} (its last "
                f"{window} steps), but net's loss on {len(labels)} of the notebook's training "
                f"digits is {wanted:.4g}: its steps did not train on the training split as a "
                f"whole" + _optimizer(optimizer))
    return (f". The first difference is in training: the loss {how}, from {first:.4g} over the "
            f"first {window} steps of loss_hist to {last:.4g} over its last {window} (of "
            f"{len(losses)})" + _optimizer(optimizer))


def _optimizer(optimizer) -> str:
    if optimizer is None:
        return ""
    return f"; the optimizer took {optimizer['steps']:,} steps with lr {optimizer['lr']:g}"
