"""gochunk in process: chunking with exact offsets, from Python.

The library is gochunk's Go code compiled as a C shared library
(libgochunk) and called through ctypes, which releases the GIL for the
length of each call: threads chunk in parallel.

    import gochunk

    chunker = gochunk.Chunker("semantic", size=512, tokenizer="cl100k_base")
    for c in chunker(text):
        assert c.text == text[c.start_index:c.end_index]

A Chunker is built once (its tokenizer and embedder loaded) and is safe to
call from many threads. Its records are the ones ``gochunk chunk`` writes,
byte for byte; its errors are gochunk.Error (a ValueError) with the
messages the command line prints.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import threading
from typing import Any, Iterable, Optional, Sequence, Union

__all__ = ["Chunker", "Chunk", "Document", "Error", "extract", "version"]


class Error(ValueError):
    """A gochunk error: a bad configuration, or an input that cannot be
    read or chunked. Its message is the one ``gochunk chunk`` (or
    ``gochunk extract``) prints after its ``gochunk chunk:`` prefix: a
    file's names the file, a text's is the message after the input's name.
    ``index`` is the position of the failing text when a list was chunked
    (else None)."""

    def __init__(self, message: str, index: Optional[int] = None):
        super().__init__(message)
        self.index = index


def _libname() -> str:
    if sys.platform == "darwin":
        return "libgochunk.dylib"
    if sys.platform == "win32":
        return "libgochunk.dll"
    return "libgochunk.so"


_lib = None
_lib_lock = threading.Lock()

_c_size_p = ctypes.POINTER(ctypes.c_size_t)
_c_str_p = ctypes.POINTER(ctypes.c_char_p)


def _load():
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = os.environ.get("GOCHUNK_LIBRARY") or os.path.join(
            os.path.dirname(os.path.abspath(__file__)), _libname())
        # CDLL (not PyDLL): ctypes releases the GIL during each call.
        lib = ctypes.CDLL(path)
        u = ctypes.c_size_t  # uintptr_t
        lib.gochunk_chunker_new.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.gochunk_chunker_new.restype = u
        lib.gochunk_chunker_free.argtypes = [u]
        lib.gochunk_chunker_free.restype = None
        lib.gochunk_chunker_info.argtypes = [u, _c_size_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.gochunk_chunker_info.restype = ctypes.c_void_p
        lib.gochunk_chunk.argtypes = [u, ctypes.c_char_p, ctypes.c_size_t, _c_size_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.gochunk_chunk.restype = ctypes.c_void_p
        lib.gochunk_chunk_many.argtypes = [u, _c_str_p, _c_size_p, _c_str_p, ctypes.c_size_t, ctypes.c_int,
                                           _c_size_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64)]
        lib.gochunk_chunk_many.restype = ctypes.c_void_p
        lib.gochunk_chunk_file.argtypes = [u, ctypes.c_char_p, _c_size_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.gochunk_chunk_file.restype = ctypes.c_void_p
        lib.gochunk_extract.argtypes = [ctypes.c_char_p, ctypes.c_char_p, _c_size_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.gochunk_extract.restype = ctypes.c_void_p
        lib.gochunk_free.argtypes = [ctypes.c_void_p]
        lib.gochunk_free.restype = None
        lib.gochunk_version.argtypes = []
        lib.gochunk_version.restype = ctypes.c_void_p
        _lib = lib
        return lib


def _take(lib, ptr, n: Optional[int] = None) -> bytes:
    """Copies the library's string at ptr and frees it."""
    try:
        return ctypes.string_at(ptr, n) if n is not None else ctypes.string_at(ptr)
    finally:
        lib.gochunk_free(ptr)


def _call(lib, fn, *args, tail: tuple = ()) -> Any:
    """Calls a function returning JSON (its length and error out
    parameters after args, then tail) and decodes its result, raising
    Error with its message."""
    n = ctypes.c_size_t(0)
    err = ctypes.c_void_p(None)
    ptr = fn(*args, ctypes.byref(n), ctypes.byref(err), *tail)
    if not ptr:
        raise Error(_take(lib, err.value).decode("utf-8", "replace") if err.value else "gochunk: no result")
    return json.loads(_take(lib, ptr, n.value))


def _encode(text: str) -> bytes:
    if not isinstance(text, str):
        raise TypeError(f"gochunk chunks str, not {type(text).__name__}")
    # Lone surrogates pass as the invalid UTF-8 they are, so that the
    # configured policy (invalid_utf8: reject or repair) decides, as on
    # the command line.
    return text.encode("utf-8", "surrogatepass")


