#!/usr/bin/env python3
"""Writes Sources/LinkParseCore/UTS46Tables.swift: the Unicode data the package's own UTS #46 ToASCII reads
(`UTS46.swift`): the IDNA mapping table, NFC (canonical decompositions, compositions, combining classes, the
quick-check set), bidi classes (RFC 5893), joining types (RFC 5892 CONTEXTJ) and the combining marks.

Where the data comes from (pinned: the tables must not change with whatever happens to be installed):
- `idna` (PyPI) IDNA_VERSION: `idna.uts46data` (the UTS #46 IDNA mapping table, statuses V M D I X) and
  `idna.idnadata.joining_types` (DerivedJoiningType), both for Unicode UNICODE_VERSION.
- `unicodedata2` (PyPI) UNICODEDATA2_VERSION: the UCD of the same Unicode version (combining classes, bidi
  classes, general categories, decompositions, NFC). Python's own `unicodedata` lags behind (14.0 in 3.11).
Unicode 17, not 18 (idna 3.20, unicodedata2 18.0.0 carry 18): the web-platform-tests' IdnaTestV2.json follows
Unicode 17, and two of its cases expect a code point that Unicode 18 assigns (U+3E8AC) to be refused. Move to 18
together with WPT's data.

    python3 -m pip install idna==3.19 unicodedata2==17.0.1   # or: make idna-tables-deps (into .build/)
    python3 Scripts/idna-tables.py            # rewrites the Swift file
    python3 Scripts/idna-tables.py --check    # exit 1 when the committed file differs
    python3 Scripts/idna-tables.py --requirements  # the pinned packages, as pip arguments

Layout of the Swift tables (all sorted, binary-searched; a "range table" entry holds the start of a run of code
points sharing a value, the run ending where the next entry starts):
- uts46Starts[i] / uts46Values[i]: the mapping of the run starting at uts46Starts[i]. A value's top 3 bits are
  the status (0 valid or deviation, 1 disallowed, 2 ignored, 3 mapped by a delta, 4 mapped to a string, 5
  pairs: mapped to the next code point at an even offset from the start, valid at an odd one); the next 2 bits
  are flags of the run's output (1: it may change under NFC, 2: it holds an R, AL or AN code point); the low 27
  bits are a signed delta added to the code point, or a string's `offset << 5 | count` into uts46Scalars.
- combiningClasses, bidiClasses, joiningTypes, marks, nfcQuickCheck: range tables of `start << 8 | value`.
- <table>Blocks: for each 256-code-point block of the BMP, the index of the table entry where it starts, so
  a BMP lookup bisects only the entries of its block.
- decompositionKeys / decompositionValues: the full canonical decomposition of each code point that has one
  (Hangul syllables excluded: they are computed), `offset << 5 | count` into decompositionScalars.
- compositionKeys / compositionValues: primary composites, keyed by `first << 21 | second`.
"""
import pathlib
import sys

IDNA_VERSION = "3.19"
UNICODEDATA2_VERSION = "17.0.1"
UNICODE_VERSION = "17.0.0"
OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "Sources/LinkParseCore/UTS46Tables.swift"
INSTALL = f"python3 -m pip install idna=={IDNA_VERSION} unicodedata2=={UNICODEDATA2_VERSION}"


def load():
    try:
        import idna
        import idna.idnadata
        import idna.uts46data
        import unicodedata2
    except ImportError as e:
        raise SystemExit(f"idna-tables.py: {e.name} is missing; install the pinned packages: {INSTALL}")
    from importlib.metadata import version
    found = (version("idna"), version("unicodedata2"))
    if found != (IDNA_VERSION, UNICODEDATA2_VERSION) or unicodedata2.unidata_version != UNICODE_VERSION:
        raise SystemExit(
            f"idna-tables.py: needs idna {IDNA_VERSION} and unicodedata2 {UNICODEDATA2_VERSION} (Unicode "
            f"{UNICODE_VERSION}); found idna {found[0]} and unicodedata2 {found[1]} (Unicode "
            f"{unicodedata2.unidata_version}). Install them: {INSTALL}")
    if idna.uts46data.__version__ != UNICODE_VERSION or idna.idnadata.__version__ != UNICODE_VERSION:
        raise SystemExit(f"idna-tables.py: idna {IDNA_VERSION} does not carry Unicode {UNICODE_VERSION} data")
    return idna, unicodedata2


