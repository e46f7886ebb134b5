#!/usr/bin/env python3
"""The settings table of docs/command_line.md, made from the library's declarations
(include/pcl_dise/core/setting_declarations.h): every setting's name on each surface, its
default and help.

    PYTHONPATH=build/python /usr/bin/python3 scripts/settings_table.py [--write]

Prints the table; --write puts it between the markers in docs/command_line.md. The test
python/tests/test_setting_surfaces.py fails where the document and the declarations differ.
"""
import argparse
import pathlib
import sys

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "command_line.md"
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


def section(text: str) -> str:
    """What lies between the markers of a document's text."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        raise SystemExit(f"{DOC}: the markers of the settings table are missing")
    return text[begin + len(BEGIN):end].strip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write the table into docs/command_line.md")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
