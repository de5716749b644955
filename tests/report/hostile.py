#!/usr/bin/env python3
"""hostile.py EXAMPLE DEST: a copy of an example workspace whose strings
carry markup and terminal escape sequences, for the decision record's tests
(tests/report/): a gate owner, the name of the soak run the graphs show, and
a known limitation of the candidate (whose signature then fails, as it
should: the report still says everything).  Each string holds '<script>',
'&' and an escape sequence, and '</svg>' where a name may hold a '/'; the tests check that they come out as
text in Markdown, in HTML and in a browser."""

import json
import os
import shutil
import sys

# What each carries; the tests look for these words.
OWNER = '<script>alert("owner")</script> & </svg> \x1b]52;c;QUFBQQ==\x07 \x1b[31mred'
RUN = '2026-09-21-24h <svg onload=alert(2)> <script>x & \x1b[2J'
LIMIT = '</svg><script>alert(3)</script> & \x1b]0;title\x07 <b>bold</b>'


def yaml_quoted(s):
    """s as a YAML double-quoted scalar, controls as \\xHH escapes."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append('\\' + ch)
        elif ord(ch) < 0x20:
            out.append('\\x%02x' % ord(ch))
        else:
            out.append(ch)
    return '"' + ''.join(out) + '"'


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: hostile.py EXAMPLE DEST')
    src, dest = sys.argv[1], sys.argv[2]
    shutil.copytree(src, dest, symlinks=True)
    owners = os.path.join(dest, 'owners.yaml')
    with open(owners, encoding='utf-8') as f:
        text = f.read()
    text = text.replace('"Kenji Watanabe (compiler team)", due: 2026-08-26',
                        yaml_quoted(OWNER) + ', due: 2026-08-26')
    with open(owners, 'w', encoding='utf-8') as f:
        f.write(text)
    soak = os.path.join(dest, '07-serving', 'soak')
    os.rename(os.path.join(soak, '2026-09-21-24h'), os.path.join(soak, RUN))
    man = os.path.join(dest, '08-release', 'generations', '2',
                       'release-manifest.json')
    with open(man, encoding='utf-8') as f:
        doc = json.load(f)
    doc['known_limitations'].append(LIMIT)
    with open(man, 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=2)


if __name__ == '__main__':
    main()
