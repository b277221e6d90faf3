"""A planted class for the similarity check (issue 33, item 5): the yardstick that
tests/test_similarity.py and benchmarks/similarity.py rank.

For 01_scalar_autodiff and for 06_optimizers, twelve honest students and nine copiers (and,
for another notebook, 04_activation_functions, five honest students, one style each, no copies:
HONEST_ONLY):

- A *style* is one way of writing every `### BEGIN SOLUTION` block of the solution; the blocks
  fall into three *parts* (01: the arithmetic, the functions, the backward pass with the
  numerical gradient; 06: momentum and RMSProp, Adam, the loss plot). There are five styles
  (the reference solution and four others), written independently: other structure, helpers,
  loops or comprehensions, dict idioms, recursion-free traversals of other kinds.
- An honest student takes each part from one style (see Planted.honest): two honest students
  share at most one part, as two honest solutions
  share the lines that the exercise dictates, and never two.
- A copier takes a classmate's bodies and disguises them: identifiers renamed, statements or
  functions and cells reordered, a helper inlined or one extracted, loops turned into
  comprehensions, dead code added, all of these at once; and a chain of three (a copy of a copy).
  Every pair of students joined by copying, directly or along the chain, is a planted pair.

Made from the solutions' sources, as autograder/authoring/demo_students.py makes its class; no
notebook is run (the comparison reads code cells only), so the bodies need not be exercised.
"""
from __future__ import annotations

import itertools
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import nbformat

from autograder.authoring.demo_students import BLOCK, STYLES as DEMO_STYLES
from autograder.course.config import load_course

COURSE = load_course()
SIZES = 5        # styles per part


@dataclass(frozen=True)
class Copy:
    """A copier: `original`'s bodies, with `bodies` ({block: text}) written over them, local
    names renamed by `renames` ({old: new}), `dead` ({block: text}) appended to those bodies,
    and, with `reorder`, the Part-2-like cell's functions reversed and `move` ((cell marker,
    before marker)) applied to the notebook's cells."""
    original: str
    bodies: dict = field(default_factory=dict)
    renames: dict = field(default_factory=dict)
    dead: dict = field(default_factory=dict)
    reorder: bool = False
    move: tuple = ()


@dataclass(frozen=True)
class Planted:
    assignment_id: str
    styles: tuple            # five styles: None (the solution's own bodies) or [body per block]
    parts: tuple             # the blocks of each part
    names: tuple             # the honest students' names (at most 15)
    copies: dict             # {copier: Copy}
    split: str = ""          # the cell whose functions `reorder` reverses: a marker in it

    @property
    def assignment(self):
        return COURSE.assignment(self.assignment_id)

    def honest(self) -> dict:
        """{student: (style of each part)}: student (a, d) has the styles (a, b, a + 2b mod 5)
        with b = a + d: any two students share at most one part's style (two of the three
        determine the third), and d = 1, 2 (then 3) gives every style to every part twice."""
        combos = [(a, (a + d) % SIZES, (a + 2 * (a + d)) % SIZES)
                  for d in (1, 2, 3) for a in range(SIZES)]
        return dict(zip(self.names, combos))

    def planted_pairs(self) -> set:
        """Every pair of students joined by copying, directly or through a chain."""
        group = {}
        for copier, copy in self.copies.items():
            root = copy.original
            while root in self.copies:
                root = self.copies[root].original
            group.setdefault(root, {root}).add(copier)
        return {frozenset(p) for members in group.values()
                for p in itertools.combinations(sorted(members), 2)}


def _solution_bodies(source: str) -> list:
    return [textwrap.dedent("\n".join(m[0].splitlines()[1:-1])) for m in BLOCK.finditer(source)]


def _renamed(code: str, renames: dict) -> str:
    for old, new in renames.items():
        code = re.sub(rf"(?<![.\w'\"]){old}\b(?!['\"])", new, code)
    return code


def bodies_of(planted: Planted, student: str) -> list:
    """The student's body of every solution block."""
    source = planted.assignment.solution_path().read_text(encoding="utf-8")
    own = _solution_bodies(source)
    if student in planted.copies:
        copy = planted.copies[student]
        bodies = list(bodies_of(planted, copy.original))
        for index, text in copy.bodies.items():     # a text, or a function of the original's
            text = text(bodies[index]) if callable(text) else text
            bodies[index] = textwrap.dedent(text).strip("\n")
        for index, text in copy.dead.items():
            bodies[index] += "\n" + textwrap.dedent(text).strip("\n")
        return [_renamed(body, copy.renames) for body in bodies]
    styles = planted.honest()[student]
    bodies = []
    for index, body in enumerate(own):
        part = next((i for i, p in enumerate(planted.parts) if index in p), None)
        style = None if part is None else planted.styles[styles[part]]     # a block of no part:
        bodies.append(body if style is None else textwrap.dedent(style[index]).strip("\n"))  # as given
    return bodies


