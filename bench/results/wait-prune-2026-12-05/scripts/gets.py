"""The `GET observed` events of a `WARP_LOG=trace` run: (MiB, body ms, late ms, waited ms)."""
import re


def gets(path):
    rows = []
    for line in open(path):
        if 'GET observed' in line:
            d = dict(re.findall(r'(\w+)=([0-9.e+-]+)', line))
            mib = float(d['len']) / 2**20
            body = float(d['latency_ms']) - float(d['first_byte_ms'])
            rows.append((mib, body, float(d['late_ms']), float(d['waited_ms'])))
    return rows
