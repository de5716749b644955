#!/usr/bin/env python3
"""render_test.py CALOPS markdown|browser: the decision record as its
readers get it (share/doc/release.md §8).

markdown: `calops report` of each example workspace and of the hostile one
(hostile.py) through a real Markdown parser, Debian's python3-markdown
(markdown_py, with its tables): the board is a table holding every gate's
row, and the hostile strings are text: no script, svg or b element.

browser: `calops report --format html` of the same workspaces rendered by
a real browser, Debian's chromium, headless: the DOM it builds
(--dump-dom) holds every gate's row and, where there is a soak, its three
graphs as SVG with their SLA lines; its screenshot (--screenshot) is not
blank; the hostile strings are text, with no script element and every
graph whole.  Skipped (exit 77) only when chromium cannot run at all.

Prints 'N passed, N failed' last."""

import html.parser
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
GATES = ['G%d' % i for i in range(11)]
# The hostile strings as the sanitiser shows them (hostile.py).
HOSTILE = [
    '<script>alert("owner")</script> & </svg> ^[]52;c;QUFBQQ==^G ^[[31mred',
    '2026-09-21-24h <svg onload=alert(2)> <script>x & ^[[2J',
    '</svg><script>alert(3)</script> & ^[]0;title^G <b>bold</b>',
]

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print('FAIL: ' + what)