MAX = 0x110000
BIDI = ["", "L", "R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"]  # anything else: 0
JOINING = {"L": 1, "D": 2, "R": 3, "T": 4}  # C and U: 0


def mapping_table(idna, u, unsafe):
    """The runs of the mapping table. Each code point's entry is (kind, payload, flags): flags tell whether its
    output may change under NFC (1) and whether it holds a right-to-left code point (R, AL, AN: 2)."""
    import bisect
    d = idna.uts46data
    status_of = {ord("V"): 0, ord("D"): 0, ord("X"): 1, ord("I"): 2, ord("M"): 3}
    rtl = {"R", "AL", "AN"}

    def flags(out):
        return (1 if any(unsafe(ord(c)) for c in out) else 0) | (2 if any(u.bidirectional(c) in rtl for c in out) else 0)

    per_cp = []
    starts, statuses, repl = d.uts46_starts, d.uts46_statuses, d.uts46_replacements
    for cp in range(MAX):
        i = bisect.bisect_right(starts, cp) - 1
        s = status_of[statuses[i]]
        if s == 3:
            r = repl[i]
            if len(r) == 1:
                per_cp.append((3, ord(r) - cp, flags(r)))
            else:
                per_cp.append((4, r, flags(r)))
        elif s == 0:
            per_cp.append((0, None, flags(chr(cp))))
        else:
            per_cp.append((s, None, 0))
    # Runs of equal entries: a delta run maps each code point by the same offset. A run of pairs "upper case
    # mapped to the next code point, then that lower-case code point, valid" (Latin Extended, Cyrillic,
    # Greek...) with the same flags is one run of kind 5.
    runs = []
    cp = 0
    while cp < MAX:
        end = cp
        f = per_cp[cp][2]
        while end + 1 < MAX and per_cp[end] == (3, 1, f) and per_cp[end + 1] == (0, None, f):
            end += 2
        if end - cp >= 4:
            runs.append((cp, (5, None, f)))
            cp = end
            continue
        v = per_cp[cp]
        if not runs or runs[-1][1] != v:
            runs.append((cp, v))
        cp += 1
    # Strings, packed: each mapping string once, reusing an earlier occurrence when there is one.
    text = ""
    where = {}
    values = []
    for start, (kind, payload, f) in runs:
        if kind == 4:
            if payload not in where:
                k = text.find(payload)
                if k < 0:
                    k = len(text)
                    text += payload
                where[payload] = k
            assert len(payload) < 32 and where[payload] < (1 << 22)
            values.append(4 << 29 | f << 27 | where[payload] << 5 | len(payload))
        elif kind == 3:
            assert -(1 << 26) <= payload < (1 << 26)
            values.append(3 << 29 | f << 27 | (payload & ((1 << 27) - 1)))
        else:
            values.append(kind << 29 | f << 27)  # 0, 1, 2 and 5
    scalars = [ord(c) for c in text]
    return [s for s, _ in runs], values, scalars, [k for k, _, _ in per_cp]


def range_table(value_of):
    out = []
    last = None
    for cp in range(MAX):
        v = value_of(cp)
        if v != last:
            out.append(cp << 8 | v)
            last = v
    return out


def composition_pairs(u):
    pairs = []
    for cp in range(MAX):
        if 0xAC00 <= cp <= 0xD7A3 or 0xD800 <= cp <= 0xDFFF:
            continue
        dec = u.decomposition(chr(cp))
        if not dec or dec.startswith("<"):
            continue
        parts = [int(x, 16) for x in dec.split()]
        if len(parts) == 2 and u.normalize("NFC", chr(parts[0]) + chr(parts[1])) == chr(cp):
            pairs.append((parts[0] << 21 | parts[1], cp))
    pairs.sort()
    return pairs


