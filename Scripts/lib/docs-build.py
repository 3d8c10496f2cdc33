#!/usr/bin/env python3
"""Builds the combined DocC archive of the given targets from an existing debug build.

What swift-docc-plugin's `generate-documentation --enable-experimental-combined-documentation`
does, without its one SwiftPM build per target (about 15 s of build planning each on a 2-core
machine, 26 times: most of the old docs step): the modules are already built, so each target's
symbol graph is extracted from them with swift-symbolgraph-extract and the options the plugin asks
SwiftPM for, `docc convert` runs per target once the targets it depends on directly are converted
(their archives are its link dependencies, as in the plugin), and `docc merge` joins them.

Usage: docs-build.py --bin-path DIR --output ARCHIVE [--docc-flag FLAG]... TARGET...
(Scripts/docs-check.sh passes the catalog targets and --docc-flag=--warnings-as-errors.)
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile


def search_arguments(manifest: pathlib.Path) -> list[str]:
    """The module search arguments of every Swift compile in the build manifest (the -I module
    directories and header paths, and the -Xcc module maps and include paths of the C modules),
    de-duplicated in first-seen order: what SwiftPM gives swift-symbolgraph-extract for a target
    of this build."""
    arguments: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for line in manifest.read_text().splitlines():
        line = line.strip()
        if not line.startswith('args: ["') or '"-module-name"' not in line:
            continue
        command = json.loads(line[len("args: "):])
        i = 0
        while i < len(command):
            group: tuple[str, ...] = ()
            if command[i] == "-I" and i + 1 < len(command):
                group = tuple(command[i:i + 2])
            elif command[i].startswith("-I"):
                # Joined: a system library's pkg-config flags (-I/usr/include/libusb-1.0), which
                # its C module map's headers need.
                group = (command[i],)
            elif command[i:i + 1] == ["-Xcc"] and i + 1 < len(command):
                if command[i + 1].startswith("-fmodule-map-file="):
                    group = tuple(command[i:i + 2])
                elif command[i + 1] == "-I" and command[i + 2:i + 3] == ["-Xcc"] and i + 3 < len(command):
                    group = tuple(command[i:i + 4])
            if group and group not in seen:
                seen.add(group)
                arguments += group
            i += len(group) or 1
    return arguments


def direct_dependencies(package: dict, documented: set[str]) -> dict[str, list[str]]:
    """Each documented target's direct dependencies among the documented targets: its targets,
    and the targets of this package's products it names (a bare name is a target when one has
    that name, else a product, as SwiftPM resolves it)."""
    products = {p["name"]: p["targets"] for p in package.get("products", [])}
    targets = {t["name"] for t in package["targets"]}
    result = {}
    for target in package["targets"]:
        name = target["name"]
        if name not in documented:
            continue
        names: list[str] = []
        for dependency in target.get("dependencies", []):
            if "target" in dependency:
                names.append(dependency["target"][0])
            elif "byName" in dependency:
                named = dependency["byName"][0]
                names += [named] if named in targets else products.get(named, [])
            elif "product" in dependency and dependency["product"][1] is None:
                names += products.get(dependency["product"][0], [])
        result[name] = [d for d in dict.fromkeys(names) if d in documented and d != name]
    return result


def run(command: list[str], what: str) -> None:
    completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if completed.returncode != 0:
        sys.stderr.write(completed.stdout)
        raise SystemExit(f"docs-build: {what} failed (exit {completed.returncode}): {' '.join(command)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-path", required=True, type=pathlib.Path)
    parser.add_argument("--output", required=True, type=pathlib.Path)
    parser.add_argument("--docc-flag", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("targets", nargs="+")
    options = parser.parse_args()

    bin_path = options.bin_path.resolve()
    # .build/debug.yaml for .build/<triple>/debug (the .build/debug link resolved).
    manifest = bin_path.parent.parent / f"{bin_path.name}.yaml"
    if not manifest.is_file():
        raise SystemExit(f"docs-build: no build manifest for {bin_path} (run swift build first)")
    for target in options.targets:
        if not (bin_path / "Modules" / f"{target}.swiftmodule").exists():
            raise SystemExit(f"docs-build: {target} is not built in {bin_path} (run swift build first)")

    package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True,
                                        stdout=subprocess.PIPE, text=True).stdout)
    dependencies = direct_dependencies(package, set(options.targets))
    executables = {t["name"] for t in package["targets"] if t.get("type") == "executable"}
    triple = bin_path.parent.name
    search = ["-I", str(bin_path / "Modules")] + search_arguments(manifest)
    docc = shutil.which("docc")
    if docc is None:
        raise SystemExit("docs-build: no docc on PATH")

    work = pathlib.Path(tempfile.mkdtemp(prefix="docs-build."))
    try:
        graphs = {t: work / "symbol-graphs" / t for t in options.targets}
        archives = {t: work / "archives" / f"{t}.doccarchive" for t in options.targets}
        (work / "archives").mkdir()

        def extract(target: str) -> None:
            graphs[target].mkdir(parents=True)
            # The options swift-docc-plugin asks for: public symbols (internal ones too for an
            # executable), synthesized members and inherited documentation kept, no SPI,
            # extension blocks.
            access = "internal" if target in executables else "public"
            run(["swift-symbolgraph-extract", "-module-name", target, "-target", triple, *search,
                 "-module-cache-path", str(bin_path / "ModuleCache"), "-minimum-access-level", access,
                 "-emit-extension-block-symbols", "-output-dir", str(graphs[target])],
                f"symbol graph of {target}")

        def convert(target: str) -> None:
            catalog = pathlib.Path("Sources") / target / f"{target}.docc"
            command = [docc, "convert", str(catalog), *options.docc_flag,
                       "--fallback-display-name", target, "--fallback-bundle-identifier", target,
                       "--additional-symbol-graph-dir", str(graphs[target]), "--output-path", str(archives[target]),
                       "--enable-experimental-external-link-support"]
            for dependency in dependencies[target]:
                command += ["--dependency", str(archives[dependency])]
            if target in executables:
                command += ["--fallback-default-module-kind", "Command-line Tool"]
            run(command, f"docc convert of {target}")

        with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
            for future in [pool.submit(extract, t) for t in options.targets]:
                future.result()
            # Convert in dependency order, each as soon as its dependencies are done.
            done: set[str] = set()
            running: dict[concurrent.futures.Future, str] = {}
            waiting = list(options.targets)
            while waiting or running:
                for target in [t for t in waiting if all(d in done for d in dependencies[t])]:
                    waiting.remove(target)
                    running[pool.submit(convert, target)] = target
                if not running:
                    raise SystemExit(f"docs-build: dependency cycle among {waiting}")
                finished, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in finished:
                    future.result()
                    done.add(running.pop(future))

        options.output.parent.mkdir(parents=True, exist_ok=True)
        if options.output.exists():
            shutil.rmtree(options.output)
        run([docc, "merge", *[str(archives[t]) for t in options.targets], "--output-path", str(options.output),
             "--synthesized-landing-page-name", package["name"], "--synthesized-landing-page-kind", "Package"],
            "docc merge")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
