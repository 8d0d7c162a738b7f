"""A small zip archive made by Python's zipfile, for ZipReader's test (tests/test-io.cpp):
deflated, stored, empty and zip64-flagged entries, whose contents the test rebuilds.

    /usr/bin/python3 scripts/reference/zip_sample.py

Writes tests/golden/zip-sample.zip.
"""
import zipfile

from common import ROOT

out = ROOT / "tests/golden/zip-sample.zip"
with zipfile.ZipFile(out, "w") as zf:
    zf.writestr(zipfile.ZipInfo("hello.txt", (2026, 1, 1, 0, 0, 0)), "Hello, zip!\n" * 200,
                compress_type=zipfile.ZIP_DEFLATED)
    zf.writestr(zipfile.ZipInfo("data/bytes.bin", (2026, 1, 1, 0, 0, 0)), bytes(range(256)) * 4,
                compress_type=zipfile.ZIP_STORED)
    zf.writestr(zipfile.ZipInfo("empty.txt", (2026, 1, 1, 0, 0, 0)), b"", compress_type=zipfile.ZIP_DEFLATED)
    info = zipfile.ZipInfo("zip64.txt", (2026, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    with zf.open(info, "w", force_zip64=True) as f:
        f.write(b"ham\tGo until jurong point\nspam\tFree entry\n" * 50)
print(f"wrote {out.relative_to(ROOT)} ({out.stat().st_size} bytes)")
