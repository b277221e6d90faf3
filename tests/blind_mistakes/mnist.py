"""Blind mistakes in 09, MNIST (see tests/blind_mistakes/__init__.py). Each one trains the network
again (about 10 s): all are slow."""
from . import Mistake
from .dp_library import SIGN
from .batch_normalisation import AXIS

A = "09_mnist"
LR = ("learning rate", "lr", "diverg", "too large", "step size")

MISTAKES = [
    Mistake(A, "mnist_accuracy", "predict_argmax_over_the_batch",
            ".value.argmax(axis=1)", ".value.argmax(axis=0)",
            "each row's class is the argmax over its 10 scores (axis 1), not over the examples",
            AXIS + ("argmax",), slow=True),
    Mistake(A, "mnist_accuracy", "predict_returns_the_score",
            ".value.argmax(axis=1)", ".value.max(axis=1)",
            "the predicted digit is the index of the largest score (argmax), not the score itself",
            ("argmax", "index", "max", "class", "label", "digit"), slow=True),
    Mistake(A, "mnist_accuracy", "learning_rate_far_too_large",
            "lr=1e-3, batch_size=128", "lr=2.0, batch_size=128",
            "a learning rate of 2 makes Adam jump around: training diverges", LR, slow=True),
    Mistake(A, "mnist_accuracy", "labels_not_one_hot",
            "net, x_train, dp.one_hot(y_train, 10)", "net, x_train, y_train",
            "the cross-entropy takes one-hot labels of shape (n, 10), not the digits",
            ("one-hot", "one_hot", "one hot", "label", "shape"), slow=True),
    Mistake(A, "mnist_accuracy", "loss_maximised",
            "### BEGIN SOLUTION\n        return dp.cross_entropy(self.forward(x), y)",
            "### BEGIN SOLUTION\n        return -dp.cross_entropy(self.forward(x), y)",
            "minimising minus the cross-entropy makes the network as wrong as it can be", SIGN,
            slow=True),
    Mistake(A, "mnist_accuracy", "trained_six_steps",
            "for _ in range(600)]", "for _ in range(6)]",
            "six steps of training is far too few", ("steps", "train", "iteration", "too few",
                                                     "underfit", "epoch"), slow=True),
    Mistake(A, "mnist_accuracy", "predict_builds_a_graph",
            "    with dp.no_grad():\n        return net.eval().forward(x).value.argmax(axis=1)",
            "    return net.eval().forward(x).value.argmax(axis=1)",
            "predicting without dp.no_grad() records a graph nobody differentiates: slower, "
            "same answer", ("no_grad", "graph"), wrong_value=False, slow=True),
]

# Round 2 (2026-11-28), written blind as round 1 was.
MISTAKES += [
    Mistake(A, "mnist_accuracy", "training_labels_not_shuffled_with_the_images",
            "data.y_train[order[n_val:]]", "data.y_train[n_val:]",
            "the images are taken in the shuffled order but the labels are not: every image "
            "gets another image's label", ("label", "align", "order", "shuffl", "permut",
                                           "mismatch", "match"), slow=True),
    Mistake(A, "mnist_accuracy", "predict_uses_the_validation_images",
            "return net.eval().forward(x).value.argmax(axis=1)",
            "return net.eval().forward(x_val).value.argmax(axis=1)",
            "predict(x) must classify its argument x; it always classifies the global x_val",
            ("x_val", "argument", "input", "global", "wrong variable", "parameter"), slow=True),
    Mistake(A, "mnist_accuracy", "hidden_layers_without_activation",
            "self.h1 = self.ReLU_Layer(784, 256, \"h1\")\n        self.h2 = self.ReLU_Layer(",
            "self.h1 = self.Linear_Layer(784, 256, \"h1\")\n        self.h2 = self.Linear_Layer(",
            "without ReLU the three layers compose to one linear map: a linear classifier",
            ("relu", "activation", "linear", "nonlinear", "non-linear"), slow=True),
    Mistake(A, "mnist_accuracy", "two_layers_named_alike",
            "self.h2 = self.ReLU_Layer(256, 128, \"h2\")", "self.h2 = self.ReLU_Layer(256, 128, \"h1\")",
            "copy-paste: the second layer is also named h1, so its parameters clash with the "
            "first layer's", ("name", "duplicate", "h1", "same name", "unique", "clash"),
            slow=True),
    Mistake(A, "mnist_accuracy", "predict_with_a_fresh_network",
            "return net.eval().forward(x).value.argmax(axis=1)",
            "return Network().eval().forward(x).value.argmax(axis=1)",
            "predict builds a new, untrained Network instead of using the trained net",
            ("new network", "untrained", "trained", "fresh", "initial", "network()"), slow=True),
]

