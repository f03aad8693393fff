#!/usr/bin/env python3
"""Writes the long help of `linkparse` (what `--help` prints under OVERVIEW) from the DocC article
Sources/LinkParse/LinkParse.docc/UsingTheLinkparseCommand.md, the one written form of the command's contract,
into Sources/_LinkParseCLI/HelpText.swift.

The article's sections become the help of the commands they describe: the section whose title names
`token-request` is `linkparse token-request --help`, the one that names `routes` is `linkparse routes --help`,
and the whole article (its overview and every section) is `linkparse --help` / `linkparse parse --help`.
Markdown becomes terminal text: headings as plain lines, prose reflowed to 78 columns, `code` and *emphasis*
marks dropped, links to other articles by their titles, shell blocks as `$ ` commands, other blocks indented.

Usage: help-text.py            write Sources/_LinkParseCLI/HelpText.swift
       help-text.py --check    exit 1 when the committed file differs from what would be written
"""
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCC = "Sources/LinkParse/LinkParse.docc"
ARTICLE = DOCC + "/UsingTheLinkparseCommand.md"
OUT = "Sources/_LinkParseCLI/HelpText.swift"
WIDTH = 78


def titles():
    """Each article's name (for <doc:Name>) and its title."""
    out = {}
    for name in os.listdir(os.path.join(ROOT, DOCC)):
        if name.endswith(".md"):
            with open(os.path.join(ROOT, DOCC, name), encoding="utf-8") as f:
                first = f.readline().strip()
            out[name[:-3]] = first.lstrip("# ").strip()
    return out


