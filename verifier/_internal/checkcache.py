"""The user's cache of compiled checks, shared by every run of ``rule603 check`` on this machine.

Compiling the clause definitions for a universe takes far longer than checking a trace with the
result, so a compiled check is kept on disk, keyed by what it was compiled from:

- the code and the edition data: one hash of every source file of rule603 and of the edition texts,
  alignments and encoding decisions (so a changed clause, model rule or compiler is a new key);
- the Python that compiled it (the bytecode's magic number and version);
- the edition's name, the clauses checked, the universe's sizes and the moment or moments served.

Where: ``$RULE603_CACHE_DIR`` when set (empty or ``off`` turns the cache off); else the platform's user
cache folder: ``$XDG_CACHE_HOME/rule603`` or ``~/.cache/rule603`` on Linux, ``~/Library/Caches/rule603``
on macOS, ``%LOCALAPPDATA%\\rule603\\Cache`` on Windows.  ``rule603 cache --clear`` empties it.  Entries
of other code versions not used for ``STALE_DAYS`` are removed when a new version first writes.

An entry that cannot be read (a partial write, another Python) is a miss: the check is compiled again
and the entry rewritten.  Writes are atomic, so concurrent runs at worst compile the same check twice.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidArgument
from .documents import shown

CACHE_ENV = "RULE603_CACHE_DIR"
#: ``RULE603_VERDICTS=off``: verdicts and rulings are neither read nor kept (the compiled checks still are); the
#: test suite sets it, so that no test is answered by another test's run.
VERDICTS_ENV = "RULE603_VERDICTS"
FOLDER = "compiled-checks"
KINDS = (FOLDER, "verdicts", "rulings")  # what the cache holds, a folder each (rule603 verify's, rule603 rule's)
STALE_DAYS = 30
ENTRY = ".entry"
_SOURCES = ("rule603", "rule603.models", "rule603.properties", "rule603.engines")
_DATA_SUFFIXES = (".py", ".txt", ".json", ".toml")


def cache_root() -> Path | None:
    """Where the cache lives, or None when ``$RULE603_CACHE_DIR`` turns it off."""
    value = os.environ.get(CACHE_ENV)
    if value is not None:
        return None if value.strip() in ("", "off") else Path(value)
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
        return base / "rule603" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "rule603"
    return Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "rule603"


def code_fingerprint() -> str:
    """One hash of rule603's sources as this process loaded them, the edition data it reads and the Python
    that runs it.  The sources are hashed once per process: a file edited after the process started is not
    the code it runs, and must not name what it compiles (a long-lived worker would otherwise file checks of
    its old code under the new code's key).  Edition data is read when an edition is loaded: hashed each time."""
    from .editions import editions_folder  # followed at call time: a test may point it elsewhere

    h = hashlib.sha256(_loaded_sources().encode())
    h.update(_folder_hash(editions_folder()).encode())
    return h.hexdigest()[:20]


@functools.cache
def _loaded_sources() -> str:
    h = hashlib.sha256(importlib.util.MAGIC_NUMBER + sys.version.encode())
    for package in _SOURCES:
        h.update(_folder_hash(package_folder(package)).encode())
    return h.hexdigest()


def package_folder(name: str) -> Path:
    module = importlib.import_module(name)
    return Path(module.__file__).parent


@functools.lru_cache(maxsize=8)
def _folder_hash_at(folder: Path, stamp: tuple) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.suffix in _DATA_SUFFIXES and "__pycache__" not in path.parts and path.is_file():
            h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _folder_hash(folder: Path) -> str:
    # Hashed once per process unless a file's size or time changed (tests write editions into folders).
    stamp = tuple(
        (str(p), p.stat().st_mtime_ns, p.stat().st_size)
        for p in sorted(folder.rglob("*"))
        if p.suffix in _DATA_SUFFIXES and "__pycache__" not in p.parts
    )
    return _folder_hash_at(folder, stamp)


@dataclass(frozen=True)
class CheckStore:
    """One code version's folder of compiled checks."""

    folder: Path

    @classmethod
    def default(cls, kind: str = FOLDER) -> CheckStore | None:
        """The store of ``kind`` (one of ``KINDS``) for this code, or None when the cache is off."""
        root = cache_root()
        return None if root is None else cls(root / kind / code_fingerprint())

    @classmethod
    def of_answers(cls, kind: str) -> CheckStore | None:
        """The store of kept answers (verdicts, rulings) of ``kind``, or None when ``RULE603_VERDICTS`` or the cache
        is off."""
        if os.environ.get(VERDICTS_ENV, "").strip() == "off":
            return None
        return cls.default(kind)

    def load(self, key: str) -> bytes | None:
        try:
            return zlib.decompress((self.folder / _name(key)).read_bytes())
        except (OSError, zlib.error):
            return None

    def save(self, key: str, data: bytes) -> None:
        """Write an entry atomically; a cache that cannot be written is only slower, never an error."""
        try:
            if not self.folder.is_dir():
                self.folder.mkdir(parents=True, exist_ok=True)
                _remove_stale_versions(self.folder)
            fd, temporary = tempfile.mkstemp(dir=self.folder, suffix=".part")
            with os.fdopen(fd, "wb") as handle:
                handle.write(zlib.compress(data, 1))  # a fifth of the size, read back in a millisecond
            os.replace(temporary, self.folder / _name(key))
        except OSError:
            return


def _name(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32] + ENTRY


def _remove_stale_versions(current: Path) -> None:
    cutoff = time.time() - STALE_DAYS * 86400
    for other in current.parent.iterdir():
        if other != current and other.is_dir() and other.stat().st_mtime < cutoff:
            shutil.rmtree(other, ignore_errors=True)


@dataclass(frozen=True)
class CacheContents:
    root: Path | None
    versions: int  # code versions with entries
    entries: dict[str, int]  # by kind
    bytes: int


def contents() -> CacheContents:
    """What the cache holds now; a folder that cannot be one is a usage error naming where it was set."""
    root = cache_root()
    if root is None:
        return CacheContents(None, 0, {}, 0)
    try:
        return _contents(root)
    except OSError as e:
        where = f"${CACHE_ENV}" if os.environ.get(CACHE_ENV) is not None else "the cache folder"
        raise InvalidArgument(f"{where} {shown(str(root))}: cannot be read ({e.strerror or e})") from None


def _contents(root: Path) -> CacheContents:
    if root.exists() and not root.is_dir():
        raise NotADirectoryError(20, "not a folder")
    versions: set[str] = set()
    entries: dict[str, int] = {}
    size = 0
    for kind in KINDS:
        folders = [p for p in (root / kind).iterdir() if p.is_dir()] if (root / kind).is_dir() else []
        files = [f for v in folders for f in v.iterdir() if f.suffix == ENTRY]
        versions.update(v.name for v in folders)
        entries[kind] = len(files)
        size += sum(f.stat().st_size for f in files)
    return CacheContents(root, len(versions), entries, size)


def clear() -> CacheContents:
    """Remove everything cached; what was there."""
    was = contents()
    if was.root is not None:
        for kind in KINDS:
            shutil.rmtree(was.root / kind, ignore_errors=True)
    return was