# Round 3 (2026-11-28), written blind as rounds 1 and 2 were.
MISTAKES += [
    Mistake(A, "mnist_accuracy", "loss_arguments_swapped",
            "return dp.cross_entropy(self.forward(x), y)\n        ### END SOLUTION",
            "return dp.cross_entropy(y, self.forward(x))\n        ### END SOLUTION",
            "cross_entropy(logits, targets): with the arguments swapped the one-hot labels are "
            "taken for the scores", ("argument", "order", "swap", "exchang", "logits", "targets"),
            slow=True),
    Mistake(A, "mnist_accuracy", "predict_returns_a_column",
            "return net.eval().forward(x).value.argmax(axis=1)",
            "return net.eval().forward(x).value.argmax(axis=1).reshape(-1, 1)",
            "predict returns one label per image, shape (n,); a column (n, 1) compared with the "
            "labels broadcasts to (n, n)", ("shape", "column", "(n, 1)", "broadcast"), slow=True),
    Mistake(A, "width_lr_sweep", "sweep_row_reset_for_every_rate",
            "sweep[width][lr] = float(", "sweep[width] = {}\n        sweep[width][lr] = float(",
            "the row of a width is emptied before each learning rate: only the last rate's "
            "accuracy is kept", ("overwrit", "reset", "last", "missing", "length", "every rate"),
            slow=True),
    Mistake(A, "error_analysis", "confusion_transposed",
            "np.add.at(confusion, (y_val, predicted), 1)",
            "np.add.at(confusion, (predicted, y_val), 1)",
            "confusion[i, j] counts the images of class i predicted as j: the indices are "
            "exchanged, so the matrix is transposed", ("transpos", "swap", "exchang", "row",
                                                       "column"), slow=True),
    Mistake(A, "error_analysis", "confusion_buffered_increment",
            "np.add.at(confusion, (y_val, predicted), 1)", "confusion[y_val, predicted] += 1",
            "fancy-index += is buffered: a (true, predicted) pair that occurs many times is "
            "counted once; np.add.at counts each", ("add.at", "buffer", "repeat", "duplicat",
                                                    "counted once", "count"), slow=True),
    Mistake(A, "error_analysis", "worst_are_the_most_confident",
            'y_val], kind="stable")[:8]', 'y_val], kind="stable")[-8:]',
            "argsort is ascending: the worst images (lowest probability of the true class) are "
            "the first eight, not the last", ("ascending", "descending", "first", "last",
                                              "lowest", "highest", "order", "revers"), slow=True),
    Mistake(A, "error_analysis", "worst_ranked_by_logits",
            "probabilities = net.eval().forward(x_val).softmax().value",
            "probabilities = net.eval().forward(x_val).value",
            "the network returns logits: the probabilities need a softmax first",
            ("softmax", "logit", "probabilit"), slow=True),
]

