"""perf databases (SQLite, docs/perf-db.md) as the harnesses read them:
unpacked from the committed .db.gz files, and a later database's rows merged
over an earlier one's."""

import gzip
import shutil
import sqlite3


def unpack(path, dest):
    """`path` copied to `dest`, gunzipped where its name ends in .gz; returns
    `dest`."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as src, open(dest, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return dest


def merge_rows(db, later, drop_kinds=()):
    """The rows of database file `later` merged into `db`: a kernel both hold
    takes `later`'s row, and devices `db` lacks are added. Rows of
    `drop_kinds` that `later` lacks are deleted from `db` first (kinds whose
    benchmarks were rewritten). Returns (rows replaced or added, rows
    dropped)."""
    con = sqlite3.connect(db)
    con.execute("ATTACH DATABASE ? AS later", (later,))
    dropped = 0
    if drop_kinds:
        marks = ",".join("?" * len(drop_kinds))
        dropped = con.execute(
            "DELETE FROM kernels WHERE kind IN (%s) AND NOT EXISTS (SELECT 1 FROM "
            "later.kernels l WHERE l.device = kernels.device AND l.dtype = kernels.dtype AND "
            "l.kind = kernels.kind AND l.signature = kernels.signature)" % marks,
            tuple(drop_kinds)).rowcount
    added = con.execute("INSERT OR REPLACE INTO kernels SELECT * FROM later.kernels").rowcount
    con.execute("INSERT OR IGNORE INTO devices SELECT * FROM later.devices")
    con.commit()
    con.execute("DETACH DATABASE later")
    con.close()
    return added, dropped
