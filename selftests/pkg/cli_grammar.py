#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The fabtrace CLI's grammar as its help prints it and as its man page says.

    cli_grammar.py help FABTRACE   from "fabtrace help" and "fabtrace OBJECT help"
    cli_grammar.py man FILE        from the man page's synopsis and COMMANDS

Both print the same lines, sorted, so that diff(1) compares them:
    object OBJ
    command OBJ CMD             ("-" when keywords follow the object itself)
    word OBJ CMD WORD           each keyword and keyword value of the command
    option --LONG               each long option
    value WORD                  (help only) the words of the "where" lists
Usage lines are read the same way from both: "fabtrace OBJ [CMD] ...", with
[ ] { } | as punctuation, UPPERCASE words as placeholders and lowercase
words as keywords.  The word after OBJ is a command unless a placeholder or
a "{" comes right after it (then it is a keyword of the object's only
command: "fabtrace monitor [ dev DEV ]", but "fabtrace dev [ show [ DEV ] ]"); "help" is a command of every object and
is left out.
"""
import re
import subprocess
import sys

WORD = re.compile(r"(?<![\w-])[a-z][a-z0-9_-]*")
TOKEN = re.compile(r"[\[\]{}|]|[^\s\[\]{}|]+")


def usage_entries(text):
    """(obj, cmd, words) for each "fabtrace OBJ ..." usage line of text."""
    out = []
    for line in text:
        toks = TOKEN.findall(line)
        if len(toks) < 2 or toks[0] != "fabtrace" or not WORD.fullmatch(toks[1]):
            continue
        obj, rest = toks[1], toks[2:]
        words = [t for t in rest if WORD.fullmatch(t)]
        cmd = "-"
        if words:
            i = rest.index(words[0])
            nxt = rest[i + 1:i + 2]
            if not nxt or not (nxt[0].isupper() or nxt[0] == "{"):
                cmd = words.pop(0)
        if cmd == "help":
            continue
        out.append((obj, cmd, words))
    return out


def join_usage(lines):
    """The usage block of a help text, one entry per "fabtrace" line."""
    entries, cur = [], None
    for line in lines:
        s = line.strip()
        if s.startswith("Usage:"):
            s = s[len("Usage:"):].strip()
        elif cur is None:
            continue
        if not s or s.startswith("where"):
            break
        if s.startswith("fabtrace"):
            if cur is not None:
                entries.append(cur)
            cur = s
        elif cur is not None:
            cur += " " + s
    if cur is not None:
        entries.append(cur)
    return entries


def emit(objects, entries, options, values=()):
    lines = {f"object {o}" for o in objects}
    for obj, cmd, words in entries:
        lines.add(f"command {obj} {cmd}")
        lines.update(f"word {obj} {cmd} {w}" for w in words)
    lines.update(f"option --{o}" for o in options)
    lines.update(f"value {v}" for v in values)
    print("\n".join(sorted(lines)))


def from_help(cli):
    def run(*args):
        return subprocess.run([cli, *args], check=True, capture_output=True,
                              text=True).stdout.splitlines()

    top = run("help")
    # OBJECT := { dev | ... }, its braces maybe lines apart
    m = re.search(r"OBJECT\s*:=\s*\{([^}]*)\}", "\n".join(top))
    objects = WORD.findall(m.group(1)) if m else []
    options = []
    in_opts = False
    for line in top:
        if line.startswith("Options:"):
            in_opts = True
        elif in_opts and line and not line.startswith(" "):
            break
        elif in_opts:
            m = re.match(r"\s+(?:-\w, )?--([a-z][a-z-]*)", line)
            if m:
                options.append(m.group(1))
    entries, values = [], set()
    for obj in objects:
        text = run(obj, "help")
        entries += usage_entries(join_usage(text))
        # the "where" lists: TYPE := { rc | uc ... }, KIND := ...
        in_where = False
        for line in text:
            if line.startswith("where"):
                in_where = True
            elif in_where and not line.strip():
                break
            if in_where:
                for part in re.findall(r"\{([^}]*)\}?", line.split(":=", 1)[-1]):
                    values.update(WORD.findall(part))
                if ":=" not in line and "|" in line:
                    values.update(WORD.findall(line))
    emit(objects, entries, options, values)


def from_man(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    objects, options, entries = [], [], []
    section = None
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            section = line[4:].strip().strip('"')
            continue
        plain = re.sub(r"\\f[BIRP]|\\-|\"", lambda m: "-" if m.group() == "\\-" else "", line)
        if section == "SYNOPSIS" and "OBJECT" in line and ":=" in line:
            # the list continues on the next line(s)
            j, text = i, ""
            while j < len(lines) and "}" not in text:
                text += " " + re.sub(r"\\f[BIRP]|\"", "", lines[j])
                j += 1
            objects = WORD.findall(text.split("{", 1)[1].split("}", 1)[0])
        if section == "OPTIONS" and i > 0 and lines[i - 1] == ".TP":
            options += re.findall(r"--([a-z][a-z-]*)", plain)
        if section == "COMMANDS" and line.startswith(".SS "):
            entries += usage_entries([plain[4:].strip()])
    emit(objects, entries, options)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("help", "man"):
        sys.exit(__doc__)
    if sys.argv[1] == "help":
        from_help(sys.argv[2])
    else:
        from_man(sys.argv[2])


if __name__ == "__main__":
    main()