def _reordered(planted: Planted, nb, copy: Copy):
    for cell in nb.cells:
        if copy.reorder and planted.split and planted.split in cell.source:
            functions = cell.source.split("\n\n\n")
            last = functions.pop()
            cell.source = "\n\n\n".join(functions[::-1] + [last])
    for marker, before in copy.move:
        cells = nb.cells
        moved = cells.pop(next(i for i, c in enumerate(cells) if marker in c.source))
        cells.insert(next(i for i, c in enumerate(cells) if before in c.source), moved)
    return nb


def notebook(planted: Planted, student: str):
    """The student's notebook: the solution with their bodies in its blocks."""
    bodies = iter(bodies_of(planted, student))
    source = BLOCK.sub(lambda m: textwrap.indent(next(bodies), m[1]) + "\n",
                       planted.assignment.solution_path().read_text(encoding="utf-8"))
    nb = jupytext.reads(source, fmt="py:percent")
    copy, chain = None, student
    while chain in planted.copies:          # a copy keeps the moves of what it copied
        copy = planted.copies[chain]
        nb = _reordered(planted, nb, copy)
        chain = copy.original
    return nb


def make_class(planted: Planted, submitted: Path) -> dict:
    """Write every student of `planted` as submitted/<student>/<assignment>/<notebook>.ipynb,
    and return {student: notebook}."""
    a = planted.assignment
    notebooks = {s: notebook(planted, s) for s in [*planted.honest(), *planted.copies]}
    for student, nb in notebooks.items():
        path = submitted / student / a.id / f"{a.notebook}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
    return notebooks


def _lines(body: str, order) -> str:
    """`body` with its lines in `order` (statements reordered)."""
    lines = body.splitlines()
    assert sorted(order) == list(range(len(lines))), (len(lines), order)
    return "\n".join(lines[i] for i in order)


def _inlined(body: str) -> str:
    """The unpacked style's backward pass with its helper `topo_order` inlined."""
    helper, _, rest = body.partition("\n\nordering = topo_order(self)\n")
    inner = textwrap.dedent("\n".join(helper.splitlines()[1:-1]))     # no def, no return
    return inner.replace("root", "self").replace("result", "ordering") + "\n" + rest


def _extracted(body: str) -> str:
    """The solution's backward pass with its depth-first search extracted into a helper."""
    lines = body.splitlines()[1:]                     # the comment goes
    search = "\n".join(lines[:9]).replace("self", "root")
    return (f"def depth_first(root):\n{textwrap.indent(search, '    ')}\n    return order\n\n"
            "order = depth_first(self)\n" + "\n".join(lines[9:]))


def _comprehensions(body: str) -> str:
    """The zipped style's backward pass with two of its loops as comprehensions."""
    loop = ("        for parent, _ in node.parents:\n            if id(parent) not in mark:\n"
            "                stack.append(parent)")
    accumulate = ("    for parent, local in node.parents:\n"
                  "        grads[id(parent)] += local * node.grad")
    assert loop in body and accumulate in body
    return (body.replace(loop, "        stack.extend([parent for parent, _ in node.parents "
                               "if id(parent) not in mark])")
            .replace("grads = {id(n): 0.0 for n in post}",
                     "grads = dict((id(n), 0.0) for n in post)")
            .replace(accumulate, "    _ = [grads.__setitem__(id(parent), grads[id(parent)] + local "
                                 "* node.grad)\n         for parent, local in node.parents]"))



# -- 01_scalar_autodiff: + - * / neg rsub rtruediv, exp log tanh sigmoid, backward, numerical --
_HELPER_BACKWARD = """\
def topo_order(root):
    result, marked = [], set()
    work = [(root, 0)]
    while work:
        current, i = work.pop()
        if i == 0:
            if id(current) in marked:
                continue
            marked.add(id(current))
        if i < len(current.parents):
            work.append((current, i + 1))
            work.append((current.parents[i][0], 0))
        else:
            result.append(current)
    return result

ordering = topo_order(self)
for n in ordering:
    n.grad = 0.0
self.grad = 1.0
for n in ordering[::-1]:
    for p, d in n.parents:
        p.grad += d * n.grad"""

