"""The command line both golden generators share: write the JSON, or --check
that the committed file is exactly what the generator writes today."""
import argparse
import os
import sys


def run(doc, file_name, write_text):
    """doc: the generator's docstring; write_text(): the JSON text to write."""
    prog = os.path.basename(sys.argv[0])
    default = os.path.join(os.path.dirname(os.path.abspath(__file__)), file_name)
    ap = argparse.ArgumentParser(description=doc.split('\n')[0])
    ap.add_argument('--check', action='store_true',
                    help='regenerate in memory and exit 1 if the committed %s differs' % file_name)
    ap.add_argument('--out', default=default)
    args = ap.parse_args()
    text = write_text()
    size = len(text.encode('utf-8'))
    if not args.check:
        with open(args.out, 'w', encoding='utf-8', newline='\n') as f:
            f.write(text)
        print('wrote %s (%d bytes)' % (args.out, size))
        return 0
    try:
        with open(args.out, encoding='utf-8') as f:
            old = f.read()
    except OSError as e:
        print('%s --check: cannot read %s: %s' % (prog, args.out, e), file=sys.stderr)
        return 1
    if old != text:
        a, b = old.splitlines(), text.splitlines()
        first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        print('%s --check: %s differs from what %s writes (first difference at line %d). '
              'Run python3 tests/golden/%s and commit the result.' % (prog, args.out, prog, first + 1, prog),
              file=sys.stderr)
        return 1
    print('%s --check: %s is up to date (%d bytes)' % (prog, args.out, size))
    return 0
