"""Reading a bundle: manifest.json, its kernels and their PTX.

Pure Python over the files docs/bundle.md describes, so it works where
there is no MLIR (a GPU machine) as well as after lamport.compile().
"""

import json
import os
from dataclasses import dataclass, field


class BundleError(Exception):
    """A bundle directory that is missing or does not follow docs/bundle.md."""


@dataclass(frozen=True)
class Kernel:
    """One kernel of a bundle and how the runtime launches it."""

    bundle: "Bundle" = field(repr=False, compare=False)
    name: str
    op: str
    grid: tuple
    block: tuple
    cluster: tuple
    shared_bytes: int
    pdl: bool
    params: tuple
    attributes: dict = field(compare=False)

    @property
    def ptx_path(self):
        return os.path.join(self.bundle.path, self.bundle._entry(self.name)["ptx"])

    @property
    def cubin_path(self):
        return os.path.join(self.bundle.path, self.bundle._entry(self.name)["cubin"])

    @property
    def ptx(self):
        """The kernel's PTX text."""
        with open(self.ptx_path, encoding="utf-8") as file:
            return file.read()


class Bundle:
    """A bundle directory: `Bundle(path)` reads and checks its manifest."""

    FORMAT = "lamport-bundle"

    def __init__(self, path):
        self.path = os.fspath(path)
        manifest_path = os.path.join(self.path, "manifest.json")
        try:
            with open(manifest_path, encoding="utf-8") as file:
                self.manifest = json.load(file)
        except FileNotFoundError:
            raise BundleError(f"'{self.path}' is not a bundle: it has no manifest.json") from None
        except json.JSONDecodeError as error:
            raise BundleError(f"'{manifest_path}' is not JSON: {error}") from None
        if not isinstance(self.manifest, dict) or self.manifest.get("format") != self.FORMAT:
            raise BundleError(f"'{manifest_path}' is not a {self.FORMAT} manifest")
        self._entries = {entry["name"]: entry for entry in self.manifest.get("kernels", [])}

    def _entry(self, name):
        return self._entries[name]

    @property
    def version(self):
        return self.manifest["version"]

    @property
    def chip(self):
        return self.manifest["chip"]

    @property
    def transport(self):
        return self.manifest["transport"]

    @property
    def program(self):
        return self.manifest["program"]

    @property
    def mailboxes(self):
        return self.manifest["mailboxes"]

    @property
    def arguments(self):
        return self.manifest["arguments"]

    @property
    def launches(self):
        """Kernel names in stream order, one a launch."""
        return [launch["kernel"] for launch in self.manifest["launches"]]

    @property
    def launch_tokens(self):
        """(kernel name, (lo, hi)) per launch, in stream order: the launch
        runs in a step of M tokens when lo <= M <= hi; (lo, hi) is None for
        a launch that runs at every M (docs/bundle.md, `tokens`)."""
        return [(launch["kernel"],
                 tuple(launch["tokens"]) if "tokens" in launch else None)
                for launch in self.manifest["launches"]]

    def launches_for(self, tokens):
        """The kernel names a step of `tokens` tokens launches, in order."""
        return [name for name, span in self.launch_tokens
                if span is None or span[0] <= tokens <= span[1]]

    @property
    def kernels(self):
        """Every kernel, in the manifest's order."""
        return [self.kernel(name) for name in self._entries]

    def kernel(self, name):
        """The kernel called `name`."""
        if name not in self._entries:
            raise KeyError(f"bundle '{self.path}' has no kernel '{name}' "
                           f"(it has {', '.join(self._entries) or 'none'})")
        entry = self._entries[name]
        return Kernel(
            bundle=self,
            name=name,
            op=entry["op"],
            grid=tuple(entry["grid"]),
            block=tuple(entry["block"]),
            cluster=tuple(entry["cluster"]),
            shared_bytes=entry["shared_bytes"],
            pdl=entry["pdl"],
            params=tuple(entry["params"]),
            attributes=entry.get("attributes", {}),
        )

    def __repr__(self):
        return (f"Bundle({self.path!r}, program={self.program!r}, "
                f"chip={self.chip!r}, kernels={list(self._entries)})")