def inline(text, docs):
    """Markdown inline marks to plain text."""
    text = re.sub(r"<doc:([A-Za-z0-9]+)>", lambda m: "the article \u201c" + docs.get(m.group(1), m.group(1)) + "\u201d", text)
    text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r"\1 (\2)", text)
    text = re.sub(r"``([^`]+)``", r"\1", text)
    # A code span without a letter or digit (`?`, `-`, `""`) is quoted, else it would vanish into the prose.
    text = re.sub(r"`([^`]+)`", lambda m: m.group(1) if re.search(r"[\w\"]", m.group(1)) else '"' + m.group(1) + '"', text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\1", text)
    return text


def fold_words(indent, line):
    """A text block's line (a table, a synopsis) in pieces of at most WIDTH columns, broken at spaces, each
    continuation indented four more."""
    out = []
    lead = indent
    while len(lead) + len(line) > WIDTH and " " in line[: WIDTH - len(lead)].strip():
        cut = line.rfind(" ", 0, WIDTH - len(lead))
        out.append(lead + line[:cut].rstrip())
        line = line[cut:].strip()
        lead = indent + "    "
    out.append(lead + line)
    return out


def fold_text(indent, line):
    """A block's line in pieces of at most WIDTH columns (ArgumentParser wraps longer lines at spaces, which
    breaks JSON and tables): after a comma where one is near the end, else at the width; never next to a space,
    so that a continuation (indented one more) joined back without its indentation gives the line."""
    out = []
    first = True
    while True:
        lead = indent if first else indent + " "
        room = WIDTH - len(lead)
        if len(line) <= room:
            out.append(lead + line)
            return out
        cut = line.rfind(",", room // 2, room) + 1
        if cut <= 0:
            cut = room
        while cut > 1 and (line[cut - 1] == " " or line[cut] == " "):
            cut -= 1
        out.append(lead + line[:cut])
        line = line[cut:]
        first = False


def fold_shell(lead, line):
    """A shell command in lines of at most WIDTH columns, each but the last ending in a backslash: at a space
    outside quotes where there is one, else inside a single-quoted word (closing the quote before the backslash
    and opening it again on the next line: 'ab'\\<newline>'cd' is abcd)."""
    out = []
    rest = line
    while len(lead) + len(rest) > WIDTH:
        room = WIDTH - len(lead) - 2
        quoted = False
        space = -1
        for i, ch in enumerate(rest[:room]):
            if ch == "'":
                quoted = not quoted
            elif ch == " " and not quoted:
                space = i
        if space > 0:
            out.append(lead + rest[:space] + " \\")
            rest = rest[space + 1:]
        elif quoted:
            out.append(lead + rest[:room - 1] + "'\\")
            rest = "'" + rest[room - 1:]
        else:
            break
        lead = " " * 6
    out.append(lead + rest)
    return out


def render(lines, docs):
    """Terminal text for a run of article lines."""
    out = []
    i = 0
    para = []

    def flush():
        if para:
            text = inline(" ".join(s.strip() for s in para), docs)
            if para[0].startswith("- "):
                out.extend(textwrap.wrap(text, WIDTH, initial_indent="", subsequent_indent="  ", break_on_hyphens=False, break_long_words=False))
            else:
                out.extend(textwrap.wrap(text, WIDTH, break_on_hyphens=False, break_long_words=False))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            kind = line[3:].strip()
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1
            continued = False
            for b in body:
                if kind == "sh" and b.startswith("#"):
                    out.extend(fold_text("    ", b))
                elif kind == "sh" and not continued:
                    out.extend(fold_shell("  $ ", b))
                elif kind == "sh":
                    out.extend(fold_shell("    ", b))
                elif b.startswith("$ "):
                    out.extend(fold_shell("  $ ", b[2:]))
                elif kind == "json":
                    out.extend(fold_text("  ", b))
                else:
                    out.extend(fold_words("  ", b))
                continued = kind == "sh" and (b.rstrip().endswith("|") or b.rstrip().endswith("\\"))
            continue
        if line.startswith("#"):
            flush()
            if out and out[-1] != "":
                out.append("")
            out.append(inline(line.lstrip("# ").strip(), docs))
            i += 1
            continue
        if line.strip() == "" or line.startswith("<!--"):
            flush()
            if out and out[-1] != "":
                out.append("")
            i += 1
            continue
        if line.startswith("- "):
            flush()
        para.append(line)
        i += 1
    flush()
    while out and out[-1] == "":
        out.pop()
    while out and out[0] == "":
        out.pop(0)
    return out


def sections(text):
    """(title, lines) for the article's overview and each ### section."""
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("## Overview")) + 1
    parts = [("", [])]
    for line in lines[start:]:
        if line.startswith("### ") or line.startswith("## "):
            parts.append((line.lstrip("# ").strip(), [line]))
        else:
            parts[-1][1].append(line)
    return parts


def swift_string(lines):
    body = "\n".join(lines).replace("\\", "\\\\").replace('"""', '\\"""')
    return '"""\n' + "\n".join(("    " + l) if l else "" for l in body.split("\n")) + '\n    """'


def generate():
    docs = titles()
    with open(os.path.join(ROOT, ARTICLE), encoding="utf-8") as f:
        parts = sections(f.read())
    # The whole help is its pieces in the article's order: runs of sections, and the two sections that are a
    # subcommand's help as well, named rather than repeated.
    pieces = []  # (name or None, rendered lines)
    run = []
    named = {}
    for title, lines in parts:
        name = "tokenRequest" if "token-request" in title else "routes" if "routes" in title.lower() else None
        if name is None:
            run.extend(lines)
            continue
        if run:
            pieces.append((None, render(run, docs)))
            run = []
        pieces.append((None, render(lines[:1], docs)))  # the heading
        named[name] = render(lines[1:], docs)
        pieces.append((name, None))
    if run:
        pieces.append((None, render(run, docs)))
    if set(named) != {"routes", "tokenRequest"}:
        sys.exit("help-text.py: the article has no routes or token-request section")
    terms = [name if name else swift_string(lines) for name, lines in pieces]
    return (
        "// Generated by Scripts/help-text.py from " + ARTICLE + ": do not edit (edit the article, then run\n"
        "// `make docs-snippets`). The article is the command's contract; --help prints it.\n\n"
        "/// The long help of each command, from the DocC article *Using the linkparse command*.\n"
        "enum HelpText {\n"
        "  /// `linkparse --help` and `linkparse parse --help`: the whole article.\n"
        "  static let parse = [\n    " + ",\n    ".join(terms) + ",\n  ].joined(separator: \"\\n\\n\")\n\n"
        "  /// `linkparse routes --help`: the article's section on routes.\n"
        "  static let routes = " + swift_string(named["routes"]) + "\n\n"
        "  /// `linkparse token-request --help`: the article's section on token-request.\n"
        "  static let tokenRequest = " + swift_string(named["tokenRequest"]) + "\n"
        "}\n"
    )


def main():
    text = generate()
    path = os.path.join(ROOT, OUT)
    if "--check" in sys.argv[1:]:
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if current != text:
            sys.exit("help-text.py: " + OUT + " is not current: run `make docs-snippets` and commit it")
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
