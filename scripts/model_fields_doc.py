"""Writes docs/model.md, the Model's arrays, from their table in kernels/model_fields.h.

python3 scripts/model_fields_doc.py            rewrite docs/model.md
python3 scripts/model_fields_doc.py --check    exit 1 when docs/model.md is not the table's
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "kernels" / "model_fields.h"
PAGE = ROOT / "docs" / "model.md"

ROW = re.compile(
    r"X\(\s*(?P<use>\w+),\s*(?P<type>[\w:]+),\s*(?P<name>\w+),\s*\((?P<shape>[^()]*(?:\(\))?[^()]*)\),"
    r"\s*(?P<meaning>(?:\"(?:[^\"\\]|\\.)*\"\s*)+)\)"
)
USE = {"view_int": "kernels (int)", "view_real": "kernels (real)", "host": "host"}


def rows(text: str) -> list[dict[str, str]]:
    """The rows of the ZW_MODEL_ARRAYS table, continuation lines joined."""
    body = text[text.index("#define ZW_MODEL_ARRAYS(X)") :]
    body = body[: body.index("\n\n")].replace("\\\n", " ")
    out = []
    for m in ROW.finditer(body):
        parts = re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m["meaning"])
        meaning = "".join(parts).replace('\\"', '"')
        out.append({**m.groupdict(), "meaning": meaning})
    return out


def page(table: list[dict[str, str]]) -> str:
    lines = [
        "# Model arrays",
        "",
        "Every array of a `zwang::Model`, in the order of `kernels/model_fields.h`, from",
        "which this page is written (`python3 scripts/model_fields_doc.py`). The shape is in",
        "rows of the model's counts; `Model.<name>` in Python is a read-only NumPy copy of that",
        "shape (names: a list of str; `sensor_objtype` and `sensor_reftype` as names such as",
        "`'site'`, `actuator_ctrllimited` as bools). *Read by* says whether the kernels read",
        "the array (`ModelView`) or only the host.",
        "",
        "| name | type | shape | read by | meaning |",
        "|---|---|---|---|---|",
    ]
    for r in table:
        meaning = r["meaning"].replace("|", "\\|")
        lines.append(
            f"| `{r['name']}` | {r['type']} | ({r['shape']}) | {USE[r['use']]} | {meaning} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    table = rows(TABLE.read_text(encoding="utf-8"))
    if not table:
        print(f"{TABLE}: no rows found in ZW_MODEL_ARRAYS", file=sys.stderr)
        return 1
    text = page(table)
    if args.check:
        if not PAGE.exists() or PAGE.read_text(encoding="utf-8") != text:
            print(
                f"{PAGE} is not the table of {TABLE}: run python3 scripts/model_fields_doc.py",
                file=sys.stderr,
            )
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
