"""Atomic file writes for the scripts: the text goes to a temporary file in the target's folder,
then is renamed over the target, so a reader never sees half a file and a failed write leaves
nothing behind (the project's rule for every output it writes)."""

from __future__ import annotations

import json
import os
import tempfile


def write_text_atomically(path: str, text: str) -> None:
    """Writes `text` to `path` through a temporary file in the same folder and os.replace."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".rooflinectl-")
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_json_atomically(path: str, document: dict, indent: int = 1) -> None:
    """`document` as JSON (allow_nan=False: a NaN or Inf is an error, not an invalid file)."""
    write_text_atomically(path, json.dumps(document, indent=indent, allow_nan=False) + "\n")
