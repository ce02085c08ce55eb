"""doccheck finds what a reader would trip over: a link to a missing file or heading, and a README example
that no longer matches examples/start."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import doccheck  # noqa: E402


def _tree(tmp_path, readme, guide="# Guide\n\n## What it does\n"):
    (tmp_path / "docs").mkdir(parents=True)
    (tmp_path / "docs" / "guide.md").write_text(guide)
    start = tmp_path / "examples" / "start"
    start.mkdir(parents=True)
    (start / "a.cpp").write_text("int a;\n")
    (tmp_path / "README.md").write_text(readme)
    return str(tmp_path)


GOOD = "See [the guide](docs/guide.md#what-it-does).\n\n`start/a.cpp`:\n\n```cpp\nint a;\n```\n"


def test_good_docs_pass(tmp_path):
    assert doccheck.main(["--root", _tree(tmp_path, GOOD), "README.md", "docs/guide.md"]) == 0


def test_a_missing_file_or_heading_is_reported(tmp_path, capsys):
    root = _tree(tmp_path, GOOD.replace("guide.md#what-it-does", "guide.md#what-it-did") + "[x](docs/gone.md)\n")
    assert doccheck.main(["--root", root, "README.md"]) == 1
    err = capsys.readouterr().err
    assert "README.md:1: link to docs/guide.md#what-it-did: docs/guide.md has no heading '#what-it-did'" in err
    assert "README.md:8: link to docs/gone.md: docs/gone.md does not exist" in err
    # A document another branch adds may be linked before it lands.
    root2 = _tree(tmp_path / "2", GOOD + "[x](docs/gone.md)\n")
    assert doccheck.main(["--root", root2, "--pending", "docs/gone.md", "README.md"]) == 0


def test_an_example_that_differs_from_examples_start_is_reported(tmp_path, capsys):
    root = _tree(tmp_path, GOOD.replace("int a;", "int b;"))
    assert doccheck.main(["--root", root, "README.md"]) == 1
    assert "the block after `start/a.cpp` differs from examples/start/a.cpp" in capsys.readouterr().err


def test_links_in_code_blocks_are_not_links(tmp_path):
    root = _tree(tmp_path, GOOD + "```\n[x](docs/gone.md)\n```\n")
    assert doccheck.main(["--root", root, "README.md"]) == 0


def test_headings_slug_as_github_does():
    assert doccheck.slug(" What a `super_kernel` builds") == "what-a-super_kernel-builds"
    assert doccheck.slug("`$SK_FAKE_ACL_LOG` lines") == "sk_fake_acl_log-lines"
