#!/usr/bin/env python3
"""What the library's setting declarations (include/pcl_dise/core/setting_declarations.h) make:
the settings table of docs/command_line.md (every setting's name on each surface, its default and
help), the ROS launch file apps/ros/dise_normals.launch (an argument and a parameter for each
setting the node offers, with its default, and the node's own parameters), and Python's settings
keywords (python/pcl_dise/__init__.py: the parameters of Estimator, estimate_normals and
estimate_normals_file, with their types and defaults, and estimate_normals' list of them).

    PYTHONPATH=build/python /usr/bin/python3 scripts/settings_table.py [--write]

Prints the table; --write puts it between the markers in docs/command_line.md, writes the launch
file and the marked blocks of the Python package. The test python/tests/test_setting_surfaces.py
fails where any differs from what the declarations make.
"""
import argparse
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "command_line.md"
LAUNCH = ROOT / "apps" / "ros" / "dise_normals.launch"
PACKAGE = ROOT / "python" / "pcl_dise" / "__init__.py"
BEGIN, END = "<!-- settings table: scripts/settings_table.py --write -->", "<!-- end of the settings table -->"


def table(declarations) -> str:
    rows = ["| setting (Python, report) | command line | ROS parameter | C++ setter | default | what it does |",
            "|---|---|---|---|---|---|"]
    for d in declarations:
        ros = f"`{d['ros_name']}" + ("_x, _y, _z" if d["kind"] == "point" else "") + "`" if d["ros"] else "(none)"
        default = ("not set" if d["unset_by_default"] else f"`{d['default']}`" +
                   (" (files: by the input)" if d["default_from_input"] else ""))
        help_text = d["help"] + (f" {{{d['choices']}}}" if d["choices"] else "")
        flag = f"`{d['flag']}`" if d["file"] else "(none)"
        rows.append(f"| `{d['name']}` | {flag} | {ros} | `{d['cpp_setter']}` | {default} | {help_text} |")
    return "\n".join(rows) + "\n"


# The node's own parameters, which are not settings: (name, default, what it is).
NODE_PARAMETERS = [("error_bound", "false", "whether ~output also carries each normal's error bound (docs/ros.md)")]


def launch_file(declarations) -> str:
    """apps/ros/dise_normals.launch: an argument per setting the node offers (a point's three
    axes each), empty where the setting is not set by default and then passed only when given."""
    arguments, parameters = [], []
    for d in declarations:
        if not d["ros"]:
            continue
        names = [d["ros_name"] + axis for axis in ("_x", "_y", "_z")] if d["kind"] == "point" else [d["ros_name"]]
        for name in names:
            default = "" if d["unset_by_default"] else d["default"]
            arguments.append(f'  <arg name="{name}" default="{default}" />')
            given = " if=\"$(eval arg('" + name + "') != '')\"" if d["unset_by_default"] else ""
            parameters.append(f'    <param name="{name}" value="$(arg {name})"{given} />')
    for name, default, what in NODE_PARAMETERS:
        arguments += [f"  <!-- not a setting: {what} -->", f'  <arg name="{name}" default="{default}" />']
        parameters.append(f'    <param name="{name}" value="$(arg {name})" />')
    return "\n".join([
        "<!-- DISE normals for a PointCloud2 topic:",
        "     roslaunch pcl_dise dise_normals.launch input:=/camera/depth/points k_search:=32",
        "     Every argument is a setting of core/setting_declarations.h under its ROS name, with its default;",
        "     an empty one is not set (k_search: 64 unless radius_search; model: the shipped one; viewpoint:",
        "     the frame's origin). docs/ros.md lists them. Made from the declarations by",
        "     scripts/settings_table.py: edit them, not this file. -->",
        "<launch>",
        '  <arg name="input" default="/points" />',
        '  <arg name="output" default="/points_with_normals" />',
        *arguments,
        "",
        '  <node pkg="pcl_dise" type="dise_normals_node" name="dise_normals" output="screen">',
        '    <remap from="~input" to="$(arg input)" />',
        '    <remap from="~output" to="$(arg output)" />',
        *parameters,
        "  </node>",
        "</launch>",
    ]) + "\n"


