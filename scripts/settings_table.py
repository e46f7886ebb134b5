#!/usr/bin/env python3
"""What the library's setting declarations (include/pcl_dise/core/setting_declarations.h) make:
the settings table of docs/command_line.md (every setting's name on each surface, its default and
help) and the ROS launch file apps/ros/dise_normals.launch (an argument and a parameter for each
setting the node offers, with its default, and the node's own parameters).

    PYTHONPATH=build/python /usr/bin/python3 scripts/settings_table.py [--write]

Prints the table; --write puts it between the markers in docs/command_line.md and writes the
launch file. The test python/tests/test_setting_surfaces.py fails where either differs from what
the declarations make.
"""
import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "command_line.md"
LAUNCH = ROOT / "apps" / "ros" / "dise_normals.launch"
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


def section(text: str) -> str:
    """What lies between the markers of a document's text."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{DOC}: the markers of the settings table are missing")
    return text[begin + len(BEGIN):end].strip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true",
                        help="write the table into docs/command_line.md and the ROS launch file")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