def make_unsafe(u, seconds):
    def unsafe(cp):
        # Not "NFC_Quick_Check=Yes with combining class 0": a string of code points all outside this set is NFC.
        if 0xD800 <= cp <= 0xDFFF:
            return 0
        c = chr(cp)
        if u.combining(c) != 0 or cp in seconds or u.normalize("NFC", c) != c:
            return 1
        if 0x1161 <= cp <= 0x1175 or 0x11A8 <= cp <= 0x11C2:  # Hangul V and T jamo combine with L / LV
            return 1
        return 0
    return unsafe


def normalization(u, per_status, pairs):
    keys, values, scalars = [], [], []
    for cp in range(MAX):
        if 0xAC00 <= cp <= 0xD7A3 or 0xD800 <= cp <= 0xDFFF:
            continue
        if per_status[cp] != 0:
            continue  # NFC only sees valid code points: the mapping replaced or refused the others
        c = chr(cp)
        nfd = u.normalize("NFD", c)
        if nfd != c:
            keys.append(cp)
            values.append(len(scalars) << 5 | len(nfd))
            scalars.extend(ord(x) for x in nfd)
    unsafe = make_unsafe(u, {k & 0x1FFFFF for k, _ in pairs})
    quick = range_table(unsafe)
    return keys, values, scalars, [k for k, _ in pairs], [v for _, v in pairs], quick


def swift_array(name, doc, kind, items, per_line=8):
    width = {"UInt32": 8, "UInt64": 14}[kind]
    lines = [f"/// {doc}", f"let {name}: [{kind}] = ["]
    for i in range(0, len(items), per_line):
        lines.append("  " + " ".join(f"0x{x:0{width}X}," for x in items[i:i + per_line]))
    lines.append("]")
    return "\n".join(lines)


def blocks(table, shift):
    """For each 256-code-point block of the BMP, the index of the entry holding the block's first code point."""
    import bisect
    keys = [e >> shift for e in table]
    return [bisect.bisect_right(keys, b << 8) - 1 for b in range(256)]


def swift_blocks(name, of, items):
    assert max(items) < 1 << 16
    lines = [f"/// For each 256-code-point block of the BMP, the index of the entry of `{of}` where the block starts.",
             f"let {name}: [UInt16] = ["]
    for i in range(0, len(items), 16):
        lines.append("  " + " ".join(f"{x}," for x in items[i:i + 16]))
    lines.append("]")
    return "\n".join(lines)