SCALAR = Planted(
    "01_scalar_autodiff",
    styles=(
        None,
        DEMO_STYLES["kahn"],        # a consumer count: nodes go once all their consumers have
        DEMO_STYLES["explicit"],    # named values and parents; an iterator-stack search
        [   # unpacked: a, b = the two values; a nested helper for the order
            "a, b = self.value, other.value\nreturn Scalar(a + b, [(self, 1.0), (other, 1.0)])",
            "a, b = self.value, other.value\nreturn Scalar(a - b, [(self, 1.0), (other, -1.0)])",
            "a, b = self.value, other.value\nreturn Scalar(a * b, [(self, b), (other, a)])",
            "a, b = self.value, other.value\n"
            "return Scalar(a / b, [(self, 1.0 / b), (other, -a / (b * b))])",
            "return Scalar(-1.0 * self.value, [(self, -1.0)])",
            "return Scalar(other - self.value, [(self, -1.0)])",
            "return Scalar(other / self.value, [(self, -other / self.value ** 2)])",
            "ev = math.e ** self.value\nreturn Scalar(ev, [(self, ev)])",
            "assert self.value > 0, 'log needs x > 0'\n"
            "return Scalar(math.log(self.value), [(self, 1.0 / self.value)])",
            "a = math.exp(self.value)\nb = math.exp(-self.value)\nth = (a - b) / (a + b)\n"
            "return Scalar(th, [(self, 1.0 - th ** 2)])",
            "if self.value < 0:\n    sig = math.exp(self.value) / (1.0 + math.exp(self.value))\n"
            "else:\n    sig = 1.0 / (1.0 + math.exp(-self.value))\n"
            "return Scalar(sig, [(self, sig - sig * sig)])",
            _HELPER_BACKWARD,
            "lo, hi = f(x - eps), f(x + eps)\nreturn (hi - lo) / (eps + eps)",
        ],
        [   # zipped: local gradients zipped with the inputs; grads gathered in a dict
            "grads = (1.0, 1.0)\n"
            "return Scalar(self.value + other.value, tuple(zip((self, other), grads)))",
            "grads = (1.0, -1.0)\n"
            "return Scalar(self.value - other.value, tuple(zip((self, other), grads)))",
            "grads = (other.value, self.value)\n"
            "return Scalar(self.value * other.value, tuple(zip((self, other), grads)))",
            "q = self.value / other.value\ngrads = (1.0 / other.value, -q / other.value)\n"
            "return Scalar(q, tuple(zip((self, other), grads)))",
            "return self * Scalar(-1.0)",
            "return (-self) + other",
            "return Scalar(float(other)) / self",
            "return Scalar(math.exp(self.value), [(self, math.exp(self.value))])",
            "x = self.value\nif x <= 0:\n    raise ValueError(f'log({x})')\n"
            "return Scalar(math.log(x), [(self, 1 / x)])",
            "t = math.tanh(self.value)\nd = (1 - t) * (1 + t)\nreturn Scalar(t, [(self, d)])",
            "x = self.value\ns = 1 / (1 + math.exp(-x)) if x >= 0 else 1 - 1 / (1 + math.exp(x))\n"
            "return Scalar(s, [(self, s * (1 - s))])",
            """\
            post, mark = [], {}
            stack = [self]
            while stack:
                node = stack[-1]
                if id(node) not in mark:
                    mark[id(node)] = 'open'
                    for parent, _ in node.parents:
                        if id(parent) not in mark:
                            stack.append(parent)
                else:
                    stack.pop()
                    if mark[id(node)] == 'open':
                        mark[id(node)] = 'closed'
                        post.append(node)
            grads = {id(n): 0.0 for n in post}
            grads[id(self)] = 1.0
            for node in reversed(post):
                node.grad = grads[id(node)]
                for parent, local in node.parents:
                    grads[id(parent)] += local * node.grad""",
            "def at(t):\n    return f(x + t)\nreturn (at(eps) - at(-eps)) / (2 * eps)",
        ],
    ),
    parts=(range(0, 7), range(7, 11), range(11, 13)),
    names=("ada", "bo", "cai", "dev", "eli", "fay", "gus", "hal", "ines", "jo", "kai", "liv"),
    split="def exp(self",
    copies={},
)
SCALAR.copies.update({
    # identifiers renamed
    "mo": Copy("kai", renames={
        "children": "consumers", "seen": "known", "todo": "frontier", "ready": "done_nodes",
        "node": "v", "parent": "u", "local": "dv", "inv": "r", "out": "res", "e": "ex",
        "out_value": "prod", "forward": "fp", "backward": "fm", "h": "delta", "x": "arg",
        "grads": "locals_", "q": "ratio", "post": "finished", "mark": "status", "t": "tt",
        "s": "sg", "z": "ez", "d": "deriv", "a": "lhs", "b": "rhs", "ev": "val", "th": "tv",
        "sig": "sgm", "lo": "below", "hi": "above", "value": "val", "parents": "ins",
        "y": "res", "result": "res", "topo": "order_", "done": "visited_"}),
    # statements and functions reordered, cells moved
    "ned": Copy("ada", reorder=True,
                move=(("def numerical_gradient", "def backward"),),
                bodies={11: lambda body: _lines(body, (1, 0, 2, 3, 4, 5, 7, 6, 8, 9, 11, 10, 14,
                                                       12, 13, 15, 16, 17))}),
    # the helper inlined
    "ola": Copy("cai", bodies={11: _inlined, 12: "return (f(x + eps) - f(x - eps)) / (eps + eps)"}),
    # a helper extracted
    "pia": Copy("bo", bodies={11: _extracted}),
    # loops turned into comprehensions
    "quy": Copy("eli", bodies={11: _comprehensions}),
    # dead code added
    "rex": Copy("fay", dead={
        0: "if False:\n    print('debug add', self.value)",
        7: "_check = math.exp(0.0)",
        11: "visited_count = len(seen)\nunused = [n for n in seen.values() if n.grad == 0.0]",
        12: "pass"}),
    # everything at once: renamed, reordered, dead code
    "sol": Copy("gus",
                reorder=True, move=(("def numerical_gradient", "def backward"),),
                renames={"topo": "finished", "done": "marked", "stack": "pending",
                         "node": "cur", "parent": "par", "d": "g", "value": "val",
                         "parents": "links", "y": "out", "result": "out", "a": "p", "b": "q"},
                dead={11: "# the gradients are now all set\n_total = sum(1 for _ in finished)",
                      3: "assert val == val"}),
    # a chain of three: tam copies hal, uma copies tam
    "tam": Copy("hal", renames={"node": "item", "parent": "src", "stack": "st", "order": "seq",
                                "visited": "been", "local": "w", "value": "v"}),
    "uma": Copy("tam", reorder=True, dead={12: "_ = x", 7: "_ = 0"}),
})

