#!/usr/bin/env python3
"""No flag is accepted and ignored: every flag that a program of chapters/, tools/,
bench/ or src/llm declares by name, ("name", "help text", ...) or ("n,name", ...), is
read somewhere by that name ("name" again: args["name"], args.count("name"), a helper
given "name"). Flags made from a table (the training settings, the course's variant
flags) are declared and read through that table and are not seen here; the common
flags are tested by running them (tests/cli/robustness.cmake)."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("chapters", "tools", "bench", "src/llm")
# A flag's declaration: its name as the first argument, its help text the second; a
# program's own name, cli::options("name", "description"), is not a flag.
DECLARED = re.compile(r'(?<!options)\(\s*"(?:[a-zA-Z],)?([a-z][a-z0-9-]*)"\s*,\s*"')


def main():
    sources = [path for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*"))
               if path.suffix in (".cpp", ".h")]
    texts = {path: path.read_text() for path in sources}
    everything = "\n".join(texts.values())
    declared = {}
    for path, text in texts.items():
        for match in DECLARED.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            declared.setdefault(match.group(1), []).append(f"{path.relative_to(ROOT)}:{line}")
    unread = []
    for name, places in sorted(declared.items()):
        mentions = len(re.findall(rf'"(?:[a-zA-Z],)?{re.escape(name)}"', everything))
        if mentions <= len(places):
            unread.append(f"--{name} is declared ({', '.join(places)}) and never read by that name")
    for problem in unread:
        print(problem)
    print(f"{len(declared)} flags declared by name, {len(unread)} never read")
    return 1 if unread else 0


if __name__ == "__main__":
    sys.exit(main())
