#!/usr/bin/env python3
"""Writes a fixed, seeded file of JSON-like events, one per line, each exactly SIZE bytes.

The compression benchmark feeds the same file to Spool's `spool perf produce --payload-file` and to
Kafka's ProducerPerformance `--payload-file`; both split it at newlines and pick records with a
SplittableRandom seeded 0, so both send the same values. The events look like web/app telemetry:
repeated field names, values from small vocabularies, ids and numbers that vary, a free-text
field padded with words, so they compress like real event streams (several times), not like
random bytes (not at all) or repeated bytes (absurdly well).

Usage: bench-payload.py [--seed N] [--count N] [--size BYTES] > payload.txt
"""
import argparse
import json
import random
import sys

EVENTS = ["page_view", "click", "add_to_cart", "checkout", "search", "login", "logout", "purchase"]
PATHS = ["/", "/home", "/products", "/products/{}", "/cart", "/checkout", "/search", "/account",
         "/help/{}", "/blog/{}"]
COUNTRIES = ["DE", "US", "FR", "GB", "NL", "SE", "PL", "IT", "ES", "BR", "IN", "JP"]
AGENTS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36",
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
]
WORDS = ("the quick order shipped late because warehouse stock was low customer asked about refund "
         "delivery window tracking number updated payment retried successfully coupon applied "
         "session expired user returned later and completed purchase with express shipping").split()


def event(r, size):
    e = {
        "ts": "2024-0{}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z".format(
            r.randint(1, 9), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59),
            r.randint(0, 59), r.randint(0, 999)),
        "event": r.choice(EVENTS),
        "user_id": "u-{:07d}".format(r.randint(0, 2_000_000)),
        "session": "{:016x}".format(r.getrandbits(64)),
        "ip": "10.{}.{}.{}".format(r.randint(0, 255), r.randint(0, 255), r.randint(1, 254)),
        "country": r.choice(COUNTRIES),
        "ua": r.choice(AGENTS),
        "path": r.choice(PATHS).format(r.randint(1, 5000)),
        "referrer": "https://www.example.com" + r.choice(PATHS).format(r.randint(1, 500)),
        "latency_ms": r.randint(1, 2500),
        "status": r.choice([200, 200, 200, 200, 201, 204, 301, 404, 500]),
        "cart": [{"sku": "SKU-{:05d}".format(r.randint(0, 99999)), "qty": r.randint(1, 5),
                  "price": round(r.uniform(1, 300), 2)} for _ in range(r.randint(0, 3))],
        "note": "",
    }
    line = json.dumps(e, separators=(",", ":"))
    words = []
    while len(line) < size:
        words.append(r.choice(WORDS))
        e["note"] = " ".join(words)
        line = json.dumps(e, separators=(",", ":"))
    # Trim the note so the line is exactly SIZE bytes (ASCII only).
    excess = len(line) - size
    e["note"] = e["note"][: len(e["note"]) - excess]
    line = json.dumps(e, separators=(",", ":"))
    assert len(line) == size and "\n" not in line, (len(line), size)
    return line


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=20240601)
    p.add_argument("--count", type=int, default=10000)
    p.add_argument("--size", type=int, default=1024)
    a = p.parse_args()
    r = random.Random(a.seed)
    out = sys.stdout
    for i in range(a.count):
        out.write(event(r, a.size))
        out.write("\n" if i < a.count - 1 else "")


if __name__ == "__main__":
    main()
