#!/usr/bin/env python3
"""Every module a target imports must be one it declares in Package.swift.

SwiftPM lets a file import a module its target does not declare when that
module happens to be built already by another target, so an undeclared import
builds on one machine and fails on another (a clean CI clone builds in a
different order). This check reads `swift package dump-package` and each
target's sources, and fails on any import the target does not declare, and on
any target of the package a target declares but none of its files imports (a
dependency kept after its last use still links, and hides the real graph).
It also fails on a path between modules the design keeps apart (LAYERS), naming the path.
"""
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the platform, not of any package.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML",
    "Dispatch", "Glibc", "Musl", "Darwin", "Synchronization", "Observation",
    "Testing", "XCTest", "_Concurrency", "Swift", "RegexBuilder", "os",
}
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|package|private|fileprivate)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)

# No path in the package's graph from a module to any of these (ARCHITECTURE.md, "Layers"):
# the headless commands link no screen, the live session and the recording's lines know no
# dashboard, the event lines no simulated fleet, the proxies no AsyncHTTPClient.
LAYERS = {
    "HeadlessCommands": {"Dashboard", "DashboardRuntime", "Terminal", "CNcurses"},
    "LiveSession": {"Dashboard", "DashboardRuntime", "Terminal"},
    "RecordingFormat": {"Dashboard", "DashboardRuntime", "Terminal"},
    "EventLines": {"Fleet"},
    "TapForwarding": {"HTTPTransport"},
    "ProviderProxy": {"HTTPTransport"},
    "TokenMetrics": {"ProxyKit"},
}


def target_dependencies(target) -> list:
    """The names a target depends on that may be the package's own targets (products aside)."""
    return [dep[kind][0] for dep in target.get("dependencies", []) for kind in ("byName", "target") if kind in dep]


def layer_failures(package) -> list:
    edges = {target["name"]: target_dependencies(target) for target in package["targets"]}
    failures = []
    for start, banned in sorted(LAYERS.items()):
        # Breadth first, keeping how each module was reached, so the failure names the path.
        came_from, queue = {start: None}, [start]
        while queue:
            module = queue.pop(0)
            for dep in edges.get(module, []):
                if dep not in came_from:
                    came_from[dep] = module
                    queue.append(dep)
        for module in sorted(banned & set(came_from)):
            path, step = [], module
            while step is not None:
                path.append(step)
                step = came_from[step]
            failures.append(f"Package.swift: {start} reaches {module}: {' -> '.join(reversed(path))}")
    return failures


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    dump = subprocess.run(
        ["swift", "package", "--package-path", root, "dump-package"],
        check=True, capture_output=True, text=True,
    ).stdout
    package = json.loads(dump)
    failures = []
    for target in package["targets"]:
        name = target["name"]
        declared = {name}
        for dep in target.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in dep:
                    declared.add(dep[kind][0])
        path = target.get("path") or os.path.join(
            "Tests" if target["type"] == "test" else "Sources", name)
        base = os.path.join(root, path)
        # Excluded files and resources are not compiled into the target (a customer's class,
        # a host program built at run time), so what they import is not the target's.
        skipped = [os.path.join(base, p) for p in target.get("exclude", [])]
        skipped += [os.path.join(base, r["path"]) for r in target.get("resources", [])]
        imported = set()
        for directory, _, files in os.walk(base):
            for file in sorted(files):
                source = os.path.join(directory, file)
                if not file.endswith(".swift") or any(
                        source == s or source.startswith(s + os.sep) for s in skipped):
                    continue
                with open(source, encoding="utf-8") as handle:
                    in_string = False
                    for number, line in enumerate(handle, 1):
                        # An import inside a multi-line string literal is a test's or a
                        # benchmark's Swift source, not this target's.
                        if line.count('"""') % 2 == 1:
                            in_string = not in_string
                            continue
                        if in_string:
                            continue
                        match = IMPORT.match(line)
                        if not match:
                            continue
                        module = match.group(1)
                        imported.add(module)
                        if module == name:
                            failures.append(
                                f"{os.path.relpath(source, root)}:{number}: {name} imports itself")
                            continue
                        if module in SYSTEM or module in declared:
                            continue
                        failures.append(
                            f"{os.path.relpath(source, root)}:{number}: "
                            f"{name} imports {module} but does not declare it in Package.swift")
        # Only the package's own library targets: a product may be linked for what it registers,
        # and an executable is declared so that it is built for the tests that run it.
        own = {t["name"] for t in package["targets"] if t["type"] not in ("executable", "test")}
        for dep in target_dependencies(target):
            if dep in own and dep not in imported:
                failures.append(f"{path}: {name} declares {dep} in Package.swift but no file imports it")
    failures += layer_failures(package)
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
