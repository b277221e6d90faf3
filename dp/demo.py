"""`python -m dp.demo`: train the paper's MNIST network with dp and report the test accuracy."""
import argparse
import time

import numpy as np

import dp
from dp import Model, Node


class Network(Model):
    """The network of the paper, verbatim: 784-500-200-10, ReLU, softmax, cross-entropy."""

    def __init__(self):
        super().__init__()
        self.h1 = self.ReLU_Layer(784, 500, "h1")
        self.h2 = self.ReLU_Layer(500, 200, "h2")
        self.h3 = self.Linear_Layer(200, 10, "h3")

    def loss(self, x, y):
        if not type(y) == Node:
            y = Node(y)
        out = self.forward(x)
        return (-1 * (y * out.log())).sum()

    def forward(self, x):
        if not type(x) == Node:
            x = Node(x)
        return self.h3(self.h2(self.h1(x))).softmax()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    data = dp.data.mnist()
    dp.seed(args.seed)
    net = Network()
    optimizer = dp.Adam(net, data.x_train, dp.one_hot(data.y_train, 10),
                        batch_size=args.batch_size, seed=args.seed)
    start = time.perf_counter()
    loss = optimizer.train(steps=args.steps, print_each=0, progress=True)
    seconds = time.perf_counter() - start
    with dp.no_grad():
        predicted = net.eval().forward(data.x_test).value.argmax(axis=1)
    accuracy = float(np.mean(predicted == data.y_test))
    print(f"data:      {data.source}")
    print(f"training:  {args.steps} Adam steps of {args.batch_size} in {seconds:.1f} s, "
          f"final batch loss {loss:.4f} (the model's loss: a sum over the batch's "
          f"{args.batch_size} digits, {loss / args.batch_size:.4f} per digit)")
    print(f"accuracy:  {accuracy:.4f} on {len(data.y_test)} test digits")
    return accuracy


if __name__ == "__main__":
    main()
