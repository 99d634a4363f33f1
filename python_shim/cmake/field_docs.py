"""Writes field_docs.h: the one-line meaning of every batch field, taken from the comments of
the field lists in kernels/layout.h, so that each NumPy view's docstring says what it holds.

usage: field_docs.py kernels/layout.h OUTPUT
"""

import re
import sys

FIELD = re.compile(r"X\((\w+),\s*[^)]*\)\s*/\*\s*(.*?)\s*\*/")


def main(layout, output):
    with open(layout, encoding="utf-8") as f:
        text = f.read()
    lines = [
        "// generated from kernels/layout.h by python_shim/cmake/field_docs.py",
        "#pragma once",
        "#include <utility>",
        "inline constexpr std::pair<const char*, const char*> kFieldDocs[] = {",
    ]
    for name, doc in FIELD.findall(text):
        doc = doc.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'    {{"{name}", "{doc}"}},')
    lines.append("};")
    content = "\n".join(lines) + "\n"
    try:
        with open(output, encoding="utf-8") as f:
            if f.read() == content:
                return
    except OSError:
        pass
    with open(output, "w", encoding="utf-8") as f:
        f.write(content)


if __name__ == "__main__":
    main(*sys.argv[1:])