class Dom(html.parser.HTMLParser):
    """The elements of a page (tag, attributes, text inside) and its
    text, enough to ask what a reader would see."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []
        self.stack = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        e = {'tag': tag, 'attrs': dict(attrs), 'text': [], 'children': []}
        if self.stack:
            self.stack[-1]['children'].append(e)
        self.elements.append(e)
        if tag not in ('meta', 'br', 'hr', 'img', 'input', 'link'):
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1]['tag'] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i]['tag'] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        self.text.append(data)
        for e in self.stack:
            e['text'].append(data)

    def find(self, tag, **attrs):
        return [e for e in self.elements if e['tag'] == tag and
                all(e['attrs'].get(k) == v for k, v in attrs.items())]


def parse(page):
    d = Dom()
    d.feed(page)
    d.close()
    return d


def text_of(e):
    return ''.join(e['text'])


def rows_of(table):
    """The tr elements of a table, head and body."""
    out = []
    for c in table['children']:
        out += [c] if c['tag'] == 'tr' else rows_of(c)
    return out


def report(calops, ws, fmt):
    r = subprocess.run([calops, 'report', '--format', fmt, ws],
                       capture_output=True)
    check(r.returncode == 0, '%s: report --format %s exited %d: %s' %
          (ws, fmt, r.returncode, r.stderr.decode(errors='replace')))
    return r.stdout


def workspaces(tmp):
    """The examples, and the hostile one made from complete."""
    out = [(name, os.path.join(SRC, 'share', 'examples', name))
           for name in ('complete', 'midproject', 'labdemo')]
    hostile = os.path.join(tmp, 'hostile')
    subprocess.run([sys.executable, os.path.join(HERE, 'hostile.py'),
                    os.path.join(SRC, 'share', 'examples', 'complete'),
                    hostile], check=True)
    return out + [('hostile', hostile)]


def hostile_is_text(name, dom):
    """Each hostile string shows as text, and made no element."""
    page = ''.join(dom.text)
    for s in HOSTILE:
        check(s in page, '%s: %r is not shown as text' % (name, s))
    check(not dom.find('script'), name + ': a script element was made')
    check(not dom.find('b'), name + ': a <b> element was made')


def markdown(calops, tmp):
    if shutil.which('markdown_py') is None:
        print('SKIP: no markdown_py (Debian python3-markdown; '
              'share/bootstrap.sh test installs it)')
        return 77
    for name, ws in workspaces(tmp):
        md = report(calops, ws, 'md')
        r = subprocess.run(['markdown_py', '-x', 'tables'], input=md,
                           capture_output=True)
        check(r.returncode == 0, name + ': markdown_py failed')
        dom = parse(r.stdout.decode('utf-8'))
        board = [text_of(e).strip().split('\n')[0]
                 for e in rows_of(dom.find('table')[0])][1:]
        check(board == GATES, '%s: the board\'s rows are %r' % (name, board))
        check(len(dom.find('h1')) == 1, name + ': not one h1')
        check(not dom.find('svg'), name + ': an svg element was made')
        if name == 'hostile':
            hostile_is_text(name, dom)
        else:
            check(not dom.find('script'), name + ': a script element')
    return 0


def chromium(args, tmp):
    return subprocess.run(['chromium', '--headless', '--no-sandbox',
                           '--disable-gpu', '--user-data-dir=' +
                           os.path.join(tmp, 'profile')] + args,
                          capture_output=True, timeout=120)


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit PNG, unfiltered."""
    with open(path, 'rb') as f:
        data = f.read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, colour = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and colour in (2, 6), 'not 8-bit RGB(A)'
            bpp = 3 if colour == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], None
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        up = prev or bytearray(stride)
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = up[i], up[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def not_blank(name, path):
    """Enough ink, in enough colours: text, tables and the graphs."""
    w, h, bpp, rows = png_pixels(path)
    ink, colours = 0, set()
    for line in rows[::2]:
        for x in range(0, w * bpp, bpp * 2):
            px = bytes(line[x:x + 3])
            colours.add(px)
            if sum(px) < 600:
                ink += 1
    share = ink / ((h // 2) * (w // 2))
    check(share > 0.01, '%s: the screenshot is blank (%.4f ink)' %
          (name, share))
    check(len(colours) > 16, '%s: the screenshot has %d colours' %
          (name, len(colours)))


def graphs(name, dom, soak):
    svgs = dom.find('svg')
    if not soak:
        check(not svgs, name + ': graphs without a soak')
        return
    check([s['attrs'].get('id') for s in svgs] ==
          ['graph-ttft', 'graph-tpot', 'graph-rss'],
          '%s: the graphs are %r' % (name, [s['attrs'] for s in svgs]))
    for s in svgs:
        kids = [c['tag'] for c in s['children']]
        lines = [c for c in s['children'] if c['tag'] == 'polyline']
        check(len(lines) == 1 and
              len(lines[0]['attrs'].get('points', '').split()) > 10,
              '%s: %s has no line of points' % (name, s['attrs'].get('id')))
        sla = [c for c in s['children'] if c['tag'] == 'line' and
               c['attrs'].get('class') == 'sla']
        want = 0 if s['attrs'].get('id') == 'graph-rss' else 1
        check(len(sla) == want, '%s: %s has %d SLA lines (%r)' %
              (name, s['attrs'].get('id'), len(sla), kids))


def browser(calops, tmp):
    try:
        r = chromium(['--dump-dom', 'about:blank'], tmp)
        runs = r.returncode == 0 and b'<html' in r.stdout
    except (OSError, subprocess.TimeoutExpired):
        runs = False
    if not runs:
        print('SKIP: chromium cannot run here (share/bootstrap.sh test '
              'installs Debian\'s chromium)')
        return 77
    for name, ws in workspaces(tmp):
        page = os.path.join(tmp, name + '.html')
        with open(page, 'wb') as f:
            f.write(report(calops, ws, 'html'))
        shot = os.path.join(tmp, name + '.png')
        # One run of the browser: the DOM it built, and what it drew.
        r = chromium(['--dump-dom', '--screenshot=' + shot,
                      '--window-size=900,1100', '--hide-scrollbars',
                      'file://' + page], tmp)
        check(r.returncode == 0, name + ': chromium failed: ' +
              r.stderr.decode(errors='replace')[-300:])
        dom = parse(r.stdout.decode('utf-8'))
        keys = [e['attrs'].get('data-key') for e in dom.find('tr')
                if e['attrs'].get('class') == 'gate']
        check(keys == GATES, '%s: the DOM\'s gate rows are %r' % (name, keys))
        for e in dom.find('tr'):
            if e['attrs'].get('class') == 'gate':
                cells = [c for c in e['children'] if c['tag'] == 'td']
                check(len(cells) == 6, '%s: a gate row has %d cells' %
                      (name, len(cells)))
        graphs(name, dom, name in ('complete', 'hostile'))
        if name == 'hostile':
            hostile_is_text(name, dom)
        else:
            check(not dom.find('script'), name + ': a script element')
        check(os.path.exists(shot), name + ': no screenshot')
        if os.path.exists(shot):
            not_blank(name, shot)
    return 0


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ('markdown', 'browser'):
        sys.exit('usage: render_test.py CALOPS markdown|browser')
    calops = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix='calops render ') as tmp:
        os.environ['XDG_CACHE_HOME'] = os.path.join(tmp, 'cache')
        rc = (markdown if sys.argv[2] == 'markdown' else browser)(calops,
                                                                  tmp)
    if rc == 77:
        sys.exit(77)
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
