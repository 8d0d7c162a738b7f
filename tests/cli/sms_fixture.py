#!/usr/bin/python3
"""Writes a stand-in for the UCI sms+spam+collection.zip: SMSSpamCollection, a
"label<TAB>text" file with what the real one holds and pandas' C parser reads in its own
way: a field that opens with a quote and runs over a tab and a line end into the next
row (the real file has two, which is why pandas reads 5,572 rows, not 5,574), quotes
inside texts, commas, HTML entities, non-ASCII, blank lines and CRLF line ends.

    sms_fixture.py OUT.zip [ROWS]
"""
import random
import sys
import zipfile

WORDS = ("free call now win prize cash claim txt reply stop urgent mobile ok lar see you later home "
         "dinner tonight love sorry meeting tomorrow going back work u r gonna").split()


def text(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(1, 30))]
    kind = rng.random()
    if kind < 0.1:
        words.insert(rng.randrange(len(words) + 1), '"quoted"')
    elif kind < 0.2:
        words.insert(rng.randrange(len(words) + 1), "a, b, c")
    elif kind < 0.25:
        words.append("&lt;#&gt;")
    elif kind < 0.3:
        words.append("Ü £5 ’ 😀")
    return " ".join(words)


def main():
    out, rows = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 400
    rng = random.Random(6)
    lines = []
    for i in range(rows):
        label = "spam" if rng.random() < 0.2 else "ham"
        lines.append(f"{label}\t{text(rng)}")
        if i % 97 == 50:  # an unclosed-looking quote that swallows the next row, as in the real file
            lines.append(f'ham\t"{text(rng)}')
            lines.append(f'ham\t{text(rng)}" and more')
        if i % 131 == 7:
            lines.append("")
    body = "\n".join(lines[: rows // 2]) + "\r\n" + "\r\n".join(lines[rows // 2:]) + "\n"
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("readme", "A stand-in for the SMS Spam Collection, made by tests/cli/sms_fixture.py\n")
        z.writestr("SMSSpamCollection", body.encode("utf-8"))


if __name__ == "__main__":
    main()
