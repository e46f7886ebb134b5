"""Every surface against the settings' declarations (core/setting_declarations.h): Python's
signatures (made from the declarations), the tools' --help, the ROS launch file and docs/command_line.md's table offer
every declared setting where it applies, under its name and with its default."""
import inspect
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

import pcl_dise
from pcl_dise import _native

from conftest import BUILD, REPO

DECLARATIONS = _native.setting_declarations()


def python_default(declaration, surface):
    """The default a Python keyword must have: None where the default means "not set"."""
    if declaration["unset_by_default"] or (surface == "file" and declaration["default_from_input"]):
        return None
    text = declaration["default"]
    return {"integer": int, "number": float}.get(declaration["kind"], str)(text)


def declared_on(surface):
    return [d for d in DECLARATIONS if d[surface]]


@pytest.mark.parametrize("function, surface", [(pcl_dise.Estimator.__init__, "in_memory"),
                                               (pcl_dise.estimate_normals, "in_memory"),
                                               (pcl_dise.estimate_normals_file, "file")])
def test_every_python_signature_offers_each_setting_with_its_default(function, surface):
    parameters = inspect.signature(function).parameters
    for d in declared_on(surface):
        assert d["name"] in parameters, f"{function.__qualname__} lacks {d['name']}"
        assert parameters[d["name"]].default == python_default(d, surface), (function.__qualname__, d["name"])
        assert f"{d['name']}:" in (function.__doc__ or "") + (pcl_dise.estimate_normals.__doc__ or "")


@pytest.mark.parametrize("tool, surface, left_out", [("dise_normals", "file", ()),
                                                     ("dise_normals_mpi", "file", ()),
                                                     ("dise_reconstruct", "in_memory", ("orient",))])
def test_every_tool_offers_each_setting(tool, surface, left_out):
    path = BUILD / "apps" / tool
    if not path.exists():
        pytest.skip(f"{tool} is not built")
    help_text = subprocess.run([str(path), "--help"], capture_output=True, text=True, timeout=60).stdout
    for d in declared_on(surface):
        if d["name"] in left_out:
            continue
        assert re.search(re.escape(d["flag"]) + r"\b", help_text), f"{tool} --help lacks {d['flag']}"
        if not d["unset_by_default"] and not d["default_from_input"]:
            assert f"(default: {d['default']})" in help_text, (tool, d["flag"])


def test_the_ros_launch_file_is_the_declarations():
    sys.path.insert(0, str(REPO / "scripts"))
    import settings_table
    launch = (REPO / "apps" / "ros" / "dise_normals.launch").read_text()
    assert launch == settings_table.launch_file(DECLARATIONS), "run scripts/settings_table.py --write"
    root = ElementTree.fromstring(launch)  # and it is a launch file: every setting an argument and a parameter
    arguments = {a.get("name"): a.get("default") for a in root.findall("arg")}
    parameters = {p.get("name") for p in root.find("node").findall("param")}
    for d in declared_on("ros"):
        names = [d["ros_name"] + axis for axis in ("_x", "_y", "_z")] if d["kind"] == "point" else [d["ros_name"]]
        for name in names:
            assert name in parameters and arguments[name] == ("" if d["unset_by_default"] else d["default"]), name


def test_the_ros_guide_names_each_parameter():
    guide = (REPO / "docs" / "ros.md").read_text()
    for d in declared_on("ros"):
        assert f"`~{d['ros_name']}" in guide, d["ros_name"]


def test_the_python_keywords_are_made_from_the_declarations():
    # Estimator's, estimate_normals' and estimate_normals_file's settings, and estimate_normals'
    # list of them, as scripts/settings_table.py --write makes them.
    sys.path.insert(0, str(REPO / "scripts"))
    import settings_table
    text = settings_table.PACKAGE.read_text()
    assert text == settings_table.python_package(text, DECLARATIONS), "run scripts/settings_table.py --write"
    with pytest.raises(TypeError):
        pcl_dise.Estimator(None, None, 0, 4, None, 0, 0.0, "viewpoint", None, "native", "float")  # keyword-only


def test_the_settings_table_of_the_documents_is_the_declarations():
    sys.path.insert(0, str(REPO / "scripts"))
    import settings_table
    assert settings_table.section((REPO / "docs" / "command_line.md").read_text()) == \
        settings_table.table(DECLARATIONS), "run scripts/settings_table.py --write"


def test_a_setting_is_read_by_its_declaration_with_one_message():
    with pytest.raises(ValueError, match="iterations must be a whole number, not '2.5'"):
        pcl_dise.Estimator(iterations=2.5)
    with pytest.raises(ValueError, match="set k or radius, not both"):
        pcl_dise.Estimator(k=16, radius=0.1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        pcl_dise.estimate_normals_file("a.xyz", "b.xyz", store_iterations=True)