# Python's settings that callers pass by position (estimate_normals(points, 32)) keep the places
# they have had since the first release; every other setting is keyword-only.
PYTHON_POSITIONAL = ("k", "radius", "max_neighbors", "iterations", "model", "threads", "settle", "orient", "viewpoint",
                     "backend")
# A block of the package made here: a comment line "# settings: SURFACE ..." (parameters) or a
# docstring line "Settings (...):" (their list), up to the line "# end of the settings" or the
# docstring's next blank line.
PARAMETERS_BEGIN = re.compile(r"^( *)# settings: (in_memory|file) .*$", re.M)
PARAMETERS_END = "# end of the settings"
LIST_BEGIN = re.compile(r"^( *)Settings \(.*\):$", re.M)
WIDTH = 118


def python_default(d, surface: str):
    """The keyword's default: None where the default means "not set" (or the file's input decides)."""
    if d["unset_by_default"] or (surface == "file" and d["default_from_input"]):
        return None
    return {"integer": int, "number": float}.get(d["kind"], str)(d["default"])


def python_annotation(d, surface: str) -> str:
    kind = {"integer": "int", "number": "float", "path": "_PathType", "name": "str", "point": "Sequence[float]"}[d["kind"]]
    return f"Optional[{kind}]" if python_default(d, surface) is None else kind


def python_parameters(declarations, surface: str, indent: str) -> str:
    """The settings as parameters, in the declarations' order but the positional ones first; a
    "*," before the keyword-only ones where the surface takes some by position (in_memory)."""
    offered = [d for d in declarations if d[surface]]
    by_position = [d for name in PYTHON_POSITIONAL for d in offered if d["name"] == name] if surface == "in_memory" else []
    by_keyword = [d for d in offered if d not in by_position]
    def item(d) -> str:
        default = python_default(d, surface)
        literal = '"' + default + '"' if isinstance(default, str) else repr(default)
        return f"{d['name']}: {python_annotation(d, surface)} = {literal},"
    items = [item(d) for d in by_position] + (["*,"] if by_position and by_keyword else [])
    items += [item(d) for d in by_keyword]
    lines, line = [], ""
    for item in items:
        if line and len(indent) + len(line) + 1 + len(item) > WIDTH:
            lines.append(indent + line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    lines.append(indent + line)
    return "\n".join(lines) + "\n"


def python_list(declarations, indent: str) -> str:
    """estimate_normals' docstring list of the settings it offers: "name: help", wrapped."""
    out = []
    for d in declarations:
        if not d["in_memory"]:
            continue
        text = f"{d['name']}: {d['help']}."  # a name's help lists its choices
        out += textwrap.wrap(text, WIDTH - 18, initial_indent=indent, subsequent_indent=indent + "    ")
    return "\n".join(out) + "\n"


def python_package(text: str, declarations) -> str:
    """The package's source with every marked block made from the declarations."""
    out, position = [], 0
    for match in PARAMETERS_BEGIN.finditer(text):
        end = text.index(match.group(1) + PARAMETERS_END, match.end())
        out += [text[position:match.end()], "\n", python_parameters(declarations, match.group(2), match.group(1))]
        position = end
    text = "".join(out) + text[position:]
    match = LIST_BEGIN.search(text)
    if not match:
        raise SystemExit(f"{PACKAGE}: the settings' list is missing from estimate_normals' docstring")
    end = text.index("\n\n", match.end())
    return text[:match.end()] + "\n" + python_list(declarations, match.group(1)).rstrip("\n") + text[end:]


def section(text: str) -> str:
    """What lies between the markers of a document's text."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{DOC}: the markers of the settings table are missing")
    return text[begin + len(BEGIN):end].strip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true",
                        help="write the table into docs/command_line.md, the ROS launch file and the Python package's "
                             "settings")
    args = parser.parse_args()
    from pcl_dise import _native
    made = table(_native.setting_declarations())
    if not args.write:
        sys.stdout.write(made)
        return 0
    text = DOC.read_text()
    section(text)  # the markers are there
    begin, end = text.find(BEGIN) + len(BEGIN), text.find(END)
    DOC.write_text(text[:begin] + "\n" + made + text[end:])
    LAUNCH.write_text(launch_file(_native.setting_declarations()))
    PACKAGE.write_text(python_package(PACKAGE.read_text(), _native.setting_declarations()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