# -- 06_optimizers: momentum, rmsprop, adam, the loss plot ---------------------------------
_EMA = "def ema(old, new, decay):\n    return decay * old + (1 - decay) * new\n"
OPTIMIZERS = Planted(
    "06_optimizers",
    styles=(
        None,
        [   # zeros first, the state's arrays updated in place of the dict
            "if 'v' not in state:\n    state['v'] = np.zeros_like(theta)\n"
            "state['v'] = beta * state['v'] + (1 - beta) * g\nreturn theta - lr * state['v']",
            "if 's' not in state:\n    state['s'] = np.zeros_like(theta)\n"
            "state['s'] = beta * state['s'] + (1 - beta) * g * g\n"
            "return theta - lr * g / (np.sqrt(state['s']) + eps)",
            "if not state:\n    state['m'] = np.zeros_like(theta)\n"
            "    state['v'] = np.zeros_like(theta)\n    state['t'] = 0\nstate['t'] += 1\n"
            "state['m'] = beta1 * state['m'] + (1 - beta1) * g\n"
            "state['v'] = beta2 * state['v'] + (1 - beta2) * g * g\n"
            "mhat = state['m'] / (1 - beta1 ** state['t'])\n"
            "vhat = state['v'] / (1 - beta2 ** state['t'])\n"
            "return theta - lr * mhat / (np.sqrt(vhat) + eps)",
            "for label in paths:\n    losses = rosenbrock(paths[label])\n"
            "    ax.semilogy(range(len(losses)), losses, label=label)\n"
            "ax.set_xlabel('step')\nax.set_ylabel('loss')\nax.legend()",
        ],
        [   # setdefault, np.square
            "velocity = state.setdefault('v', np.zeros_like(g))\n"
            "velocity = beta * velocity + (1.0 - beta) * g\nstate['v'] = velocity\n"
            "return theta - lr * velocity",
            "sq = state.setdefault('s', np.zeros_like(g))\n"
            "sq = beta * sq + (1.0 - beta) * np.square(g)\nstate['s'] = sq\n"
            "step = lr * g / (np.sqrt(sq) + eps)\nreturn theta - step",
            "state.setdefault('t', 0)\nstate['t'] = state['t'] + 1\nstep = state['t']\n"
            "m = beta1 * state.setdefault('m', np.zeros_like(g)) + (1.0 - beta1) * g\n"
            "v = beta2 * state.setdefault('v', np.zeros_like(g)) + (1.0 - beta2) * np.square(g)\n"
            "state['m'], state['v'] = m, v\ncorrected_m = m / (1.0 - beta1 ** step)\n"
            "corrected_v = v / (1.0 - beta2 ** step)\n"
            "return theta - lr * corrected_m / (np.sqrt(corrected_v) + eps)",
            "steps = np.arange(STEPS + 1)\nfor optimizer in ['sgd', 'momentum', 'rmsprop', "
            "'adam']:\n"
            "    ax.plot(steps, rosenbrock(paths[optimizer]), label=optimizer)\n"
            "ax.set(yscale='log', xlabel='t', ylabel='f(theta_t)', title='losses')\n"
            "ax.legend(loc='upper right')",
        ],
        [   # previous and current, a copy stepped in place, powers of 0.5
            "previous = state.get('v', np.zeros(theta.shape))\n"
            "current = previous * beta + g * (1 - beta)\nstate['v'] = current\n"
            "new_theta = theta.copy()\nnew_theta -= lr * current\nreturn new_theta",
            "previous = state.get('s', np.zeros(theta.shape))\n"
            "current = previous * beta + (g ** 2) * (1 - beta)\nstate['s'] = current\n"
            "denominator = current ** 0.5 + eps\nreturn theta - (lr / denominator) * g",
            "t = state.get('t', 0) + 1\nm = state.get('m', 0) * beta1 + g * (1 - beta1)\n"
            "v = state.get('v', 0) * beta2 + g ** 2 * (1 - beta2)\nstate.update(t=t, m=m, v=v)\n"
            "bias1 = 1 - beta1 ** t\nbias2 = 1 - beta2 ** t\n"
            "return theta - lr * (m / bias1) / ((v / bias2) ** 0.5 + eps)",
            "names = list(paths)\ncurves = [rosenbrock(paths[n]) for n in names]\n"
            "for n, curve in zip(names, curves):\n    ax.plot(curve, label=n)\n"
            "ax.set_yscale('log')\nax.set_xlabel('iteration')\nax.set_ylabel('Rosenbrock loss')\n"
            "ax.legend()\nax.grid(True, which='both', alpha=0.3)",
        ],
        [   # a moving-average helper; Adam with the corrections folded into the step size
            _EMA + "state['v'] = ema(state.get('v', 0.0), g, beta)\nreturn theta - lr * state['v']",
            _EMA + "state['s'] = ema(state.get('s', 0.0), g * g, beta)\nrms = np.sqrt(state['s'])\n"
            "return theta - lr * g / (rms + eps)",
            """\
            if 't' in state:
                count, first, second = state['t'] + 1, state['m'], state['v']
            else:
                count, first, second = 1, np.zeros_like(g), np.zeros_like(g)
            first = first + (1 - beta1) * (g - first)
            second = second + (1 - beta2) * (g * g - second)
            state.update({'t': count, 'm': first, 'v': second})
            lr_t = lr * np.sqrt(1 - beta2 ** count) / (1 - beta1 ** count)
            return theta - lr_t * first / (np.sqrt(second) + eps * np.sqrt(1 - beta2 ** count))""",
            "for i, (name, path) in enumerate(sorted(paths.items())):\n    f = rosenbrock(path)\n"
            "    ax.plot(np.arange(f.size), f, color=f'C{i}', label=name)\nax.set_yscale('log')\n"
            "ax.set_xlabel('step number')\nax.set_ylabel('f')\nax.legend(title='optimizer')",
        ],
    ),
    parts=(range(0, 2), range(2, 3), range(3, 4)),
    names=("avi", "bea", "cas", "dina", "emil", "finn", "gia", "hugo", "iris", "jana", "kurt",
           "lou"),
    copies={},
)
OPTIMIZERS.copies.update({
    # identifiers renamed
    "mia": Copy("bea", renames={
        "velocity": "vel", "sq": "avg_sq", "step": "k", "m": "mom1", "v": "mom2",
        "corrected_m": "m_corr", "corrected_v": "v_corr", "steps": "xs", "optimizer": "key",
        "previous": "old", "current": "new", "new_theta": "out", "denominator": "den",
        "bias1": "c1", "bias2": "c2", "names": "keys", "curves": "ys", "n": "k", "curve": "y",
        "label": "lbl", "losses": "fs", "mhat": "m_hat", "vhat": "v_hat", "count": "tc",
        "first": "m1", "second": "m2", "lr_t": "alpha", "rms": "root", "ema": "avg",
        "old": "prev", "new": "cur", "decay": "rho", "i": "j", "name": "nm", "path": "pth",
        "f": "vals", "t": "tt", "m_hat": "mh", "v_hat": "vh"}),
    # statements reordered
    "nia": Copy("iris", bodies={2: """\
        m = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
        v = state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g ** 2
        t = state["t"] = state.get("t", 0) + 1
        v_hat = v / (1 - beta2 ** t)
        m_hat = m / (1 - beta1 ** t)
        return theta - lr * m_hat / (np.sqrt(v_hat) + eps)"""},
                move=(("def rmsprop_update", "def momentum_update"),)),
    # the helper inlined
    "oli": Copy("emil", bodies={
        0: "state['v'] = beta * state.get('v', 0.0) + (1 - beta) * g\n"
           "return theta - lr * state['v']",
        1: "state['s'] = beta * state.get('s', 0.0) + (1 - beta) * (g * g)\n"
           "rms = np.sqrt(state['s'])\nreturn theta - lr * g / (rms + eps)"}),
    # a helper extracted
    "pau": Copy("jana", bodies={2: """\
        def moment(key, beta, value):
            state[key] = beta * state[key] + (1 - beta) * value
            return state[key]

        if not state:
            state['m'] = np.zeros_like(theta)
            state['v'] = np.zeros_like(theta)
            state['t'] = 0
        state['t'] += 1
        mhat = moment('m', beta1, g) / (1 - beta1 ** state['t'])
        vhat = moment('v', beta2, g * g) / (1 - beta2 ** state['t'])
        return theta - lr * mhat / (np.sqrt(vhat) + eps)"""}),
    # the loop turned into a comprehension
    "rae": Copy("cas", bodies={3: """\
        curves = {name: rosenbrock(path) for name, path in paths.items()}
        [ax.plot(np.arange(f.size), f, color=f'C{i}', label=name)
         for i, (name, f) in enumerate(sorted(curves.items()))]
        ax.set_yscale('log')
        ax.set_xlabel('step number')
        ax.set_ylabel('f')
        ax.legend(title='optimizer')"""}),
    # dead code added
    "sid": Copy("gia", dead={
        0: "if lr < 0:\n    print('negative learning rate', lr)",
        2: "history = []\nhistory.append(float(np.sum(m)))",
        3: "ax.grid(False)\n_unused = len(paths)"}),
    # everything at once
    "tia": Copy("lou", reorder=False, move=(("def adam_update", "def momentum_update"),),
                renames={"count": "n_steps", "first": "avg_g", "second": "avg_g2",
                         "lr_t": "step_size", "ema": "smooth", "old": "a", "new": "b",
                         "decay": "keep", "rms": "root_s", "name": "opt", "path": "trail",
                         "f": "loss"},
                dead={2: "# bias-corrected step\n_debug = False"}),
    # a chain of three: vic copies hugo, wes copies vic
    "vic": Copy("hugo", renames={"velocity": "vel", "sq": "sqr", "m": "mm", "v": "vv",
                                 "previous": "prev", "current": "now", "t": "k", "name": "key",
                                 "label": "key", "losses": "ys", "names": "keys"}),
    "wes": Copy("vic", move=(("def rmsprop_update", "def momentum_update"),),
                dead={3: "plt.tight_layout()"}),
})