class Chunk:
    """One chunk: a record of ``gochunk chunk``.

    text: the chunk's text, exactly the input's between its offsets.
    start, end: UTF-8 byte offsets into the input.
    start_index, end_index: code-point offsets (what Python slices by):
        text == input[start_index:end_index].
    token_count: its size in the chunker's unit (Chunker.unit).
    chunk_index: its position among the document's chunks.
    source: the document's name (the source given, else "").
    metadata: what the chunker or the input set (a dict, maybe empty).
    record: the whole record as ``gochunk chunk`` writes it (with spans,
        lines, pages, parent, embed_text, stats, embedding where set).

    A chunk of several spans (spans) has its spans' texts joined by a
    newline: for it, text is not input[start_index:end_index].
    """

    __slots__ = ("text", "start", "end", "start_index", "end_index", "token_count",
                 "chunk_index", "source", "metadata", "_rec")

    def __init__(self, record: dict, text: Optional[str] = None):
        # A record without "text" is of a text the caller gave (the library
        # leaves it out, see python/capi): its text is text's slice.
        self._rec = record
        self.start_index = record["start_rune"]
        self.end_index = record["end_rune"]
        t = record.get("text")
        self.text = t if t is not None else text[self.start_index:self.end_index]
        self.start = record["start"]
        self.end = record["end"]
        self.token_count = record["token_count"]
        self.chunk_index = record["chunk_index"]
        self.source = record["source"]
        self.metadata = record.get("metadata") or {}

    @property
    def record(self) -> dict:
        """The record as ``gochunk chunk`` writes it."""
        if "text" not in self._rec:
            self._rec = {"text": self.text, **self._rec}
        return self._rec

    @property
    def spans(self) -> list:
        """The chunk's spans when it has several (the cluster chunker's
        chunks): dicts of start, end, start_rune and end_rune; its text is
        their texts joined by a newline. Empty for a chunk of one span."""
        return self._rec.get("spans") or []

    def to_dict(self) -> dict:
        """The record as ``gochunk chunk`` writes it (a copy)."""
        return dict(self.record)

    def __len__(self) -> int:
        return len(self.text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        t = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return (f"Chunk({t!r}, start_index={self.start_index}, end_index={self.end_index}, "
                f"token_count={self.token_count})")

    def __eq__(self, other) -> bool:
        return isinstance(other, Chunk) and self.text == other.text and self.record == other.record

    __hash__ = None  # type: ignore[assignment]


def _docs(result: dict, texts: Optional[Sequence[str]] = None) -> list:
    """The chunk lists of a result; texts are the texts given, which the
    records of "sliced" documents are slices of."""
    import warnings
    out = []
    for i, d in enumerate(result["docs"]):
        if d.get("warning"):
            warnings.warn(f"gochunk: {d['warning']}", RuntimeWarning, stacklevel=3)
        if "error" in d:
            raise Error(d["error"], i)
        text = texts[i] if d.get("sliced") else None
        out.append([Chunk(r, text) for r in d["records"]])
    return out


class Chunker:
    """A chunker built once: ``Chunker(name, **params)``.

    name: a chunker of ``gochunk chunkers`` (recursive, semantic, token,
    sentence, markdown, code, ...). params: the keys of ``gochunk chunk
    --config``: the chunker's parameters (size, overlap, threshold, ...),
    the tokenizer and the pipeline's settings (embedder, context, parents,
    invalid_utf8, hf_cache, offline, ...), with the command line's
    defaults. A bad name or parameter raises Error with the command line's
    message.

    Call it on a str for its chunks, or on a list of str for a list of
    their chunks (chunked in parallel, in order).
    """

    def __init__(self, chunker: str = "recursive", **params: Any):
        lib = _load()
        self._lib = lib
        self._h = 0
        err = ctypes.c_void_p(None)
        h = lib.gochunk_chunker_new(chunker.encode("utf-8"), json.dumps(params).encode("utf-8"), ctypes.byref(err))
        if not h:
            raise Error(_take(lib, err.value).decode("utf-8", "replace") if err.value else "gochunk: no chunker")
        self._h = h
        info = _call(lib, lib.gochunk_chunker_info, h)
        self.name: str = info["chunker"]
        self.unit: str = info["unit"]
        self.params: dict = info.get("params") or {}

    def _handle(self) -> int:
        h = self._h
        if not h:
            raise Error("the chunker is closed")
        return h

    def __call__(self, text: Union[str, Sequence[str]], *, source: Optional[str] = None):
        if isinstance(text, str):
            return self.chunk(text, source=source)
        return self.chunk_batch(text)

    def chunk(self, text: str, *, source: Optional[str] = None) -> list:
        """The chunks of text. source names the document in its records
        (and, for the code chunker, its language by its extension), as
        ``gochunk chunk FILE`` names a file."""
        if source is None:
            b = _encode(text)
            res = _call(self._lib, self._lib.gochunk_chunk, self._handle(), b, len(b))
            return _docs(res, [text])[0]
        return self.chunk_batch([text], sources=[source], jobs=1)[0]

    def chunk_batch(self, texts: Iterable[str], *, sources: Optional[Sequence[str]] = None,
                    jobs: int = 0) -> list:
        """The chunks of each text, in order, chunked on up to jobs threads
        of Go (0: one per core). An error raises Error whose index is the
        failing text's position."""
        texts = list(texts)
        encoded = [_encode(t) for t in texts]
        n = len(encoded)
        if sources is not None and len(sources) != n:
            raise ValueError(f"sources: {len(sources)} names for {n} texts")
        texts_c = (ctypes.c_char_p * n)(*encoded)
        lens_c = (ctypes.c_size_t * n)(*[len(b) for b in encoded])
        ids_c = None
        if sources is not None:
            ids_c = (ctypes.c_char_p * n)(*[s.encode("utf-8") for s in sources])
        res = _call(self._lib, self._lib.gochunk_chunk_many, self._handle(), texts_c, lens_c, ids_c, n, jobs,
                    tail=(None,))
        return _docs(res, texts)

    def _chunk_timed(self, text: str):
        """Chunks text and returns (chunks, (entry, exit)): the Go call's
        entry and exit times in Unix nanoseconds (for tests of
        concurrency)."""
        b = _encode(text)
        span = (ctypes.c_int64 * 2)()
        arr = (ctypes.c_char_p * 1)(b)
        lens = (ctypes.c_size_t * 1)(len(b))
        res = _call(self._lib, self._lib.gochunk_chunk_many, self._handle(), arr, lens, None, 1, 1, tail=(span,))
        return _docs(res, [text])[0], (span[0], span[1])

    def chunk_file(self, path: Union[str, os.PathLike]) -> list:
        """The chunks of the file at path, read as ``gochunk chunk PATH``
        reads it (text, PDF, HTML, office documents, e-mail by extension
        and content; the input setting overrides). An e-mail's attachments
        are documents of their own: their chunks follow, their records'
        source naming them."""
        p = os.fsencode(path)
        res = _call(self._lib, self._lib.gochunk_chunk_file, self._handle(), p)
        return [c for doc in _docs(res) for c in doc]

    def close(self) -> None:
        """Releases the chunker (also done when it is collected)."""
        h, self._h = self._h, 0
        if h:
            self._lib.gochunk_chunker_free(h)

    def __enter__(self) -> "Chunker":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"Chunker({self.name!r}, unit={self.unit!r}, params={self.params!r})"


class Document:
    """What gochunk.extract read: text (the text chunk offsets refer to),
    elements (layout elements as ``gochunk extract --elements`` writes
    them: type, text, page, bbox, start, end, ...), metadata and warning."""

    __slots__ = ("text", "elements", "metadata", "warning")

    def __init__(self, d: dict):
        self.text: str = d["text"]
        self.elements: list = d.get("elements") or []
        self.metadata: dict = d.get("metadata") or {}
        self.warning: str = d.get("warning") or ""

    def __repr__(self) -> str:
        return f"Document({len(self.text)} characters, {len(self.elements)} elements)"


def extract(path: Union[str, os.PathLike], *, input: str = "auto", pdf_engine: str = "pdfium") -> Document:
    """The text and layout elements of the file at path, as ``gochunk
    extract`` reads it: a PDF's text blocks in reading order, an office
    document's, e-mail's or HTML page's structure as markdown, a text file
    as it is. A format gochunk does not read raises Error naming it."""
    lib = _load()
    opts = json.dumps({"input": input, "pdf_engine": pdf_engine}).encode("utf-8")
    return Document(_call(lib, lib.gochunk_extract, os.fsencode(path), opts))


def version() -> str:
    """The library's build: module, version, commit, Go version."""
    lib = _load()
    return _take(lib, lib.gochunk_version()).decode("utf-8")
