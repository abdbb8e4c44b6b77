"""lamport.Bundle checks a manifest against docs/bundle.schema.json and the
rules between fields (no GPU, no compiler: hand-made bundles of
test/Runtime/Inputs)."""

import json
import os
import shutil
import sys

import pytest

from conftest import ROOT

INPUTS = os.path.join(ROOT, "test", "Runtime", "Inputs")


def bundle_with(tmp_path, edit, source="attention_dispatch_tp2"):
    """A copy of Inputs/`source` whose manifest `edit` changed."""
    with open(os.path.join(INPUTS, source, "manifest.json")) as file:
        manifest = json.load(file)
    edit(manifest)
    path = tmp_path / source
    shutil.copytree(os.path.join(INPUTS, source), path)
    (path / "manifest.json").write_text(json.dumps(manifest))
    return path


def test_schema_is_the_one_in_docs():
    # The installed package carries a copy of docs/bundle.schema.json.
    from lamport import bundle

    with open(bundle.schema_path(), encoding="utf-8") as installed, \
            open(os.path.join(ROOT, "docs", "bundle.schema.json"),
                 encoding="utf-8") as docs:
        assert installed.read() == docs.read()


def test_reads_mailbox_use(tmp_path):
    import lamport

    def edit(m):
        m["kernels"][0]["mailbox_use"] = "publish"
        m["compiler"] = "a field a later writer adds"
    bundle = lamport.Bundle(bundle_with(tmp_path, edit))
    assert bundle.kernel("gemm_publish_0").mailbox_use == "publish"
    # Written before the field: nothing to report.
    assert bundle.kernel("gemm_publish_1").mailbox_use is None


@pytest.mark.parametrize("edit, message", [
    (lambda m: m["kernels"][0]["grid"].__setitem__(1, 65536),
     r"manifest.json: kernels\[0\].grid\[1\]: must be in \[1, 65535\], got 65536"),
    (lambda m: m["mailboxes"][0].__setitem__("id", 4294967296),
     r"mailboxes\[0\].id: must be in \[0, 2147483647\], got 4294967296"),
    (lambda m: m["arguments"][0].__setitem__("shape", [18446744073709551615, 64]),
     r"arguments\[0\].shape\[0\]: must be in \[-1, 2147483647\]"),
    (lambda m: m.__setitem__("version", 1.0),
     r"version: must be an integer, got 1.0"),
    (lambda m: m["kernels"][1].__setitem__("name", "gemm_publish_0"),
     r"kernels\[1\].name: kernel name 'gemm_publish_0' is used twice"),
    (lambda m: m["launches"][1].__setitem__("tokens", [10, 16]),
     r"launches\[1\].tokens: starts at 10 where 9 is expected"),
    (lambda m: m.__setitem__("transport", "x" * 10000),
     r"transport: must be 'unicast' or 'multicast', got \"x{80}\.\.\.\"$"),
])
def test_errors_name_the_field(tmp_path, edit, message):
    import lamport

    with pytest.raises(lamport.BundleError, match=message):
        lamport.Bundle(bundle_with(tmp_path, edit))


def test_text_that_is_no_json(tmp_path):
    import lamport

    for text, message in [('{"format": "lamport-bundle", "version": 1e400}', "out of range"),
                          ('{"format": "lamport-bundle", "version": NaN}', "NaN"),
                          (b'{"format": "lamport-bundle\xff"}', "utf-8")]:
        path = tmp_path / "manifest.json"
        (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
        with pytest.raises(lamport.BundleError, match=f"is not JSON: .*{message}"):
            lamport.Bundle(tmp_path)


def test_without_jsonschema_the_rules_still_hold(tmp_path, monkeypatch):
    """Where jsonschema is missing (a GPU machine's Python), Bundle warns
    and still checks the rules between fields."""
    import lamport
    from lamport import bundle

    monkeypatch.setitem(sys.modules, "jsonschema", None)
    bundle._validator.cache_clear()
    try:
        with pytest.warns(UserWarning, match="jsonschema is not installed"):
            lamport.Bundle(bundle_with(tmp_path, lambda m: None))
        bad = bundle_with(tmp_path / "bad", lambda m: m["launches"][1].__setitem__("tokens", [8, 16]))
        with pytest.raises(lamport.BundleError, match=r"launches\[1\].tokens: starts at 8"):
            lamport.Bundle(bad)
    finally:
        bundle._validator.cache_clear()