# -- 04_activation_functions, honest students only: one style each, for the other notebook ------
# (the blocks: the layers, forward, bce_loss, gradient_sums, the plot, the training loop)
ACTIVATIONS = Planted(
    "04_activation_functions",
    styles=(
        None,
        [
            "self.linear = [self.Linear_Layer(2, 20, 'layer1')]\n"
            "for i in range(2, 10):\n    self.linear.append(self.Linear_Layer(20, 20, "
            "f'layer{i}'))\n"
            "self.linear.append(self.Linear_Layer(20, 1, 'layer10'))",
            "out = Node(x) if not isinstance(x, Node) else x\n"
            "for i in range(9):\n    out = self.linear[i](out)\n"
            "    if self.activation == 'relu':\n        out = out.relu()\n"
            "    elif self.activation == 'tanh':\n        out = out.tanh()\n"
            "    else:\n        out = out.sigmoid()\nreturn self.linear[-1](out).sigmoid()",
            "clipped = dp.maximum(p, EPS)\nclipped = dp.minimum(clipped, 1 - EPS)\n"
            "ones = 1 - y\nterms = y * clipped.log() + ones * (1 - clipped).log()\n"
            "return -terms.mean()",
            "gradients = net.get_grad(x, y)[0]\nsums = np.zeros(10)\n"
            "for l in range(10):\n    sums[l] = np.sum(np.abs(gradients['layer' + str(l + 1) + "
            "'_W']))\n"
            "return sums",
            "layers = range(1, 11)\nfor act in ACTIVATIONS:\n"
            "    ax.semilogy(layers, gradient_sums(nets[act], x_plot, y_plot), 'o-', label=act)\n"
            "ax.set_xlabel('layer')\nax.set_ylabel('sum of |dL/dW|')\nax.legend()",
            "for act in ACTIVATIONS:\n    dp.seed(1)\n    model = DeepNetwork(act)\n"
            "    sgd = dp.SGD(model, x_train, y_train, lr=0.05, batch_size=64, seed=0)\n"
            "    result = sgd.train(steps=500, print_each=0, err_hist=True)\n"
            "    histories[act] = result[1]\n"
            "    with dp.no_grad():\n        predicted = model.forward(x_test).value > 0.5\n"
            "    print(act, np.mean(histories[act][-50:]), np.mean(predicted == y_test))",
        ],
        [
            "widths = (2, 20, 20, 20, 20, 20, 20, 20, 20, 20, 1)\n"
            "self.linear = [self.Linear_Layer(n_in, n_out, 'layer%d' % (k + 1))\n"
            "               for k, (n_in, n_out) in enumerate(zip(widths, widths[1:]))]",
            "act = {'sigmoid': Node.sigmoid, 'tanh': Node.tanh, 'relu': "
            "Node.relu}[self.activation]\n"
            "z = x if isinstance(x, Node) else Node(x)\n"
            "*hidden, last = self.linear\nfor layer in hidden:\n    z = act(layer(z))\n"
            "return last(z).sigmoid()",
            "q = dp.minimum(dp.maximum(p, EPS), 1 - EPS)\n"
            "n = y.shape[0]\nreturn -(y * q.log() + (1 - y) * (1 - q).log()).sum() / n",
            "g = net.get_grad(x, y)[0]\nkeys = ['layer%d_W' % k for k in range(1, 11)]\n"
            "return np.array(list(map(lambda key: np.sum(np.abs(g[key])), keys)))",
            "for label, model in sorted(nets.items()):\n"
            "    values = gradient_sums(model, x_plot, y_plot)\n"
            "    ax.plot(range(1, len(values) + 1), values, marker='s', label=label)\n"
            "ax.set(yscale='log', xlabel='layer number', ylabel='gradient size', title='per "
            "layer')\n"
            "ax.legend()",
            "def train_one(kind):\n    dp.seed(1)\n    net_ = DeepNetwork(kind)\n"
            "    opt = dp.SGD(net_, x_train, y_train, lr=0.05, batch_size=64, seed=0)\n"
            "    _, hist, _ = opt.train(steps=500, print_each=0, err_hist=True)\n"
            "    return net_, hist\n\nfor kind in ACTIVATIONS:\n"
            "    net_, histories[kind] = train_one(kind)\n"
            "    with dp.no_grad():\n        acc = ((net_.forward(x_test).value > 0.5) == "
            "y_test).mean()\n"
            "    print(f'{kind}: loss {np.mean(histories[kind][-50:]):.3f} accuracy {acc:.3f}')",
        ],
        [
            "self.linear = []\nn_in = 2\nfor l in range(1, 11):\n"
            "    n_out = 1 if l == 10 else 20\n"
            "    self.linear.append(self.Linear_Layer(n_in, n_out, 'layer' + str(l)))\n    n_in = "
            "n_out",
            "if not isinstance(x, Node):\n    x = Node(x)\nhidden = x\n"
            "for layer in self.linear[:-1]:\n    hidden = layer(hidden)\n"
            "    hidden = getattr(hidden, self.activation)()\n"
            "output = self.linear[-1](hidden)\nreturn output.sigmoid()",
            "safe = dp.maximum(dp.minimum(p, 1 - EPS), EPS)\n"
            "log_likelihood = y * safe.log() + (1 - y) * (1 - safe).log()\n"
            "return -1 * log_likelihood.mean()",
            "all_grads, _loss = net.get_grad(x, y)\nresult = []\n"
            "for layer_number in range(1, 11):\n"
            "    result.append(np.abs(all_grads['layer{}_W'.format(layer_number)]).sum())\n"
            "return np.array(result)",
            "xs = np.arange(1, 11)\nfor key in nets:\n"
            "    ax.plot(xs, gradient_sums(nets[key], x_plot, y_plot), label=key)\n"
            "ax.set_yscale('log')\nax.set_xlabel('l')\nax.set_ylabel('S_l')\nax.legend()",
            "results = {}\nfor activation_name in ACTIVATIONS:\n    dp.seed(1)\n"
            "    network = DeepNetwork(activation_name)\n"
            "    trainer = dp.SGD(network, x_train, y_train, lr=0.05, batch_size=64, seed=0)\n"
            "    out = trainer.train(steps=500, print_each=0, err_hist=True)\n"
            "    histories[activation_name] = out[1]\n    with dp.no_grad():\n"
            "        results[activation_name] = np.mean((network.forward(x_test).value > 0.5) == "
            "y_test)\n"
            "print(results)",
        ],
        [
            "self.linear = [self.Linear_Layer(20 if i > 1 else 2, 1 if i == 10 else 20, "
            "f'layer{i}')\n"
            "               for i in range(1, 11)]",
            "signal = x if isinstance(x, Node) else Node(x)\nlayers = iter(self.linear)\n"
            "for _ in range(9):\n    layer = next(layers)\n"
            "    signal = getattr(layer(signal), self.activation)()\n"
            "return next(layers)(signal).sigmoid()",
            "p = dp.maximum(p, EPS)\np = dp.minimum(p, 1 - EPS)\npositive = y * p.log()\n"
            "negative = (1 - y) * (1 - p).log()\nreturn -(positive + negative).mean()",
            "grad_dict = net.get_grad(x, y)[0]\n"
            "return np.array([np.sum(np.abs(grad_dict['layer' + str(i) + '_W'])) for i in "
            "range(1, 11)])",
            "for i, (label, model) in enumerate(nets.items()):\n"
            "    ax.plot(np.arange(1, 11), gradient_sums(model, x_plot, y_plot), f'C{i}^--', "
            "label=label)\n"
            "ax.set_yscale('log')\nax.set_xlabel('layer index')\nax.set_ylabel('total "
            "|gradient|')\n"
            "ax.legend(loc='best')",
            "for activation in ACTIVATIONS:\n    dp.seed(1)\n    m = DeepNetwork(activation)\n"
            "    histories[activation] = dp.SGD(m, x_train, y_train, lr=0.05, batch_size=64,\n"
            "                                   seed=0).train(steps=500, print_each=0, "
            "err_hist=True)[1]\n"
            "    with dp.no_grad():\n        correct = (m.forward(x_test).value > 0.5) == y_test\n"
            "    print(activation, round(float(np.mean(histories[activation][-50:])), 3), "
            "correct.mean())",
        ],
    ),
    parts=(range(0, 6),),
    names=("amy", "ben", "cy", "dot", "eve"),
    copies={},
)