# Round 4 (2026-11-28), written blind as rounds 1 to 3 were.
# Written and left out: the sweep scored on the training digits (x_train, y_train); the
# self-check gives it full marks (grading trains the sweep again).
MISTAKES += [
    Mistake(A, "mnist_accuracy", "adam_recreated_for_every_step",
            "optimizer = dp.Adam(net, x_train, dp.one_hot(y_train, 10), lr=1e-3, batch_size=128, seed=0)\n"
            "loss_hist = [optimizer.train(steps=1, print_each=0) for _ in range(600)]",
            "loss_hist = [dp.Adam(net, x_train, dp.one_hot(y_train, 10), lr=1e-3, batch_size=128,\n"
            "                     seed=0).train(steps=1, print_each=0) for _ in range(600)]",
            "a new optimiser at every step forgets Adam's moments and, seeded alike, draws the "
            "same first mini-batch every time: the network only ever sees 128 digits",
            ("optimi", "state", "moment", "same batch", "mini-batch", "minibatch", "every step",
             "once"), slow=True),
    Mistake(A, "mnist_accuracy", "learning_rate_far_too_small",
            "lr=1e-3, batch_size=128, seed=0)\nloss_hist", "lr=1e-7, batch_size=128, seed=0)\nloss_hist",
            "with a learning rate of 1e-7, 600 steps barely move the weights from their "
            "initialisation", LR + ("too small", "barely", "underfit", "not trained"),
            slow=True),
    Mistake(A, "width_lr_sweep", "sweep_accuracy_over_the_wrong_axis",
            "float(np.mean(scores.argmax(axis=1) == y_val))",
            "float(np.mean(scores.argmax(axis=0) == y_val))",
            "each digit's prediction is the argmax over its 10 scores (axis 1), not over the "
            "validation digits", AXIS + ("argmax",), slow=True),
    Mistake(A, "error_analysis", "worst_indexed_by_a_column_slice",
            "probabilities[np.arange(len(y_val)), y_val]", "probabilities[:, y_val]",
            "p[i, y_val[i]] needs the row index too: probabilities[:, y_val] picks whole columns, "
            "an (n, n) array", ("index", "row", "column", "shape", "np.arange", "fancy"),
            slow=True),
    Mistake(A, "error_analysis", "worst_by_the_predicted_digit",
            "probabilities[np.arange(len(y_val)), y_val]",
            "probabilities[np.arange(len(y_val)), predicted]",
            "the worst digits have the lowest probability of their true label y_val; the "
            "probability of the predicted digit measures confidence, not error",
            ("true label", "y_val", "predicted", "label", "confidence"), slow=True),
]

# Round 5 (2026-11-28), written blind as rounds 1 to 4 were.
# Written and left out (full marks in the self-check): a softmax before dp.cross_entropy, which
# takes logits, old `return dp.cross_entropy(self.forward(x), y)` -> new
# `return dp.cross_entropy(self.forward(x).softmax(), y)` in Network.loss (trains slower, still
# passes).
# Written and left out (not gradable by the self-check, which leaves width_lr_sweep "unchecked":
# it is graded by training again): the sweep scored on the training digits (`forward(x_val)` /
# `== y_val` -> `forward(x_train)` / `== y_train`); `dp.seed(0)` before each candidate removed;
# `OneHidden(width)` -> `OneHidden(16)`.
MISTAKES += [
    Mistake(A, "mnist_accuracy", "trained_on_the_validation_split",
            "optimizer = dp.Adam(net, x_train, dp.one_hot(y_train, 10), lr=1e-3, batch_size=128, seed=0)",
            "optimizer = dp.Adam(net, x_val, dp.one_hot(y_val, 10), lr=1e-3, batch_size=128, seed=0)",
            "the network is trained on the training split; the validation digits are kept out "
            "to measure it", ("validation", "x_val", "training split", "training data", "leak"), slow=True),
    Mistake(A, "mnist_accuracy", "output_layer_with_relu",
            "self.h3 = self.Linear_Layer(128, 10, \"h3\")", "self.h3 = self.ReLU_Layer(128, 10, \"h3\")",
            "the output layer gives logits, which may be negative: a ReLU there cuts them at 0",
            ("relu", "logit", "output layer", "linear", "negative", "activation"), slow=True),
    Mistake(A, "mnist_accuracy", "training_inputs_rescaled",
            "optimizer = dp.Adam(net, x_train, dp.one_hot(y_train, 10), lr=1e-3, batch_size=128, seed=0)",
            "optimizer = dp.Adam(net, x_train / 255, dp.one_hot(y_train, 10), lr=1e-3, batch_size=128, seed=0)",
            "the images are already scaled: dividing them by 255 again for training only makes "
            "the training inputs differ from the ones predicted", ("255", "scal", "normalis",
                                                                   "normaliz", "input"), slow=True),
    Mistake(A, "error_analysis", "worst_by_the_top_probability",
            "worst = np.argsort(probabilities[np.arange(len(y_val)), y_val], kind=\"stable\")[:8]",
            "worst = np.argsort(probabilities.max(axis=1), kind=\"stable\")[:8]",
            "the worst digits have the smallest probability of their true label; the largest "
            "probability of any class ranks the least confident predictions instead",
            ("true label", "label", "y_val", "correct class", "max", "confident"), slow=True),
    Mistake(A, "error_analysis", "confusion_set_not_counted",
            "np.add.at(confusion, (y_val, predicted), 1)", "confusion[y_val, predicted] = 1",
            "each entry counts the digits with that label and prediction: assigning 1 marks "
            "only whether the pair occurs", ("count", "add.at", "+=", "1", "occur", "assign"), slow=True),
    Mistake(A, "error_analysis", "worst_skips_the_first",
            "worst = np.argsort(probabilities[np.arange(len(y_val)), y_val], kind=\"stable\")[:8]",
            "worst = np.argsort(probabilities[np.arange(len(y_val)), y_val], kind=\"stable\")[1:9]",
            "the eight worst are the first eight of the sorted order, [:8]; [1:9] skips the very "
            "worst digit", ("off-by-one", "off by one", "[:8]", "first", "index 0", "skip"),
            slow=True),
    Mistake(A, "error_analysis", "worst_sorted_values_not_indices",
            "worst = np.argsort(probabilities[np.arange(len(y_val)), y_val], kind=\"stable\")[:8]",
            "worst = np.sort(probabilities[np.arange(len(y_val)), y_val], kind=\"stable\")[:8]",
            "worst holds the indices of the digits (argsort); np.sort returns the sorted "
            "probabilities themselves", ("argsort", "indices", "index", "np.sort", "probabilit"),
            slow=True),
]

