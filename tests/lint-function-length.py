#!/usr/bin/env python3
"""No function of src/, chapters/ or tools/ is longer than 60 lines, from the line of
its opening brace to the line of its closing one. A function as long as the lesson's
own may be longer when the line before its signature says so:
    // The lesson's own length: <the lesson's function>
Reads C++ with comments and strings blanked out, and tells a function's body from a
namespace, a class or a brace initializer by what precedes its brace."""
import re
import sys
from pathlib import Path

LIMIT = 60
ROOT = Path(__file__).resolve().parent.parent
EXEMPT = "// The lesson's own length:"


def blank(text):
    """Comments, strings and character literals replaced by spaces; newlines kept."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    return pattern.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)


def functions(text):
    """(first line, last line) of every function body, member functions included."""
    code = blank(text)
    stack, found = [], []
    boundary = 0  # where the text before the current brace starts
    for i, c in enumerate(code):
        if c in ';':
            boundary = i + 1
        elif c == '{':
            header = code[boundary:i]
            if any(kind == 'fn' for kind, _ in stack):
                kind = 'inner'
            elif re.search(r'\bnamespace\b|extern\s*$', header):
                kind = 'ns'
            elif re.search(r'\b(class|struct|union|enum)\b[^()]*$', header):
                kind = 'cls'
            elif ')' in header and not re.search(r'=\s*$', header.strip()):
                kind = 'fn'
            else:
                kind = 'block'
            stack.append((kind, i))
            boundary = i + 1
        elif c == '}':
            if stack:
                kind, start = stack.pop()
                if kind == 'fn':
                    first = code.count('\n', 0, start) + 1
                    last = code.count('\n', 0, i) + 1
                    found.append((first, last))
            boundary = i + 1
    return found


def main():
    bad = 0
    files = [p for folder in ('src', 'chapters', 'tools') for p in sorted((ROOT / folder).rglob('*'))
             if p.suffix in ('.cpp', '.h')]
    for path in files:
        text = path.read_text(encoding='utf-8')
        lines = text.split('\n')
        for first, last in functions(text):
            length = last - first + 1
            if length <= LIMIT:
                continue
            # The signature's first line: walk back from the brace to a blank line or a
            # line that ends a statement; the exemption sits just above it.
            sig = first - 1
            while sig > 0 and lines[sig - 1].strip() and not lines[sig - 1].rstrip().endswith((';', '}', '{')) \
                    and not lines[sig - 1].lstrip().startswith('//'):
                sig -= 1
            if sig > 0 and lines[sig - 1].strip().startswith(EXEMPT):
                continue
            print(f"{path.relative_to(ROOT)}:{first}: a function of {length} lines (at most {LIMIT}): "
                  f"{lines[first - 1].strip()[:80]}")
            bad = 1
    if not bad:
        print(f"every function of src/, chapters/ and tools/ has at most {LIMIT} lines: OK")
    return bad


if __name__ == '__main__':
    sys.exit(main())
