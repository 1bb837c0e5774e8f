#!/usr/bin/env python3
"""Fails when a target in Package.swift lists a dependency that none of its Swift files import.

`swift build --explicit-target-dependency-import-check error` (in `make test`) proves every import is a declared
dependency; this proves the converse, so Package.swift says only what is true. It reads the manifest through
`swift package dump-package` (offline, a second or two) and each target's Swift files, and prints one line per
unused dependency: `Package.swift: target T lists D, which none of its Swift files import`.

A dependency counts as imported when any Swift file of the target imports its module in any form (`import`,
`@testable import`, `@_exported import`, `public import`, `import struct M.T`, under `#if` or not). A system
library's module is the name its module.modulemap declares (CLibXML2's is CLibXML); a product counts when one
of its targets' modules is imported. Usage: scripts/check-dependencies.py [package directory]
"""

import json
import os
import re
import subprocess
import sys

IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*"  # @testable, @_exported, @_implementationOnly, @preconcurrency …
    r"(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?"
    r"(\w+)",
    re.MULTILINE,
)
MODULE_MAP_NAME = re.compile(r"^\s*(?:explicit\s+)?module\s+(\w+)", re.MULTILINE)


def default_path(target):
    """SwiftPM's folder for a target without `path:`."""
    if target["type"] == "test":
        return os.path.join("Tests", target["name"])
    return os.path.join("Sources", target["name"])


def module_name(root, target):
    """The module `import` names for a target: a system library's from its module map, else the target's name."""
    if target["type"] == "system":
        path = os.path.join(root, target.get("path") or default_path(target), "module.modulemap")
        with open(path, encoding="utf-8") as handle:
            match = MODULE_MAP_NAME.search(handle.read())
        if match is None:
            sys.exit(f"{path}: no `module` declaration")
        return match.group(1)
    return target["name"]


def imports(root, target):
    """Every module any Swift file of the target imports."""
    found = set()
    folder = os.path.join(root, target.get("path") or default_path(target))
    for directory, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(directory, name), encoding="utf-8") as handle:
                    found.update(IMPORT.findall(handle.read()))
    return found


def dependency_name(dependency):
    """(name, kind) of a dump-package dependency: kind is "target", "product" or "byName"."""
    for kind in ("byName", "target", "product"):
        if kind in dependency:
            return dependency[kind][0], kind
    sys.exit(f"unknown dependency form in dump-package output: {dependency}")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    try:
        dump = subprocess.run(
            ["swift", "package", "--package-path", root, "dump-package"],
            check=True, capture_output=True, text=True,
        ).stdout
    except subprocess.CalledProcessError as error:
        sys.stderr.write(error.stderr)
        sys.exit(f"swift package dump-package failed ({error.returncode})")
    manifest = json.loads(dump)
    targets = {target["name"]: target for target in manifest["targets"]}
    products = {product["name"]: product for product in manifest["products"]}

    def modules(name, kind):
        """The modules whose import uses a dependency; None for another package's product (not checked)."""
        if kind != "product" and name in targets:
            return {module_name(root, targets[name])}
        if name in products:
            return {module_name(root, targets[target]) for target in products[name]["targets"]}
        return None

    unused = []
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        imported = imports(root, target)
        for dependency in target["dependencies"]:
            name, kind = dependency_name(dependency)
            wanted = modules(name, kind)
            if wanted is not None and not wanted & imported:
                unused.append((target["name"], name, sorted(wanted)))
    for target, name, wanted in unused:
        via = "" if wanted == [name] else f" (module {', '.join(wanted)})"
        print(f"Package.swift: target {target} lists {name}{via}, which none of its Swift files import")
    if unused:
        sys.exit(1)
    print(f"Package.swift: every dependency of {len(targets)} targets is imported")


if __name__ == "__main__":
    main()
