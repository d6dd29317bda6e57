"""The client's build backend (PEP 517), standard library only.

pip builds a project from source by calling a backend; setuptools' asks for the `wheel` package,
which a fresh virtual environment lacks (`invalid command 'bdist_wheel'`), and writes `build/` and
`*.egg-info` into the source folder. This backend needs nothing beyond Python itself and writes only
into the folders pip hands it, so that

    pip install --no-index ./clients/python

works offline in any virtual environment and leaves the checkout as it was. It reads the project's
name, version and summary from pyproject.toml's [project] table and packs `boundary_lab/`.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Dict, List, Mapping, Optional, Tuple

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "boundary_lab"
WHEEL_TAG = "py3-none-any"
# Files in an sdist besides the package: enough to build the wheel again from it.
SDIST_EXTRAS = ("pyproject.toml", "README.md", "build_backend/boundary_lab_build.py")
# Zip and tar entries get this time, so that a build of the same source gives the same bytes.
FIXED_TIME = (2020, 1, 1, 0, 0, 0)


def _project() -> Dict[str, str]:
    """[project]'s string fields (name, version, description, requires-python) and the license text."""
    with open(os.path.join(PROJECT_ROOT, "pyproject.toml"), encoding="utf-8") as file:
        text = file.read()
    try:
        import tomllib  # Python 3.11 and later

        table = tomllib.loads(text)["project"]
        fields = {k: v for k, v in table.items() if isinstance(v, str)}
        license_table = table.get("license")
        if isinstance(license_table, dict) and isinstance(license_table.get("text"), str):
            fields["license"] = license_table["text"]
        return fields
    except ImportError:
        # Before 3.11: the [project] table's `key = "value"` lines, which is all this file uses.
        section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        if section is None:
            raise RuntimeError("pyproject.toml has no [project] table")
        fields = dict(re.findall(r'^([A-Za-z-]+)\s*=\s*"([^"]*)"\s*$', section.group(1), re.M))
        license_text = re.search(r'^license\s*=\s*\{\s*text\s*=\s*"([^"]*)"\s*\}\s*$', section.group(1), re.M)
        if license_text:
            fields["license"] = license_text.group(1)
        return fields


def _names() -> Tuple[str, str, str]:
    """The distribution's name, its version, and the name as file names write it (boundary_lab)."""
    project = _project()
    name, version = project["name"], project["version"]
    return name, version, re.sub(r"[-_.]+", "_", name).lower()


def _metadata() -> bytes:
    """Core metadata (METADATA in a wheel, PKG-INFO in an sdist), with the README as its description."""
    project = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "license" in project:
        lines.append(f"License: {project['license']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    readme = os.path.join(PROJECT_ROOT, project.get("readme", "README.md"))
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as file:
            body = file.read()
    return ("\n".join(lines) + "\n\n" + body).encode("utf-8")


def _package_files() -> List[str]:
    """The package's files, relative to the project root, in a stable order (no bytecode)."""
    found: List[str] = []
    for folder, subfolders, files in os.walk(os.path.join(PROJECT_ROOT, PACKAGE)):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for file in sorted(files):
            if not file.endswith((".pyc", ".pyo")):
                found.append(os.path.relpath(os.path.join(folder, file), PROJECT_ROOT).replace(os.sep, "/"))
    return found


def _dist_info_files() -> Dict[str, bytes]:
    name, version, file_name = _names()
    dist_info = f"{file_name}-{version}.dist-info"
    wheel = f"Wheel-Version: 1.0\nGenerator: boundary_lab_build\nRoot-Is-Purelib: true\nTag: {WHEEL_TAG}\n"
    return {f"{dist_info}/METADATA": _metadata(), f"{dist_info}/WHEEL": wheel.encode("ascii")}


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory: str, entries: Mapping[str, bytes]) -> str:
    _, version, file_name = _names()
    basename = f"{file_name}-{version}-{WHEEL_TAG}.whl"
    record = f"{file_name}-{version}.dist-info/RECORD"
    lines = [_record_line(path, data) for path, data in entries.items()] + [f"{record},,"]
    contents = {**entries, record: ("\n".join(lines) + "\n").encode("utf-8")}
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, basename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in contents.items():
            info = zipfile.ZipInfo(path, FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return basename


# -- PEP 517 hooks -------------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[Mapping[str, object]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Mapping[str, object]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Mapping[str, object]] = None) -> str:
    """Writes the .dist-info folder (METADATA, WHEEL) into `metadata_directory` and answers its name."""
    files = _dist_info_files()
    for path, data in files.items():
        target = os.path.join(metadata_directory, *path.split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as file:
            file.write(data)
    return next(iter(files)).split("/")[0]


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, object]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """A pure-Python wheel of `boundary_lab/`, written into `wheel_directory` only; answers its file name."""
    entries: Dict[str, bytes] = {}
    for path in _package_files():
        with open(os.path.join(PROJECT_ROOT, *path.split("/")), "rb") as file:
            entries[path] = file.read()
    entries.update(_dist_info_files())
    return _write_wheel(wheel_directory, entries)


def build_sdist(sdist_directory: str, config_settings: Optional[Mapping[str, object]] = None) -> str:
    """A source archive (the package, pyproject.toml, README.md, this backend, PKG-INFO); answers its file name."""
    _, version, file_name = _names()
    root = f"{file_name}-{version}"
    basename = f"{root}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    mtime = 1_577_836_800  # FIXED_TIME, 2020-01-01T00:00:00Z

    def add(archive: tarfile.TarFile, path: str, data: bytes) -> None:
        info = tarfile.TarInfo(f"{root}/{path}")
        info.size, info.mtime, info.mode = len(data), mtime, 0o644
        archive.addfile(info, io.BytesIO(data))

    with tarfile.open(os.path.join(sdist_directory, basename), "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for path in list(SDIST_EXTRAS) + _package_files():
            with open(os.path.join(PROJECT_ROOT, *path.split("/")), "rb") as file:
                add(archive, path, file.read())
        add(archive, "PKG-INFO", _metadata())
    return basename