CLASSES = {planted.assignment_id: planted for planted in (SCALAR, OPTIMIZERS)}
HONEST_ONLY = {ACTIVATIONS.assignment_id: ACTIVATIONS}


@dataclass
class Standing:
    """Where the planted pairs stand in a ranking: their ranks (1 = first), the lowest planted
    score, the best honest pair's score, and the margin between the two (> 0: every copy first)."""
    ranks: list
    lowest_copy: float
    best_honest: float

    @property
    def margin(self) -> float:
        return self.lowest_copy - self.best_honest

    def __str__(self):
        return (f"planted ranks {self.ranks}, lowest copy {self.lowest_copy:.2f}, best honest "
                f"{self.best_honest:.2f}, margin {self.margin:+.2f}")


def standing(planted: Planted, ranking) -> Standing:
    """`ranking`: [(student, student, score)], the most similar first."""
    pairs = planted.planted_pairs()
    ranks = [i for i, (a, b, _) in enumerate(ranking, start=1) if frozenset((a, b)) in pairs]
    copies = [s for a, b, s in ranking if frozenset((a, b)) in pairs]
    honest = [s for a, b, s in ranking if frozenset((a, b)) not in pairs]
    assert len(copies) == len(pairs), "a planted pair is missing from the ranking"
    return Standing(ranks, min(copies), max(honest))
