"""Puts the planner component into the wheel as warp_planner/planner.wasm.

The component is a build artifact (`scripts/build-component`), not a source file:
it comes from $WARP_COMPONENT, else src/warp_planner/planner.wasm. The build is
refused when neither exists, or when the component does not export the WIT
interfaces at the version of this package (`warp:planner/planner@<version>`),
so a wheel can never ship a component it was not built for.
"""

import os
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

INTERFACES = ("warp:planner/planner@{v}", "warp:planner/reorder@{v}")


class ComponentHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        root = Path(self.root)
        env = os.environ.get("WARP_COMPONENT")
        path = Path(env) if env else root / "src/warp_planner/planner.wasm"
        if not path.is_file():
            raise RuntimeError(
                f"warp-planner: no component at {path}: build it with "
                "`scripts/build-component OUT` and set WARP_COMPONENT=OUT")
        data = path.read_bytes()
        want = self.metadata.version
        for name in INTERFACES:
            # Component export names are stored verbatim in the binary.
            if name.format(v=want).encode() not in data:
                raise RuntimeError(
                    f"warp-planner {want}: {path} does not export {name.format(v=want)} "
                    "(the component's WIT package version differs from the package version)")
        build_data["force_include"][str(path)] = "warp_planner/planner.wasm"
