#!/usr/bin/env python3
"""Checks that every dependency of Quanta's libraries points down the
layers of docs/Architecture.md: a library links, and its sources and
headers include, only libraries of a lower layer (never one of its own
layer or above).

    check-layering.py [SOURCE_DIR]

Prints each violation as `path:line: ...` and exits 1 if there is any.
"""

import pathlib
import re
import sys

# Lowest first; one line a layer. The same table is the picture in
# docs/Architecture.md.
LAYERS = [
    ["QuantaNumerics"],
    ["QuantaRuntime"],
    ["QuantaSupport"],
    ["QuantaDialect"],
    ["QuantaTransforms", "QuantaOnnxImport"],
    ["QuantaCodegenCommon", "QuantaCodegenCPU"],
    ["QuantaTarget"],
    ["QuantaCalibration"],
    ["QuantaPipelines"],
    ["QuantaAPI"],
    ["QuantaCAPI", "QuantaToolSupport"],
]
RANK = {library: rank for rank, layer in enumerate(LAYERS)
        for library in layer}

# Source folder (under lib/ and include/quanta/) -> its library.
FOLDERS = {
    "Numerics": "QuantaNumerics",
    "Runtime": "QuantaRuntime",
    "Support": "QuantaSupport",
    "Dialect/Quanta/IR": "QuantaDialect",
    "Dialect/Quanta/Transforms": "QuantaTransforms",
    "Import/Onnx": "QuantaOnnxImport",
    "Codegen/Common": "QuantaCodegenCommon",
    "Codegen/CPU": "QuantaCodegenCPU",
    "Target": "QuantaTarget",
    "Calibration": "QuantaCalibration",
    "Pipelines": "QuantaPipelines",
    "API": "QuantaAPI",
    "CAPI": "QuantaCAPI",
    "Tools": "QuantaToolSupport",
}


def library_of_path(relative):
    """The library whose folder holds `relative` (a path below lib/,
    include/quanta/ or, for the C API, include/quanta-c/)."""
    if relative == "quanta-c" or relative.startswith("quanta-c/"):
        return "QuantaCAPI"
    for folder in sorted(FOLDERS, key=len, reverse=True):
        if relative == folder or relative.startswith(folder + "/"):
            return FOLDERS[folder]
    return None


def check_links(root, errors):
    """target_link_libraries of every library under lib/."""
    for cmake in sorted((root / "lib").rglob("CMakeLists.txt")):
        text = cmake.read_text()
        for match in re.finditer(r"target_link_libraries\(\s*(\w+)([^)]*)\)",
                                 text):
            library, linked = match.group(1), match.group(2)
            if library not in RANK:
                if library.startswith("Quanta"):
                    line = text.count("\n", 0, match.start()) + 1
                    errors.append("%s:%d: %s is in no layer of "
                                  "check-layering.py" % (cmake, line, library))
                continue
            for dependency in re.findall(r"\bQuanta\w+", linked):
                if dependency in RANK and RANK[dependency] >= RANK[library]:
                    line = text.count("\n", 0, match.start()) + 1
                    errors.append("%s:%d: %s (layer %d) links %s (layer %d)"
                                  % (cmake, line, library, RANK[library],
                                     dependency, RANK[dependency]))


def check_includes(root, errors):
    """Quanta headers included by the sources and headers of a library."""
    trees = [(root / "lib", ""), (root / "include" / "quanta", ""),
             (root / "include" / "quanta-c", "quanta-c/")]
    for tree, prefix in trees:
        if not tree.is_dir():
            continue
        for path in sorted(tree.rglob("*")):
            if path.suffix not in (".cpp", ".h", ".c"):
                continue
            library = library_of_path(
                prefix + str(path.parent.relative_to(tree)))
            if library is None:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                match = re.match(r'\s*#\s*include\s+"(quanta(?:-c)?)/(.*)"',
                                 line)
                if not match:
                    continue
                included = match.group(2)
                if match.group(1) == "quanta-c":
                    included = "quanta-c/" + included
                dependency = library_of_path(str(pathlib.PurePath(included)
                                                 .parent))
                if (dependency and dependency != library
                        and RANK[dependency] >= RANK[library]):
                    errors.append(
                        "%s:%d: %s (layer %d) includes %s of %s (layer %d)"
                        % (path, number, library, RANK[library],
                           match.group(0).split('"')[1], dependency,
                           RANK[dependency]))


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    errors = []
    check_links(root, errors)
    check_includes(root, errors)
    for error in errors:
        print(error)
    if errors:
        print("check-layering: %d violations of the layers"
              % len(errors))
        return 1
    print("check-layering: every dependency points down (%d layers)"
          % len(LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
