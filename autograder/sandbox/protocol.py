"""Plain data between the grader and a submission: JSON with typed arrays, never pickle.

A message is an 8-byte big-endian length followed by that many bytes of UTF-8 JSON. Values are
None, bools, numbers, strings, lists, string-keyed dicts, and NumPy arrays of numeric dtype,
encoded as {"__array__": dtype, "shape": [...], "data": base64}. `decode` rebuilds them and
rejects anything else, so a reply can be wrong but never code.
"""
from __future__ import annotations

import base64
import json
import math
import os
import select
import struct
import time

import numpy as np

ALLOWED_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                  "uint64", "float16", "float32", "float64"}
MAX_DEPTH = 32
# Items of a message: its '{', '[' and ',' outside strings, which bound the objects json.loads
# makes of it (a value is the first of its container or follows a comma). A message of many tiny
# items (64 MiB of "{}," is 22 million dicts, 4.8 GB in the grader) is refused before it is
# parsed. The largest honest reply of the 12 solutions on their hidden inputs has 1,057 items
# (03's train, 1 MB) and the largest request 11,030 (03's graph); the largest reply the schemas
# let a probe make in practice (03's former model_grad graph at its 10,000 nodes) had 220,014. Each
# item costs the grader about 150 bytes parsed and decoded: at most 75 MB a message.
MAX_ITEMS = 500_000
_ESCAPES = (b"\\\\", b'\\"')   # in a JSON string: an escaped backslash, an escaped quote
_STRUCTURAL = np.zeros(256, dtype=bool)
_STRUCTURAL[list(b"{[,")] = True
_CHUNK = 1 << 20


class ProtocolError(Exception):
    """A message that is not plain data, too large, malformed, or late."""


_PLAIN = frozenset({type(None), bool, str, int})    # exact types that encode to themselves
_DECODED = _PLAIN | {float}                         # and that decode to themselves


def encode(value, depth=0):
    """`value` as JSON-ready plain data (NumPy scalars and arrays included)."""
    if depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, np.generic):
        return encode(value.item(), depth + 1)
    if isinstance(value, np.ndarray):
        array = value if value.flags.c_contiguous else value.copy(order="C")   # keeps 0-d
        if array.dtype.name not in ALLOWED_DTYPES:
            raise ProtocolError(f"arrays of dtype {array.dtype} cannot be sent")
        return {"__array__": array.dtype.name, "shape": list(array.shape),
                "data": base64.b64encode(array.tobytes()).decode("ascii")}
    if isinstance(value, (list, tuple)):
        if depth < MAX_DEPTH:     # the items' own call would not raise: plain ones are kept as they are
            return [v if type(v) in _PLAIN or (type(v) is float and math.isfinite(v))
                    else encode(v, depth + 1) for v in value]
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ProtocolError("dictionary keys must be strings")
        return {k: encode(v, depth + 1) for k, v in value.items()}
    raise ProtocolError(f"a {type(value).__name__} is not plain data (numbers, strings, arrays)")


def decode(value, depth=0):
    """The inverse of `encode`, validating as it goes."""
    if depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        if depth < MAX_DEPTH:
            return [v if type(v) in _DECODED else decode(v, depth + 1) for v in value]
        return [decode(v, depth + 1) for v in value]
    if not isinstance(value, dict):
        raise ProtocolError(f"unexpected {type(value).__name__} in a message")
    if "__float__" in value:
        text = value["__float__"]
        if set(value) != {"__float__"} or text not in ("nan", "inf", "-inf"):
            raise ProtocolError("malformed special float")
        return float(text)
    if "__array__" in value:
        dtype, shape, data = value.get("__array__"), value.get("shape"), value.get("data")
        if (set(value) != {"__array__", "shape", "data"} or dtype not in ALLOWED_DTYPES
                or not isinstance(shape, list) or not isinstance(data, str)
                or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)):
            raise ProtocolError("malformed array")
        raw = base64.b64decode(data.encode("ascii"), validate=True)
        if len(raw) != math.prod(shape) * np.dtype(dtype).itemsize:
            raise ProtocolError("array data does not match its shape")
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    return {str(k): decode(v, depth + 1) for k, v in value.items()}


def dumps(value) -> bytes:
    body = json.dumps(encode(value), allow_nan=False, separators=(",", ":")).encode("utf-8")
    return struct.pack(">Q", len(body)) + body


def send(fd: int, value, timeout: float | None = None) -> None:
    send_bytes(fd, dumps(value), timeout)


def send_bytes(fd: int, message: bytes, timeout: float | None = None) -> None:
    """Write all of `message`; with a timeout, `fd` must be non-blocking and TimeoutError is
    raised when the reader does not take it in time (it never blocks past the deadline)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    data = memoryview(message)
    while data:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([], [fd], [], wait)[1]:
                raise TimeoutError("the other side does not read")
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            continue
        data = data[written:]


def _read_exactly(fd, count, deadline):
    chunks, remaining = [], count
    while remaining:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError("no reply in time")
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the channel")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def _structural(text: bytes) -> int:
    return text.count(b"{") + text.count(b"[") + text.count(b",")


def count_items(body: bytes, limit: int = MAX_ITEMS) -> int:
    """The items of the JSON text `body` (see MAX_ITEMS): exactly when there are more than
    `limit` bytes '{', '[' and ',' in it, else that count (an upper bound). In linear time, and
    at most two copies of `body` in memory."""
    count = _structural(body)
    if count <= limit or b'"' not in body:
        return count
    for escape in _ESCAPES:     # left to right, as JSON pairs them: the quotes left bound strings
        body = body.replace(escape, b"")
    data, count, inside = np.frombuffer(body, dtype=np.uint8), 0, 0
    for start in range(0, len(data), _CHUNK):
        chunk = data[start:start + _CHUNK]
        quotes = np.cumsum(chunk == ord('"'), dtype=np.uint8)    # modulo 256: its parity is kept
        outside = (quotes + inside) & 1 == 0
        count += int(np.count_nonzero(_STRUCTURAL[chunk] & outside))
        inside = (inside + int(quotes[-1])) & 1
    return count


def receive(fd: int, max_bytes: int, timeout: float | None = None, max_items: int = MAX_ITEMS):
    """One message from `fd`, decoded; ProtocolError if larger than `max_bytes`, of more than
    `max_items` items (count_items), or malformed."""
    deadline = None if timeout is None else time.monotonic() + timeout
    (length,) = struct.unpack(">Q", _read_exactly(fd, 8, deadline))
    if length > max_bytes:
        for start in range(0, length, 1 << 20):        # skip it, so the next message is in step
            _read_exactly(fd, min(1 << 20, length - start), deadline)
        raise ProtocolError(f"a reply of {length:,} bytes exceeds the limit of {max_bytes:,}")
    body = _read_exactly(fd, length, deadline)
    items = count_items(body, max_items)
    if items > max_items:
        message = (f"the reply has {items:,} items (lists, dicts and the values in them), "
                   f"more than the {max_items:,} allowed")
    else:
        try:
            return decode(json.loads(body.decode("utf-8")))
        except (ValueError, UnicodeDecodeError, RecursionError) as error:
            message = f"malformed reply: {error}"        # (a JSON error holds the whole text)
    # Not raised with `body` in this frame: whoever keeps the error (its traceback, or as the
    # context of another) would keep the message's bytes too, one copy for every probe.
    del body
    raise ProtocolError(message)