def render():
    idna, u = load()
    pairs = composition_pairs(u)
    starts, values, scalars, per_status = mapping_table(idna, u, make_unsafe(u, {k & 0x1FFFFF for k, _ in pairs}))

    def ch(cp):
        return chr(cp) if not 0xD800 <= cp <= 0xDFFF else None

    ccc = range_table(lambda cp: u.combining(ch(cp)) if ch(cp) else 0)
    bidi_index = {b: i for i, b in enumerate(BIDI)}
    bidi = range_table(lambda cp: bidi_index.get(u.bidirectional(ch(cp)), 0) if ch(cp) else 0)
    marks = range_table(lambda cp: 1 if ch(cp) and u.category(ch(cp)).startswith("M") else 0)
    jt = [0] * MAX
    for name, ranges in idna.idnadata.joining_types.items():
        for r in ranges:
            lo, hi = r >> 32, r & 0xFFFFFFFF
            for cp in range(lo, hi):
                jt[cp] = JOINING.get(name, 0)
    joining = range_table(lambda cp: jt[cp])
    dkeys, dvalues, dscalars, ckeys, cvalues, quick = normalization(u, per_status, pairs)
    first_unsafe = next(e >> 8 for e in quick if e & 0xFF)
    parts = [
        "// Generated by Scripts/idna-tables.py: do not edit. Run `python3 Scripts/idna-tables.py` to regenerate,",
        "// `make check-generated` to check. The layout is described in the script's doc.",
        f"// Unicode {UNICODE_VERSION}: idna {IDNA_VERSION} (UTS #46 mapping, joining types) and unicodedata2 "
        f"{UNICODEDATA2_VERSION} (UCD).",
        "",
        "/// The Unicode version of these tables.",
        f'let uts46UnicodeVersion = "{UNICODE_VERSION}"',
        "",
        "/// No code point below this one can change under NFC or has a combining class: NFC may be skipped.",
        f"let nfcFirstUnsafe: UInt32 = 0x{first_unsafe:X}",
        "",
        "/// No code point below this one has a canonical decomposition.",
        f"let firstDecomposable: UInt32 = 0x{min(dkeys):X}",
        "",
        "/// No code point below this one is the second of a primary composite's pair (Hangul jamo included).",
        f"let firstCompositionSecond: UInt32 = 0x{min(min(k & 0x1FFFFF for k in ckeys), 0x1161):X}",
        "",
        swift_array("uts46Starts", "Where each run of the IDNA mapping table starts.", "UInt32", starts),
        swift_blocks("uts46Blocks", "uts46Starts", blocks(starts, 0)),
        swift_array("uts46Values", "Each run's status and mapping (see Scripts/idna-tables.py).", "UInt32", values),
        swift_array("uts46Scalars", "The mapping strings, packed.", "UInt32", scalars),
        swift_array("combiningClasses", "Canonical combining class runs: `start << 8 | class`.", "UInt32", ccc),
        swift_blocks("combiningClassesBlocks", "combiningClasses", blocks(ccc, 8)),
        swift_array("bidiClasses", "Bidi class runs: `start << 8 | index` (the order of `BidiClass`).", "UInt32", bidi),
        swift_blocks("bidiClassesBlocks", "bidiClasses", blocks(bidi, 8)),
        swift_array("joiningTypes", "Joining type runs: `start << 8 | type` (0 other, 1 L, 2 D, 3 R, 4 T).", "UInt32",
                    joining),
        swift_blocks("joiningTypesBlocks", "joiningTypes", blocks(joining, 8)),
        swift_array("markRuns", "General category Mark runs: `start << 8 | 1` inside one, `start << 8` outside.",
                    "UInt32", marks),
        swift_blocks("markRunsBlocks", "markRuns", blocks(marks, 8)),
        swift_array("nfcQuickCheck", "Runs of code points that may change under NFC (`1`), or cannot (`0`).",
                    "UInt32", quick),
        swift_blocks("nfcQuickCheckBlocks", "nfcQuickCheck", blocks(quick, 8)),
        swift_array("decompositionKeys", "Code points with a canonical decomposition (Hangul excluded).", "UInt32",
                    dkeys),
        swift_array("decompositionValues", "`offset << 5 | count` into decompositionScalars.", "UInt32", dvalues),
        swift_array("decompositionScalars", "The full canonical decompositions, packed.", "UInt32", dscalars),
        swift_array("compositionKeys", "Primary composites' pairs: `first << 21 | second`, sorted.", "UInt64", ckeys,
                    per_line=6),
        swift_array("compositionValues", "The composite of each pair.", "UInt32", cvalues),
    ]
    sizes = {
        "uts46": 4 * (len(starts) + len(values) + len(scalars)),
        "block indexes": 2 * 256 * 6,
        "nfc": 4 * (len(dkeys) + len(dvalues) + len(dscalars) + len(cvalues) + len(ccc) + len(quick)) + 8 * len(ckeys),
        "bidi+joining+marks": 4 * (len(bidi) + len(joining) + len(marks)),
    }
    if "--check" not in sys.argv[1:]:
        sys.stderr.write(f"idna-tables.py: table bytes {sizes}, total {sum(sizes.values())}\n")
    return "\n".join(parts) + "\n"


def main():
    if "--requirements" in sys.argv[1:]:
        print(f"idna=={IDNA_VERSION} unicodedata2=={UNICODEDATA2_VERSION}")
        return
    text = render()
    if "--check" in sys.argv[1:]:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            sys.stderr.write(f"{OUTPUT.name} is not Scripts/idna-tables.py's output: run python3 Scripts/idna-tables.py\n")
            sys.exit(1)
        return
    OUTPUT.write_text(text)


if __name__ == "__main__":
    main()