# Round 6 (2026-11-28), written blind as rounds 1 to 5 were.
MISTAKES += [
    Mistake(A, "mnist_accuracy", "layers_composed_inside_out",
            "return self.h3(self.h2(self.h1(x)))", "return self.h1(self.h2(self.h3(x)))",
            "f(g(h(x))) applies h first: the layers are called from the output layer inwards, "
            "so the input goes into h3", ("order", "revers", "inside out", "h1", "first layer"),
            slow=True),
    Mistake(A, "mnist_accuracy", "predicted_digit_off_by_one",
            "return net.eval().forward(x).value.argmax(axis=1)",
            "return net.eval().forward(x).value.argmax(axis=1) + 1",
            "argmax gives the column index, which is the digit itself (0-9): adding 1 shifts "
            "every prediction", ("off-by-one", "off by one", "+ 1", "+1", "shift", "0-9"),
            slow=True),
    Mistake(A, "width_lr_sweep", "sweep_scored_on_the_training_images",
            "scores = candidate.eval().forward(x_val).value",
            "scores = candidate.eval().forward(x_train).value",
            "the validation labels are compared with the scores of the training images: the "
            "sweep must score x_val", ("x_val", "validation", "x_train", "training images",
                                       "wrong data"), slow=True),
    Mistake(A, "width_lr_sweep", "sweep_error_rate_for_accuracy",
            "np.mean(scores.argmax(axis=1) == y_val)", "np.mean(scores.argmax(axis=1) != y_val)",
            "the sweep records the accuracy, the fraction right: `!=` gives the error rate",
            ("error rate", "!=", "complement", "fraction wrong"), slow=True),
    Mistake(A, "width_lr_sweep", "sweep_plots_the_keys",
            "list(sweep[width].values())", "list(sweep[width].keys())",
            "the keys of sweep[width] are the learning rates: the plot shows the rates against "
            "themselves, not the accuracies",
            ("keys", "y values", "series", ".keys()", "rates against"),
            slow=True),
    Mistake(A, "width_lr_sweep", "sweep_label_shows_the_rate",
            "label=f\"width {width}\")", "label=f\"width {lr}\")",
            "each curve is one width: the label reads the loop's last learning rate instead, so "
            "every curve has the same label",
            ("same label", "{lr}", "learning rate instead of the width", "lr instead"),
            slow=True),
    Mistake(A, "error_analysis", "confusion_counts_the_labels_twice",
            "np.add.at(confusion, (y_val, predicted), 1)",
            "np.add.at(confusion, (y_val, y_val), 1)",
            "the columns are the predicted digits: (y_val, y_val) counts every image on the "
            "diagonal, as if all were right",
            ("diagonal", "y_val, y_val", "wrong variable", "labels twice"),
            slow=True),
    Mistake(A, "error_analysis", "confusion_boolean",
            "confusion = np.zeros((10, 10), dtype=int)",
            "confusion = np.zeros((10, 10), dtype=bool)",
            "a boolean matrix saturates at True: the confusion matrix must count, with integers",
            ("bool", "dtype", "integer", "saturat"), slow=True),
]

# Written and left out: a softmax before dp.cross_entropy, which applies its own (mnist_accuracy
# keeps 10/10: the accuracy still clears the bar); the sweep training every candidate with
# lr=1e-3 instead of the loop's lr (the self-check reports the sweep "unchecked": it is retrained
# only when graded).
